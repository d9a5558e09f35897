"""Workshops, their lessons, attendees, sandboxes, questions and predictions.

Clusters and runs are referred to by label ("playground.Cluster") so that this module does
not import the playground app's models (clusters/models.py, runs/models.py): the workshop
app sits on top of the data layer.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from scheduler_core.features import DEFAULT_RELEASE, RELEASES, flag_text


class Workshop(models.Model):
    OPEN, CLOSED = "open", "closed"
    STATE_CHOICES = [(OPEN, OPEN), (CLOSED, CLOSED)]

    code = models.CharField(max_length=12, unique=True)
    title = models.CharField(max_length=200)
    trainer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                related_name="workshops_led")
    state = models.CharField(max_length=8, choices=STATE_CHOICES, default=OPEN)
    expires = models.DateTimeField()
    # The lesson on the projector; attendees follow its presenter run.
    current_lesson = models.ForeignKey("WorkshopLesson", null=True, blank=True,
                                       on_delete=models.SET_NULL, related_name="+")
    # What every run of the workshop follows (the presenter's and each attendee's sandbox
    # runs): a kube-scheduler release and the feature gates set on top of its defaults,
    # {name: bool} as the trainer gave them (playground.engine.run_gates checks them).
    release = models.CharField(max_length=8, default=DEFAULT_RELEASE,
                               choices=[(r, r) for r in RELEASES])
    feature_gates = models.JSONField(default=dict, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self):
        return f"workshop {self.code} ({self.title})"

    @property
    def gates_flag(self) -> str:
        """The gates set, as --feature-gates writes them ("A=true,B=false")."""
        return flag_text((self.feature_gates or {}).items())

    def joinable(self) -> bool:
        return self.state == self.OPEN and self.expires > timezone.now()


class WorkshopLesson(models.Model):
    """One lesson: the trainer's cluster every attendee gets a copy of."""

    workshop = models.ForeignKey(Workshop, on_delete=models.CASCADE, related_name="lessons")
    position = models.PositiveIntegerField()
    cluster = models.ForeignKey("playground.Cluster", on_delete=models.CASCADE,
                                related_name="+")
    # The trainer's run of this lesson (created when it is first presented).
    presenter_run = models.ForeignKey("playground.Run", null=True, blank=True,
                                      on_delete=models.SET_NULL, related_name="+")

    class Meta:
        ordering = ["workshop", "position"]
        constraints = [models.UniqueConstraint(fields=["workshop", "position"],
                                               name="lesson_unique_position")]

    def __str__(self):
        return f"lesson {self.position} of {self.workshop}"


class Attendee(models.Model):
    workshop = models.ForeignKey(Workshop, on_delete=models.CASCADE, related_name="attendees")
    # A user made for this workshop alone: the session signs it in, it has no password.
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                related_name="attendance")
    display_name = models.CharField(max_length=60)
    # The name as names are compared (services.name_key): "Ana" and "ＡＮＡ" are one name.
    name_key = models.CharField(max_length=240)
    joined = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["workshop", "name_key"],
                                               name="attendee_unique_name_key")]

    def __str__(self):
        return f"{self.display_name} in {self.workshop.code}"


class Sandbox(models.Model):
    """An attendee's private copy of a lesson cluster, and their own run of it.

    The copy is made when the attendee first needs one (their first detach): a room of 40
    joining a 500-node lesson would otherwise wait for 40 copies. Until then, and again after
    a reset, `cluster` is None and the sandbox reads as the lesson itself."""

    attendee = models.ForeignKey(Attendee, on_delete=models.CASCADE, related_name="sandboxes")
    lesson = models.ForeignKey(WorkshopLesson, on_delete=models.CASCADE,
                               related_name="sandboxes")
    cluster = models.OneToOneField("playground.Cluster", null=True, blank=True,
                                   on_delete=models.CASCADE, related_name="sandbox")
    run = models.ForeignKey("playground.Run", null=True, blank=True, on_delete=models.SET_NULL,
                            related_name="+")
    reset_count = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["attendee", "lesson__position"]
        constraints = [models.UniqueConstraint(fields=["attendee", "lesson"],
                                               name="sandbox_unique_attendee_lesson")]

    def __str__(self):
        return f"sandbox of {self.attendee} for {self.lesson}"

    @property
    def shown_cluster(self):
        """What the sandbox holds: the attendee's copy, or the lesson while there is none."""
        return self.cluster if self.cluster_id is not None else self.lesson.cluster


class Question(models.Model):
    FILTER, SCORE, POST_FILTER = "Filter", "Score", "PostFilter"
    POINT_CHOICES = [(p, p) for p in (FILTER, SCORE, POST_FILTER)]
    ASKED, REVEALED = "asked", "revealed"
    STATE_CHOICES = [(ASKED, ASKED), (REVEALED, REVEALED)]

    workshop = models.ForeignKey(Workshop, on_delete=models.CASCADE, related_name="questions")
    run = models.ForeignKey("playground.Run", on_delete=models.CASCADE, related_name="+")
    cycle_index = models.IntegerField()
    point = models.CharField(max_length=16, choices=POINT_CHOICES)
    prompt = models.CharField(max_length=300)
    # What an attendee may pick from: node names, or pod keys for PostFilter.
    choices = models.JSONField(default=list)
    state = models.CharField(max_length=10, choices=STATE_CHOICES, default=ASKED)
    # Computed from the run's trace at the reveal: {"answer": [...], "plugin", "reason"}.
    answer = models.JSONField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    revealed = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]

    def __str__(self):
        return f"{self.point} question on cycle {self.cycle_index} of {self.workshop}"


class Prediction(models.Model):
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="predictions")
    attendee = models.ForeignKey(Attendee, on_delete=models.CASCADE, related_name="predictions")
    answer = models.JSONField()        # a sorted list of node names or pod keys
    correct = models.BooleanField(null=True, blank=True)   # set at the reveal
    submitted = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["question", "attendee"]
        constraints = [models.UniqueConstraint(fields=["question", "attendee"],
                                               name="prediction_unique_attendee")]


class PracticePrediction(models.Model):
    """A learner's prediction on the next cycle of their own run, alone (the run view's
    prediction mode): no trainer, checked against the run's trace once the cycle has run. Kept
    with the lesson's name when the run is deleted: the learner's score per lesson stays."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="practice_predictions")
    run = models.ForeignKey("playground.Run", null=True, blank=True, on_delete=models.SET_NULL,
                            related_name="+")
    lesson = models.CharField(max_length=200)   # the run's cluster name when predicted
    cycle_index = models.IntegerField()
    point = models.CharField(max_length=16, choices=Question.POINT_CHOICES)
    answer = models.JSONField()                 # a sorted list of node names or pod keys
    # Set at the check, from the run's trace: {"answer", "plugin", "reason"}.
    right_answer = models.JSONField(null=True, blank=True)
    correct = models.BooleanField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["user", "lesson"], name="practice_user_lesson")]

    def __str__(self):
        return f"{self.user} at {self.point} of cycle {self.cycle_index} ({self.lesson})"
