"""Writes for workshops: create, join, present, reset, close, ask, predict, reveal.

Keyword-only functions that raise playground.services' ServiceError subclasses for input
they refuse (InvalidInput 400, Conflict 409); who may call which is checked by the API
(playground.workshops.permissions), not here. Events for the workshop socket are sent after
the transaction commits (playground.workshops.events).
"""

from __future__ import annotations

import secrets
import unicodedata
import uuid
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone

from playground.clusters.models import Cluster
from playground.clusters.services import cluster_clone
from playground.engine import run_gates
from playground.errors import Conflict, InvalidInput
from playground.runs import services as runs
from playground.runs.models import Run
from playground.runs.services import run_create
from playground.workshops import events
from playground.workshops.answers import correct_answer
from playground.workshops.lessons import lesson_question
from playground.workshops.models import (
    Attendee,
    Prediction,
    Question,
    Sandbox,
    Workshop,
    WorkshopLesson,
)
from playground.workshops.selectors import question_choices, ran_trace

# No 0/O or 1/I: the code is read off a projector.
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
DEFAULT_HOURS = 8
MAX_HOURS = 24 * 14
MAX_LESSONS = 10
# Characters that reorder the text around them (Unicode's bidirectional formatting
# characters: ALM, LRM, RLM, the embeddings and overrides, the isolates).
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                          "\u2066\u2067\u2068\u2069")
NAME_KEY_LENGTH = 240
PROMPTS = {
    Question.FILTER: "Which nodes survive Filter?",
    Question.SCORE: "Which node wins Score?",
    Question.POST_FILTER: "Who gets evicted?",
}


def normalize_code(code) -> str:
    return str(code or "").strip().upper().replace("-", "").replace(" ", "")


def _text(value, field: str) -> str:
    """A text field as stored: PostgreSQL cannot hold NUL characters."""
    text = str(value or "")
    if "\x00" in text:
        raise InvalidInput({field: ["NUL characters are not allowed"]})
    return text


def _new_code() -> str:
    while True:
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        if not Workshop.objects.filter(code=code).exists():
            return code


def workshop_create(*, trainer, title: str, clusters: list[Cluster],
                    hours: int = DEFAULT_HOURS, release: str | None = None,
                    feature_gates: str | dict | None = None) -> Workshop:
    """release and feature_gates: what every run of the workshop follows (checked as a run's
    are: a 400 under `release` or `feature_gates` in kube-scheduler's words)."""
    features = run_gates(release or None, feature_gates)
    title = _text(title, "title").strip()
    if not title:
        raise InvalidInput({"title": ["a workshop needs a title"]})
    if not clusters:
        raise InvalidInput({"lessons": ["pick at least one lesson cluster"]})
    if len(clusters) > MAX_LESSONS:
        raise InvalidInput({"lessons": [f"at most {MAX_LESSONS} lessons"]})
    if not 1 <= int(hours) <= MAX_HOURS:
        raise InvalidInput({"hours": [f"must be between 1 and {MAX_HOURS}"]})
    with transaction.atomic():
        workshop = Workshop.objects.create(
            code=_new_code(), title=title[:200], trainer=trainer,
            expires=timezone.now() + timedelta(hours=int(hours)), release=features.release,
            feature_gates=dict(features.overrides))
        for position, cluster in enumerate(clusters):
            WorkshopLesson.objects.create(workshop=workshop, position=position, cluster=cluster)
        workshop.current_lesson = workshop.lessons.first()
        workshop.save(update_fields=["current_lesson"])
    return workshop


def joinable_workshop(code) -> Workshop:
    """The open workshop with this code, or InvalidInput saying what is wrong with it."""
    code = normalize_code(_text(code, "code"))
    if not code:
        raise InvalidInput({"code": ["enter the workshop's join code"]})
    workshop = Workshop.objects.filter(code=code).first()
    if workshop is None:
        raise InvalidInput({"code": [f"no workshop has the code {code}: check it with "
                                     "your trainer"]})
    if workshop.state == Workshop.CLOSED:
        raise InvalidInput({"code": [f"workshop {code} is closed"]})
    if workshop.expires <= timezone.now():
        raise InvalidInput({"code": [f"workshop {code} expired at "
                                     f"{workshop.expires:%Y-%m-%d %H:%M} UTC"]})
    return workshop


