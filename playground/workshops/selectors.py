"""Reads for workshops: who is what in which workshop, and what they may see.

A workshop is visible to its trainer and its attendees only; to anyone else it does not exist
(404). Inside it, the trainer sees every sandbox (read-only), an attendee only their own.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from django.db.models import Count, Exists, Q, QuerySet

from playground.errors import Conflict
from playground.runs.models import CycleRecord, Run, stored_trace
from playground.workshops.models import (
    Attendee,
    PracticePrediction,
    Prediction,
    Question,
    Sandbox,
    Workshop,
    WorkshopLesson,
)

MAX_CHOICES = 200
POINTS = (Question.FILTER, Question.SCORE, Question.POST_FILTER)


@dataclass(frozen=True)
class Membership:
    workshop: Workshop
    attendee: Attendee | None   # None for the trainer

    @property
    def is_trainer(self) -> bool:
        return self.attendee is None


def membership(user, code: str) -> Membership | None:
    """The user's place in the workshop with this code, or None if they have none."""
    if not getattr(user, "is_authenticated", False) or "\x00" in str(code):
        return None
    workshop = (Workshop.objects.select_related("current_lesson")
                .filter(code=str(code).upper()).first())
    if workshop is None:
        return None
    if workshop.trainer_id == user.pk:
        return Membership(workshop, None)
    attendee = Attendee.objects.filter(workshop=workshop, user=user).first()
    return Membership(workshop, attendee) if attendee is not None else None


def is_member(user, workshop_id: int) -> bool:
    if not getattr(user, "is_authenticated", False):
        return False
    return (Workshop.objects.filter(pk=workshop_id, trainer=user).exists()
            or Attendee.objects.filter(workshop_id=workshop_id, user=user).exists())


def member_user_ids(workshop_id: int) -> set[int]:
    """The users who may be on the workshop's sockets: its trainer and attendees (none once it
    is deleted), in one query."""
    trainer = Workshop.objects.filter(pk=workshop_id).order_by().values_list("trainer_id")
    attendees = Attendee.objects.filter(workshop_id=workshop_id).order_by().values_list("user_id")
    return {pk for (pk,) in trainer.union(attendees)}


def workshops_of(user) -> QuerySet[Workshop]:
    """The workshops a user leads or attends."""
    if not getattr(user, "is_authenticated", False):
        return Workshop.objects.none()
    led = Workshop.objects.filter(trainer=user)
    attended = Workshop.objects.filter(attendees__user=user)
    return (led | attended).distinct().order_by("-id")


def sandboxes_visible(member: Membership) -> QuerySet[Sandbox]:
    sandboxes = (Sandbox.objects.filter(lesson__workshop=member.workshop)
                 .select_related("attendee", "lesson__cluster", "lesson__workshop", "cluster",
                                 "run"))
    if not member.is_trainer:
        sandboxes = sandboxes.filter(attendee=member.attendee)
    return sandboxes.order_by("attendee_id", "lesson__position")


def open_question(workshop: Workshop) -> Question | None:
    return workshop.questions.filter(state=Question.ASKED).first()


def predictions_csv(workshop: Workshop) -> str:
    """One row per prediction: question, point, cycle, attendee, answer, the right answer."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["question", "point", "cycle", "prompt", "attendee", "answer", "correct",
                     "right_answer", "submitted"])
    rows = (Prediction.objects.filter(question__workshop=workshop)
            .select_related("question", "attendee").order_by("question_id", "attendee_id"))
    for p in rows:
        q = p.question
        right = " ".join((q.answer or {}).get("answer") or []) if q.answer else ""
        correct = "" if p.correct is None else ("yes" if p.correct else "no")
        writer.writerow([q.pk, q.point, q.cycle_index, csv_cell(q.prompt),
                         csv_cell(p.attendee.display_name), csv_cell(" ".join(p.answer)),
                         correct, csv_cell(right), p.submitted.isoformat()])
    return out.getvalue()


# What makes a spreadsheet read a cell as a formula (OWASP's CSV injection list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(text: str) -> str:
    """Text a spreadsheet shows as text: a leading quote before what would start a formula
    (a display name "=HYPERLINK(...)" stays a name, not a link)."""
    return f"'{text}" if text.startswith(FORMULA_STARTS) else text


def question_choices(run: Run, point: str) -> list[str]:
    """What attendees pick from: the run's nodes, or at PostFilter the pods already on one."""
    docs = run.documents
    if point != Question.POST_FILTER:
        names = [d["metadata"]["name"] for d in docs if d.get("kind") == "Node"]
    else:
        bound = {pod for pod, node in (run.results().get("bindings") or {}).items() if node}
        bound |= {f"{d['metadata'].get('namespace') or 'default'}/{d['metadata']['name']}"
                  for d in docs if d.get("kind") == "Pod" and (d.get("spec") or {}).get(
                      "nodeName")}
        names = sorted(bound)
    return names[:MAX_CHOICES]


def ran_trace(run_id: int, index: int) -> dict:
    """The trace of cycle `index` of a run, or Conflict if that cycle has not run yet."""
    row = (CycleRecord.objects.filter(run_id=run_id, index=index)
           .values_list("legacy_trace", "packed").first())
    trace = stored_trace(*row) if row else None
    if trace is None or trace.get("outcome") is None:
        raise Conflict({"detail": [f"cycle {index} has not run yet: step the run first"]})
    return trace


def practice_next_cycle(run: Run) -> dict:
    """What a learner predicts about: the run's next cycle and the choices at each point."""
    return {"cycle_index": run.cycle_count, "finished": run.status == Run.FINISHED,
            "choices": {point: question_choices(run, point) for point in POINTS}}


def practice_scores(user) -> list[dict]:
    """Per lesson the learner predicted on: how many checked predictions, how many right."""
    rows = (PracticePrediction.objects.filter(user=user, correct__isnull=False)
            .values("lesson").annotate(checked=Count("id"), right=Count("id", filter=Q(
                correct=True))).order_by("lesson"))
    return [{"lesson": r["lesson"], "checked": r["checked"], "right": r["right"]}
            for r in rows]


# --- what the room may not see (playground.withholding) ---------------------------------


def _asked_to(user) -> QuerySet[Question]:
    """The open questions of the workshops `user` attends."""
    return Question.objects.filter(state=Question.ASKED, workshop__attendees__user=user)


def question_open_for(user) -> bool:
    """Whether `user` attends a workshop with a question open."""
    return _asked_to(user).exists()


def withheld_runs(user) -> Q:
    """A presenter's run is its trainer's alone: the room follows it through the workshop
    socket, the asked cycle concealed. While a question is open, an attendee's own runs (their
    sandbox, and any run they started) are withheld too: one past the asked cycle would show
    its outcome, and a step would make one. (The open question is a subquery: every access
    check of a run, a step's included, stays one query.)"""
    presenter_runs = WorkshopLesson.objects.filter(presenter_run__isnull=False).values(
        "presenter_run")
    return (Q(pk__in=presenter_runs) & ~Q(owner=user)) | (Q(owner=user)
                                                          & Exists(_asked_to(user)))


def withheld_clusters(user) -> Q:
    """While a question is open, an attendee sees no cluster: a run or a compare of the
    lesson's cluster (or a copy of it) would give the outcome away."""
    return Q(Exists(_asked_to(user)))
