"""URLs under /api/ for the run page's reads (included by playground.urls)."""

from django.urls import path

from playground.runs import api

urlpatterns = [
    path("runs/compare/", api.RunCompareView.as_view(), name="api-runs-compare"),
    path("runs/<int:pk>/view/", api.RunViewView.as_view(), name="api-run-view"),
    path("runs/<int:pk>/objects/", api.RunObjectsView.as_view(), name="api-run-objects"),
    path("runs/<int:pk>/history/", api.RunHistoryView.as_view(), name="api-run-history"),
]
