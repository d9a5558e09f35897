"""Runs of the engine over a cluster's snapshot: the run, its documents, the results its
running chunks changed, and its cycles with their traces."""

from __future__ import annotations

import json

from django.conf import settings
from django.db import models, transaction

from playground.clusters.models import Cluster, json_text, stored_size
from scheduler_core.features import (
    DEFAULT_RELEASE,
    RELEASES,
    FeatureGates,
    feature_gates,
    flag_text,
)
from scheduler_core.tracepack import unpack


class OrderedJSONField(models.TextField):
    """JSON stored as text, so that key order survives: PostgreSQL's jsonb sorts object keys,
    and a cycle's `filter` and `score` maps list nodes in the order they were evaluated."""

    description = "JSON kept as text (key order preserved)"

    def from_db_value(self, value, expression, connection):
        return None if value is None else json.loads(value)

    def to_python(self, value):
        return json.loads(value) if isinstance(value, str) else value

    def get_prep_value(self, value):
        return None if value is None else json.dumps(value, separators=(",", ":"))

    def value_to_string(self, obj):
        return self.get_prep_value(self.value_from_object(obj))


class Run(models.Model):
    CREATED, RUNNING, PAUSED = "created", "running", "paused"
    FINISHED, FAILED = "finished", "failed"
    STATUS_CHOICES = [(s, s) for s in (CREATED, RUNNING, PAUSED, FINISHED, FAILED)]

    cluster = models.ForeignKey(Cluster, on_delete=models.CASCADE, related_name="runs")
    # Who started it: the cluster owner, or any user for a shared cluster.
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="runs"
    )
    name = models.CharField(max_length=200, blank=True, default="")
    config = models.JSONField()      # the KubeSchedulerConfiguration at creation
    # The cluster's manifests at creation, in export order: `documents`, a RunDocuments row.
    seed = models.BigIntegerField(default=0)
    # The kube-scheduler release the run follows (scheduler_core.features.RELEASES).
    release = models.CharField(max_length=8, default=DEFAULT_RELEASE,
                               choices=[(r, r) for r in RELEASES])
    # The feature gates set on top of the release's defaults, {name: bool} in the order given
    # (kube-scheduler's --feature-gates; playground.engine.run_gates checks them).
    feature_gates = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=16, choices=STATUS_CHOICES, default=CREATED)
    virtual_time = models.FloatField(default=0.0)
    cycle_count = models.IntegerField(default=0)
    pods_bound = models.IntegerField(default=0)
    error = models.TextField(blank=True, default="")
    # What the run did to pods beyond its cycles (bindings, nominations, victims, recent cycle
    # summaries), kept by the run executor (playground.run_executor); while the run runs, the
    # bindings and victims of its latest chunks are in its RunChunk rows.
    result = models.JSONField(default=dict, blank=True)
    # The run executor's lock (playground.runs): the ticket of the task that may work on the
    # run, and until when it holds it unless it renews the lease; empty when nobody works.
    lock_token = models.CharField(max_length=80, blank=True, default="")
    lock_expires = models.DateTimeField(null=True, blank=True)
    # Set by a pause request, read by the working task between two chunks.
    pause_requested = models.BooleanField(default=False)
    # The cycle count the current task stops at (None: the end), for a task that takes over
    # from a worker that died.
    target_cycle = models.IntegerField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-id"]

    _documents: list | None = None  # read on first use, or set to be saved with the run
    _documents_changed = False

    def __str__(self):
        return f"run {self.pk} of {self.cluster}"

    @property
    def gates_flag(self) -> str:
        """The gates set, as --feature-gates writes them ("A=true,B=false")."""
        return flag_text((self.feature_gates or {}).items())

    @property
    def features(self) -> FeatureGates:
        """The release and gates the run follows, as the engine takes them."""
        return feature_gates(self.release, self.feature_gates or None)

    @property
    def documents(self) -> list:
        if self._documents is None:
            self._documents = RunDocuments.objects.values_list(
                "documents", flat=True).get(run_id=self.pk)
        return self._documents

    @documents.setter
    def documents(self, value: list) -> None:
        self._documents, self._documents_changed = value, True

    @property
    def documents_loaded(self) -> bool:
        return self._documents is not None

    def save(self, *args, **kwargs):
        if not self._documents_changed:
            super().save(*args, **kwargs)
            return
        with transaction.atomic():
            super().save(*args, **kwargs)
            RunDocuments.objects.update_or_create(run_id=self.pk,
                                                  defaults={"documents": self._documents})
        self._documents_changed = False

    def refresh_from_db(self, *args, **kwargs):
        super().refresh_from_db(*args, **kwargs)
        if not self._documents_changed:
            self._documents = None  # a run action may have changed them: read again

    def results(self) -> dict:
        """`result` with what the chunks committed since the run last stopped (RunChunk)."""
        result = dict(self.result or {})
        chunks = list(self.chunks.values_list("bindings", "removed", "victims"))
        if chunks:
            bindings = dict(result.get("bindings") or {})
            victims = list(result.get("victims") or [])
            for changed, removed, new_victims in chunks:
                bindings.update(changed)
                for pod in removed:
                    bindings.pop(pod, None)
                victims += new_victims
            result.update(bindings=bindings, victims=victims)
        return result

    def sources(self) -> list[tuple[str, list]]:
        """The run's documents as scheduler_core.loader.load_documents / RunSession take them."""
        return [(f"run {self.pk}", self.documents)]


