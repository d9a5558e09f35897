"""URLs under /api/ for runs, their cycles and the run page's reads (included by
playground.urls)."""

from django.urls import path

from playground.runs import api

urlpatterns = [
    path("runs/", api.RunListView.as_view(), name="api-runs"),
    path("runs/compare/", api.RunCompareView.as_view(), name="api-runs-compare"),
    path("runs/<int:pk>/", api.RunDetailView.as_view(), name="api-run"),
    path("runs/<int:pk>/cycles/", api.RunCyclesView.as_view(), name="api-run-cycles"),
    path("runs/<int:pk>/cycles/<int:index>/", api.RunCycleDetailView.as_view(),
         name="api-run-cycle"),
    path("runs/<int:pk>/state/", api.RunStateView.as_view(), name="api-run-state"),
    path("runs/<int:pk>/export/", api.RunExportView.as_view(), name="api-run-export"),
    path("runs/<int:pk>/view/", api.RunViewView.as_view(), name="api-run-view"),
    path("runs/<int:pk>/objects/", api.RunObjectsView.as_view(), name="api-run-objects"),
    path("runs/<int:pk>/history/", api.RunHistoryView.as_view(), name="api-run-history"),
]

for action, view in api.RUN_ACTION_VIEWS.items():
    urlpatterns.append(path(f"runs/<int:pk>/{action}/", view.as_view(), name=f"api-run-{action}"))
