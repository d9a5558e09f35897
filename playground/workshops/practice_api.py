"""REST endpoints of prediction mode, under /api/practice/ (playground.workshops.practice).

A learner predicts on runs they may drive (the run's owner or its cluster's owner): anyone
else gets the run API's answers (404 for a run they cannot see, 403 for one they only
watch). Predictions and scores are the learner's own: another user's prediction is 404.
"""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from playground.api.base import PlaygroundMixin
from playground.workshops import practice, selectors
from playground.workshops.api import OBJECTS, READ, WRITE, errors
from playground.workshops.models import PracticePrediction


def prediction_data(prediction: PracticePrediction) -> dict:
    out = {"id": prediction.pk, "run": prediction.run_id, "lesson": prediction.lesson,
           "cycle_index": prediction.cycle_index, "point": prediction.point,
           "answer": prediction.answer, "correct": prediction.correct}
    if prediction.correct is not None:
        out["right_answer"] = prediction.right_answer
    return out


class PracticePredictSerializer(serializers.Serializer):
    point = serializers.ChoiceField(choices=list(selectors.POINTS))
    answer = serializers.ListField(child=serializers.CharField(max_length=600), max_length=500)


def run_practice(run, user) -> dict:
    """The run's next cycle, the learner's predictions on it and their score for its lesson."""
    mine = PracticePrediction.objects.filter(user=user, run=run).order_by("-id")[:50]
    lesson = run.cluster.name
    score = next((s for s in selectors.practice_scores(user) if s["lesson"] == lesson),
                 {"lesson": lesson, "checked": 0, "right": 0})
    return {**selectors.practice_next_cycle(run), "run": run.pk, "score": score,
            "predictions": [prediction_data(p) for p in mine]}


class PracticeRunView(PlaygroundMixin, APIView):
    @extend_schema(summary="Prediction mode on a run: its next cycle, your predictions, your "
                           "score for its lesson",
                   responses={200: OpenApiTypes.OBJECT, **errors(*READ)})
    def get(self, request, pk):
        return Response(run_practice(self.writable_run(pk), request.user))


class PracticePredictView(PlaygroundMixin, APIView):
    @extend_schema(summary="Predict the run's next cycle at Filter, Score or PostFilter",
                   request=PracticePredictSerializer,
                   responses={201: OpenApiTypes.OBJECT, **errors(*WRITE)})
    def post(self, request, pk):
        run = self.writable_run(pk)
        data = self.validated(PracticePredictSerializer)
        prediction = practice.practice_predict(user=request.user, run=run, point=data["point"],
                                               answer=data["answer"])
        return Response(prediction_data(prediction), status=status.HTTP_201_CREATED)


class PracticeCheckView(PlaygroundMixin, APIView):
    @extend_schema(summary="Right or wrong, once the predicted cycle has run: the answer, the "
                           "plugin that decided and why", request=None,
                   responses={200: OpenApiTypes.OBJECT, **errors(*WRITE)})
    def post(self, request, pk):
        prediction = get_object_or_404(PracticePrediction, pk=pk, user=request.user)
        prediction = practice.practice_check(prediction=prediction)
        return Response(prediction_data(prediction))


class PracticeScoresView(PlaygroundMixin, APIView):
    @extend_schema(summary="Your prediction score per lesson",
                   operation_id="practice_scores_list",
                   responses={200: OBJECTS, **errors(401, 403)})
    def get(self, request):
        return Response(selectors.practice_scores(request.user))
