"""Reads for workshops: who is what in which workshop, and what they may see.

A workshop is visible to its trainer and its attendees only; to anyone else it does not exist
(404). Inside it, the trainer sees every sandbox (read-only), an attendee only their own.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from django.db.models import QuerySet

from playground.workshops.models import Attendee, Prediction, Question, Sandbox, Workshop


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
