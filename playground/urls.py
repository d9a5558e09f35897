from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from playground.api import errors
from playground.site import api, views
from playground.site.throttling import throttle_sign_in

# JSON, never an HTML page or a traceback, for anything under /api/.
handler404 = "playground.api.errors.not_found"
handler500 = "playground.api.errors.server_error"

urlpatterns = [
    path("", views.HomeView.as_view(), name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"),
    path(
        "api/redoc/",
        SpectacularRedocView.as_view(url_name="schema", template_name="playground/redoc.html"),
        name="redoc",
    ),
    # DRF's browsable-API sign-in, with the failed-sign-in lockout.
    path("api/auth/token/", api.TokenView.as_view(), name="api-token"),
    path("api/auth/login/", throttle_sign_in(auth_views.LoginView.as_view(
        template_name="rest_framework/login.html")), name="api-login"),
    path("api/auth/", include("rest_framework.urls")),
    # REST API, one URL module per feature: clusters and their objects; profiles, plugins,
    # the profile editor's and the compare view's reads; runs, their cycles and the run page's
    # reads; timelines; what-if; workshops.
    path("api/", include("playground.clusters.urls")),
    path("api/", include("playground.profiles.urls")),
    path("api/", include("playground.runs.urls")),
    path("api/", include("playground.timelines.urls")),
    path("api/", include("playground.whatif.urls")),
    path("api/workshops/", include("playground.workshops.api_urls")),
    path("api/practice/", include("playground.workshops.practice_urls")),
    re_path(r"^api/", errors.api_not_found),
    # Sign-in, join and workshop pages.
    path("", include("playground.workshops.pages")),
    # Browser pages.
    path("", include("playground.site.pages")),
    path("", include("playground.whatif.pages")),
]