def workshop_join(*, code, display_name, user=None) -> Attendee:
    """A new attendee (with a user of their own), or `user`'s attendance if they joined
    this workshop before in this browser."""
    workshop = joinable_workshop(code)
    if user is not None and getattr(user, "is_authenticated", False):
        previous = Attendee.objects.filter(workshop=workshop, user=user).first()
        if previous is not None:
            return previous
    name = checked_display_name(display_name)
    try:
        with transaction.atomic():
            account = get_user_model().objects.create_user(
                f"ws-{workshop.code.lower()}-{uuid.uuid4().hex[:10]}", first_name=name[:150])
            account.set_unusable_password()
            account.save(update_fields=["password"])
            attendee = Attendee.objects.create(workshop=workshop, user=account,
                                               display_name=name, name_key=name_key(name))
            # No copies yet (sandbox_cluster makes one when first needed): joining stays
            # instant at any cluster size.
            Sandbox.objects.bulk_create(Sandbox(attendee=attendee, lesson=lesson)
                                        for lesson in workshop.lessons.all())
            events.notify(workshop.pk, {"kind": "joined", "attendee": attendee.pk,
                                        "name": name}, audience="trainer")
    except IntegrityError as exc:
        raise InvalidInput({"display_name": [f"someone in this workshop is already called "
                                             f"{name}: pick another name"]}) from exc
    return attendee


def checked_display_name(value) -> str:
    """The name as the room will see it (runs of white space made one space), or
    InvalidInput: empty, too long, or holding a character that turns the text around
    (U+202E makes "A3DUP" out of "PUD3A")."""
    name = " ".join(_text(value, "display_name").split())
    if not name:
        raise InvalidInput({"display_name": ["enter the name the room will see"]})
    if len(name) > 60:
        raise InvalidInput({"display_name": ["at most 60 characters"]})
    bidi = sorted({f"U+{ord(c):04X}" for c in name if c in BIDI_CONTROLS})
    if bidi:
        raise InvalidInput({"display_name": ["bidirectional control characters are not "
                                             f"allowed ({', '.join(bidi)})"]})
    return name


def name_key(name: str) -> str:
    """What two display names are compared by: the same for names a room cannot tell apart
    (case, full-width letters, ligatures and compatibility forms, invisible format
    characters such as zero-width spaces)."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    visible = "".join(c for c in folded if unicodedata.category(c) != "Cf")
    return " ".join(unicodedata.normalize("NFKC", visible).split())[:NAME_KEY_LENGTH]


def sandbox_cluster(sandbox: Sandbox):
    """The attendee's own copy of the lesson cluster, made now if they have none yet. Call
    it in a transaction holding the sandbox's row (select_for_update)."""
    if sandbox.cluster_id is None:
        lesson = sandbox.lesson
        sandbox.cluster = cluster_clone(
            cluster=lesson.cluster, owner=sandbox.attendee.user,
            name=f"{lesson.workshop.code} lesson {lesson.position + 1} {uuid.uuid4().hex[:6]}")
        sandbox.save(update_fields=["cluster"])
    return sandbox.cluster


def sandbox_reset(*, sandbox: Sandbox) -> Sandbox:
    """The sandbox back to the lesson: its copy and the copy's runs deleted (the next detach
    copies the lesson afresh)."""
    with transaction.atomic():
        sandbox = Sandbox.objects.select_for_update().select_related(
            "lesson__workshop").get(pk=sandbox.pk)
        old = sandbox.cluster
        sandbox.cluster = None
        sandbox.run = None
        sandbox.reset_count += 1
        sandbox.save(update_fields=["cluster", "run", "reset_count"])
        if old is not None:
            old.delete()
        events.notify(sandbox.lesson.workshop_id,
                      {"kind": "sandbox_reset", "sandbox": sandbox.pk,
                       "lesson": sandbox.lesson.position},
                      audience=sandbox.attendee_id)
    return sandbox