class RunDocuments(models.Model):
    """A run's documents, in a row of their own: the run row is written on every step (its
    lease, counters and results), and SQLite writes a row whole, so with them inside each
    step rewrote the cluster's manifests (megabytes at 5,000 nodes) two or three times."""

    run = models.OneToOneField(Run, on_delete=models.CASCADE, primary_key=True,
                               related_name="stored_documents")
    documents = models.JSONField()
    size = stored_size(json_text("documents"))

    def __str__(self):
        return f"documents of run {self.run_id}"


class RunChunk(models.Model):
    """What one chunk of a running run changed in its results: the bindings that changed
    (pod -> node, None while pending), the pods that left them, the victims it preempted.
    Appended with the chunk's cycles; folded into Run.result (and deleted) once the run
    stops, so that a long run does not rewrite every binding on every chunk."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="chunks")
    start = models.IntegerField()                   # the run's cycle count before the chunk
    bindings = models.JSONField(default=dict)
    removed = models.JSONField(default=list)
    victims = models.JSONField(default=list)

    class Meta:
        ordering = ["run", "start", "id"]


def stored_trace(legacy: dict | None, packed: bytes | None) -> dict | None:
    """A CycleRecord's trace from its two columns (a row has one of them): the contract's
    CYCLE object."""
    if legacy is not None or packed is None:
        return legacy
    return unpack(packed).data


def stored_trace_text(legacy: dict | None, packed: bytes | None, indent: int) -> str:
    """The trace as json.dumps(..., indent=2) prints it, `indent` spaces deep in a document."""
    if packed is not None and legacy is None:
        return unpack(packed).pretty(indent)
    return json.dumps(legacy, indent=2).replace("\n", "\n" + " " * indent)


class CycleRecord(models.Model):
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="cycles")
    index = models.IntegerField()
    time = models.FloatField(default=0.0)
    pod = models.CharField(max_length=512)          # "namespace/name"
    outcome = models.CharField(max_length=32)       # Bound, Unschedulable, Rejected, Error
    node = models.CharField(max_length=253, null=True, blank=True)
    message = models.TextField(blank=True, default="")
    # The trace, in one of two forms: the run executor stores the engine's columns packed
    # (scheduler_core.tracepack, a few KB a cycle); rows stored before it, and cycles given
    # as the contract's dict (tests, a cycle that waited on Permit), keep the CYCLE object.
    # `trace` reads either as that object.
    legacy_trace = OrderedJSONField(null=True, blank=True, db_column="trace")
    packed = models.BinaryField(null=True, blank=True)
    size = stored_size("legacy_trace", "packed")
    # The cycle preempted (its trace's `preemption` is set): the run's timeline reads those.
    preempted = models.BooleanField(default=False)

    class Meta:
        ordering = ["run", "index"]
        constraints = [
            models.UniqueConstraint(fields=["run", "index"], name="cycle_unique_run_index"),
        ]
        indexes = [
            models.Index(fields=["run", "pod"], name="cycle_run_pod"),
            models.Index(fields=["run", "outcome"], name="cycle_run_outcome"),
        ]

    def __str__(self):
        return f"cycle {self.index} of run {self.run_id}"

    @property
    def trace(self) -> dict | None:
        """The contract's CYCLE object."""
        return stored_trace(self.legacy_trace, self.packed)

    @trace.setter
    def trace(self, value: dict) -> None:
        self.legacy_trace, self.packed = value, None
        self.preempted = bool(value and value.get("preemption"))
