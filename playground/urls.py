from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from playground import views

urlpatterns = [
    path("", views.HomeView.as_view(), name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"),
    path(
        "api/redoc/",
        SpectacularRedocView.as_view(url_name="schema", template_name="playground/redoc.html"),
        name="redoc",
    ),
    path("api/auth/", include("rest_framework.urls")),
    # REST API: clusters, objects, profiles, runs, plugins (issue 6).
    path("api/", include("playground.api.urls")),
    # Sign-in, join and workshop pages (issue 16).
    path("", include("playground.workshops.pages")),
    # Browser pages and their JSON helpers (issue 8).
    path("", include("playground.pages")),
]