def workshop_reset_all(*, workshop: Workshop) -> int:
    count = 0
    for sandbox in Sandbox.objects.filter(lesson__workshop=workshop).order_by("id"):
        sandbox_reset(sandbox=sandbox)
        count += 1
    return count


def workshop_close(*, workshop: Workshop) -> Workshop:
    with transaction.atomic():
        workshop.state = Workshop.CLOSED
        workshop.save(update_fields=["state"])
        events.notify(workshop.pk, {"kind": "closed"})
    return workshop


def workshop_present(*, workshop: Workshop, lesson: WorkshopLesson, seed: int = 1) -> Run:
    """Put the lesson on the projector: its presenter run (made once) is what the room
    follows."""
    _check_open(workshop)
    with transaction.atomic():
        lesson = WorkshopLesson.objects.select_for_update().get(pk=lesson.pk)
        if lesson.presenter_run_id is None or not Run.objects.filter(
                pk=lesson.presenter_run_id).exists():
            lesson.presenter_run = run_create(
                cluster=lesson.cluster, seed=seed, owner=workshop.trainer,
                name=f"{workshop.code} lesson {lesson.position + 1}",
                release=workshop.release, feature_gates=workshop.feature_gates)
            lesson.save(update_fields=["presenter_run"])
        workshop.current_lesson = lesson
        workshop.save(update_fields=["current_lesson"])
        events.notify(workshop.pk, {"kind": "presenting", "lesson": lesson.position,
                                    "run": lesson.presenter_run_id})
    return lesson.presenter_run


def sandbox_detach(*, sandbox: Sandbox, cycles: int) -> Run:
    """The attendee's own run of their sandbox, started over and taken to `cycles` cycles
    (where the presenter is), to explore from there."""
    if not isinstance(cycles, int) or isinstance(cycles, bool) or cycles < 0:
        raise InvalidInput({"cycles": ["must be a whole number, 0 or more"]})
    question = sandbox.lesson.workshop.questions.filter(state=Question.ASKED).first()
    if question is not None:
        raise Conflict({"detail": [f"a question on cycle {question.cycle_index} is open: your "
                                   "sandbox waits until the reveal"]})
    with transaction.atomic():
        # Only the sandbox's row is locked: PostgreSQL cannot lock the nullable side of the
        # outer join to a copy not made yet.
        sandbox = Sandbox.objects.select_for_update(of=("self",)).select_related(
            "attendee__user", "cluster", "lesson__workshop", "lesson__cluster").get(pk=sandbox.pk)
        workshop = sandbox.lesson.workshop
        run = run_create(cluster=sandbox_cluster(sandbox), seed=_presenter_seed(sandbox),
                         owner=sandbox.attendee.user, name="my run",
                         release=workshop.release, feature_gates=workshop.feature_gates)
        sandbox.run = run
        sandbox.save(update_fields=["run"])
    if cycles:
        runs.run_step(run=run, user=sandbox.attendee.user, cycles=cycles)
    return run


def _presenter_seed(sandbox: Sandbox) -> int:
    presenter = sandbox.lesson.presenter_run
    return presenter.seed if presenter is not None else 1


def _check_open(workshop: Workshop) -> None:
    if workshop.state != Workshop.OPEN:
        raise Conflict({"detail": [f"workshop {workshop.code} is closed"]})


