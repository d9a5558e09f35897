"""URLs under /api/workshops/ (included by playground.urls)."""

from django.urls import path

from playground.workshops import api

CODE = "<str:code>"

urlpatterns = [
    path("", api.WorkshopListView.as_view(), name="api-workshops"),
    path("join/", api.JoinView.as_view(), name="api-workshop-join"),
    path(f"{CODE}/", api.WorkshopDetailView.as_view(), name="api-workshop"),
    path(f"{CODE}/attendees/", api.AttendeeListView.as_view(), name="api-workshop-attendees"),
    path(f"{CODE}/sandboxes/", api.SandboxListView.as_view(), name="api-workshop-sandboxes"),
    path(f"{CODE}/sandboxes/<int:pk>/", api.SandboxDetailView.as_view(),
         name="api-workshop-sandbox"),
    path(f"{CODE}/sandboxes/<int:pk>/reset/", api.SandboxResetView.as_view(),
         name="api-workshop-sandbox-reset"),
    path(f"{CODE}/sandboxes/<int:pk>/detach/", api.SandboxDetachView.as_view(),
         name="api-workshop-sandbox-detach"),
    path(f"{CODE}/reset/", api.ResetAllView.as_view(), name="api-workshop-reset"),
    path(f"{CODE}/close/", api.CloseView.as_view(), name="api-workshop-close"),
    path(f"{CODE}/present/", api.PresentView.as_view(), name="api-workshop-present"),
    path(f"{CODE}/lesson/", api.LessonView.as_view(), name="api-workshop-lesson"),
    path(f"{CODE}/questions/", api.QuestionListView.as_view(), name="api-workshop-questions"),
    path(f"{CODE}/questions/<int:pk>/", api.QuestionDetailView.as_view(),
         name="api-workshop-question"),
    path(f"{CODE}/questions/<int:pk>/predictions/", api.PredictionView.as_view(),
         name="api-workshop-predict"),
    path(f"{CODE}/questions/<int:pk>/reveal/", api.RevealView.as_view(),
         name="api-workshop-reveal"),
    path(f"{CODE}/predictions.csv", api.PredictionsCsvView.as_view(),
         name="api-workshop-predictions-csv"),
]
