"""URLs under /api/ for clusters and their objects (included by playground.urls)."""

from django.urls import path

from playground.clusters import api, objects_api

urlpatterns = [
    path("clusters/", api.ClusterListView.as_view(), name="api-clusters"),
    path("clusters/import/", api.ClusterImportView.as_view(), name="api-cluster-import"),
    path("clusters/<int:pk>/", api.ClusterDetailView.as_view(), name="api-cluster"),
    path("clusters/<int:pk>/import/", api.ClusterReimportView.as_view(),
         name="api-cluster-reimport"),
    path("clusters/<int:pk>/export/", api.ClusterExportView.as_view(),
         name="api-cluster-export"),
    path("clusters/<int:pk>/clone/", api.ClusterCloneView.as_view(), name="api-cluster-clone"),
]

for segment, list_view, detail_view in objects_api.OBJECT_VIEWS:
    urlpatterns += [
        path(f"clusters/<int:cluster_id>/{segment}/", list_view.as_view(),
             name=f"api-cluster-{segment}"),
        path(f"clusters/<int:cluster_id>/{segment}/<int:pk>/", detail_view.as_view(),
             name=f"api-cluster-{segment}-detail"),
    ]
