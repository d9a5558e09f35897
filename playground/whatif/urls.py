"""URLs under /api/ for the what-if answers (included by playground.urls)."""

from django.urls import path

from playground.whatif import api

urlpatterns = [
    path("runs/<int:pk>/global-placement/", api.RunGlobalPlacementView.as_view(),
         name="api-run-global-placement"),
    path("clusters/<int:cluster_id>/plans/", api.ClusterPlansView.as_view(),
         name="api-cluster-plans"),
    path("plans/<int:pk>/", api.PlanDetailView.as_view(), name="api-plan"),
    path("clusters/<int:cluster_id>/sweeps/", api.ClusterSweepsView.as_view(),
         name="api-cluster-sweeps"),
    path("sweeps/<int:pk>/", api.SweepDetailView.as_view(), name="api-sweep"),
    path("sweeps/<int:pk>/cancel/", api.SweepCancelView.as_view(), name="api-sweep-cancel"),
]
