"""URLs under /api/practice/ (included by playground.api.urls)."""

from django.urls import path

from playground.workshops import practice_api

urlpatterns = [
    path("runs/<int:pk>/", practice_api.PracticeRunView.as_view(), name="api-practice-run"),
    path("runs/<int:pk>/predictions/", practice_api.PracticePredictView.as_view(),
         name="api-practice-predict"),
    path("predictions/<int:pk>/check/", practice_api.PracticeCheckView.as_view(),
         name="api-practice-check"),
    path("scores/", practice_api.PracticeScoresView.as_view(), name="api-practice-scores"),
]
