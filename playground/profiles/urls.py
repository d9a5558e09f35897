"""URLs under /api/ for a cluster's profile, the plugins, the profile editor and the compare
view (included by playground.urls)."""

from django.urls import path

from playground.profiles import api

urlpatterns = [
    path("clusters/<int:pk>/profile/", api.ProfileView.as_view(), name="api-cluster-profile"),
    path("plugins/", api.PluginListView.as_view(), name="api-plugins"),
    path("profiles/yaml/", api.ProfileYamlView.as_view(), name="api-profile-yaml"),
    path("profiles/check/", api.ProfileCheckView.as_view(), name="api-profile-check"),
    path("clusters/<int:pk>/compare/", api.ProfileCompareView.as_view(),
         name="api-cluster-compare"),
]
