"""URLs under /api/ for timelines (included by playground.urls)."""

from django.urls import path

from playground.timelines import api

urlpatterns = [
    path("clusters/<int:cluster_id>/timelines/", api.ClusterTimelinesView.as_view(),
         name="api-cluster-timelines"),
    path("clusters/<int:cluster_id>/timelines/<int:pk>/",
         api.TimelineDetailView.as_view(), name="api-cluster-timeline"),
    path("runs/<int:pk>/timeline/", api.RunTimelineView.as_view(),
         name="api-run-timeline"),
    path("runs/<int:pk>/actions/", api.RunActionsView.as_view(),
         name="api-run-actions"),
]