def question_ask(*, workshop: Workshop, point: str, prompt: str = "",
                 cycle_index: int | None = None) -> Question:
    """A question on a cycle of the presenter's run: the next one by default (the trainer
    asks, then steps). One question is open at a time."""
    _check_open(workshop)
    if point not in PROMPTS:
        raise InvalidInput({"point": [f"must be one of {', '.join(PROMPTS)}"]})
    lesson = workshop.current_lesson
    run = lesson.presenter_run if lesson is not None else None
    if run is None:
        raise Conflict({"detail": ["present a lesson first: questions are about its run"]})
    if cycle_index is None:
        cycle_index = run.cycle_count
    if not isinstance(cycle_index, int) or isinstance(cycle_index, bool) or not (
            0 <= cycle_index <= run.cycle_count):
        raise InvalidInput({"cycle_index": [f"must be between 0 and {run.cycle_count} "
                                            "(the next cycle)"]})
    with transaction.atomic():
        if workshop.questions.select_for_update().filter(state=Question.ASKED).exists():
            raise Conflict({"detail": ["reveal the open question before asking another"]})
        question = Question.objects.create(
            workshop=workshop, run=run, cycle_index=cycle_index, point=point,
            prompt=(_text(prompt, "prompt").strip()[:300]
                    or lesson_question(lesson.cluster, point) or PROMPTS[point]),
            choices=question_choices(run, point))
        events.notify(workshop.pk, {"kind": "asked", "question": question_data(question)})
    return question


def prediction_submit(*, question: Question, attendee: Attendee, answer) -> Prediction:
    if question.state != Question.ASKED:
        raise Conflict({"detail": ["this question has been revealed: predictions are closed"]})
    answer = checked_answer(answer, question.choices, question.point)
    with transaction.atomic():
        prediction, _ = Prediction.objects.update_or_create(
            question=question, attendee=attendee, defaults={"answer": answer})
        events.notify(question.workshop_id, {"kind": "tally", "question": question.pk,
                                             **tally(question)}, audience="trainer")
    return prediction


def checked_answer(answer, choices: list[str], point: str) -> list[str]:
    """A prediction's answer as stored (sorted, each name once), or InvalidInput."""
    if isinstance(answer, str):
        answer = [answer]
    if not isinstance(answer, list) or not all(isinstance(a, str) for a in answer):
        raise InvalidInput({"answer": ["must be a list of names"]})
    unknown = sorted(set(answer) - set(choices))
    if unknown:
        raise InvalidInput({"answer": [f"not a choice of this question: {', '.join(unknown)}"]})
    if point == Question.SCORE and len(answer) != 1:
        raise InvalidInput({"answer": ["pick exactly one node"]})
    return sorted(set(answer))


def tally(question: Question) -> dict:
    """How many predicted, and how many picked each answer (as "a, b" strings)."""
    counts: dict[str, int] = {}
    total = 0
    for answer in question.predictions.values_list("answer", flat=True):
        key = ", ".join(answer) or "(none)"
        counts[key] = counts.get(key, 0) + 1
        total += 1
    return {"count": total, "answers": dict(sorted(counts.items(), key=lambda kv: -kv[1])[:20])}


def question_reveal(*, question: Question) -> Question:
    """The answer from the run's trace; every prediction marked right or wrong."""
    with transaction.atomic():
        question = Question.objects.select_for_update().get(pk=question.pk)
        if question.state == Question.REVEALED:
            return question
        trace = ran_trace(question.run_id, question.cycle_index)
        question.answer = correct_answer(question.point, trace)
        question.state = Question.REVEALED
        question.revealed = timezone.now()
        question.save(update_fields=["answer", "state", "revealed"])
        right = sorted(question.answer["answer"])
        for prediction in question.predictions.all():
            prediction.correct = sorted(prediction.answer) == right
            prediction.save(update_fields=["correct"])
        events.notify(question.workshop_id, {"kind": "revealed",
                                             "question": question_data(question)})
    return question


def question_data(question: Question) -> dict:
    """A question as the socket and the API show it (the answer only once revealed)."""
    out = {"id": question.pk, "cycle_index": question.cycle_index, "point": question.point,
           "prompt": question.prompt, "choices": question.choices, "state": question.state,
           "run": question.run_id}
    if question.state == Question.REVEALED:
        out["answer"] = question.answer
    return out
