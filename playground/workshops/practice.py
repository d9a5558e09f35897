"""Prediction mode for a learner alone (no trainer, no workshop): before the next cycle of
their own run they predict, at Filter which nodes survive, at Score the winner, at PostFilter
the victims; once the cycle has run the prediction is checked against its trace, with the
plugin that decided and why (playground.workshops.answers, as a workshop's reveal), and
counted in their score for the lesson (the run's cluster).

Writes here, reads in playground.workshops.selectors (practice_*); who may predict on which
run (the run's writers) is the API's rule (playground.workshops.practice_api).
"""

from __future__ import annotations

from django.db import transaction

from playground.errors import Conflict
from playground.runs.models import Run
from playground.workshops.answers import correct_answer
from playground.workshops.models import PracticePrediction
from playground.workshops.selectors import question_choices, ran_trace
from playground.workshops.services import checked_answer


def practice_predict(*, user, run: Run, point: str, answer) -> PracticePrediction:
    """The learner's prediction on the run's next cycle (replacing one not checked yet)."""
    if run.status == Run.FINISHED:
        raise Conflict({"detail": ["the run has finished: there is no next cycle to predict"]})
    answer = checked_answer(answer, question_choices(run, point), point)
    with transaction.atomic():
        PracticePrediction.objects.filter(user=user, run=run, cycle_index=run.cycle_count,
                                          correct__isnull=True).delete()
        return PracticePrediction.objects.create(
            user=user, run=run, lesson=run.cluster.name[:200], cycle_index=run.cycle_count,
            point=point, answer=answer)


def practice_check(*, prediction: PracticePrediction) -> PracticePrediction:
    """Right or wrong, from the trace of the cycle predicted (Conflict until it has run)."""
    if prediction.correct is not None:
        return prediction
    if prediction.run_id is None:
        raise Conflict({"detail": ["the run of this prediction was deleted"]})
    trace = ran_trace(prediction.run_id, prediction.cycle_index)
    prediction.right_answer = correct_answer(prediction.point, trace)
    prediction.correct = sorted(prediction.answer) == sorted(prediction.right_answer["answer"])
    prediction.save(update_fields=["right_answer", "correct"])
    return prediction
