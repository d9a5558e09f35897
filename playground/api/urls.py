"""URLs under /api/ for clusters, their objects and profiles, runs, plugins and tokens
(included by playground.urls, beside the timelines' and the workshops' own)."""

from django.urls import path

from playground.api import views

urlpatterns = [
    path("auth/token/", views.TokenView.as_view(), name="api-token"),
    path("clusters/", views.ClusterListView.as_view(), name="api-clusters"),
    path("clusters/import/", views.ClusterImportView.as_view(), name="api-cluster-import"),
    path("clusters/<int:pk>/", views.ClusterDetailView.as_view(), name="api-cluster"),
    path("clusters/<int:pk>/import/", views.ClusterReimportView.as_view(),
         name="api-cluster-reimport"),
    path("clusters/<int:pk>/export/", views.ClusterExportView.as_view(),
         name="api-cluster-export"),
    path("clusters/<int:pk>/clone/", views.ClusterCloneView.as_view(), name="api-cluster-clone"),
    path("clusters/<int:pk>/profile/", views.ProfileView.as_view(), name="api-cluster-profile"),
    path("runs/", views.RunListView.as_view(), name="api-runs"),
    path("runs/<int:pk>/", views.RunDetailView.as_view(), name="api-run"),
    path("runs/<int:pk>/cycles/", views.RunCyclesView.as_view(), name="api-run-cycles"),
    path("runs/<int:pk>/cycles/<int:index>/", views.RunCycleDetailView.as_view(),
         name="api-run-cycle"),
    path("runs/<int:pk>/state/", views.RunStateView.as_view(), name="api-run-state"),
    path("runs/<int:pk>/export/", views.RunExportView.as_view(), name="api-run-export"),
    path("plugins/", views.PluginListView.as_view(), name="api-plugins"),
]

for segment, list_view, detail_view in views.OBJECT_VIEWS:
    urlpatterns += [
        path(f"clusters/<int:cluster_id>/{segment}/", list_view.as_view(),
             name=f"api-cluster-{segment}"),
        path(f"clusters/<int:cluster_id>/{segment}/<int:pk>/", detail_view.as_view(),
             name=f"api-cluster-{segment}-detail"),
    ]

for action, view in views.RUN_ACTION_VIEWS.items():
    urlpatterns.append(path(f"runs/<int:pk>/{action}/", view.as_view(), name=f"api-run-{action}"))
