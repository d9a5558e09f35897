"""The REST API's page size (settings.REST_FRAMEWORK's DEFAULT_PAGINATION_CLASS): the generic
list views page their results; plain APIViews answer, and are documented as, plain lists."""

from rest_framework.pagination import PageNumberPagination


class PlaygroundPagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 1000
