"""Clusters of Kubernetes objects, scheduler profiles, runs and their cycles.

Each Kubernetes object keeps its manifest (the source of truth) and a few denormalized
columns for filtering and listing. Those columns are recomputed from the manifest by the
engine's own code (PodInfo, Resource.from_list, pod_priority) in save(), and by
`compute_derived()` before a bulk insert; nothing else writes them.
"""

from __future__ import annotations

import json

from django.conf import settings
from django.db import models, transaction
from django.db.models.functions import Cast, Coalesce, Length

from scheduler_core.features import DEFAULT_RELEASE, RELEASES
from scheduler_core.framework.types import PodInfo, Resource
from scheduler_core.loader import pod_priority
from scheduler_core.tracepack import unpack

# Cluster-scoped kinds other than the ones with their own model (CSINode, DRA's DeviceClass
# and ResourceSlice); ExtraObject rows of every other kind carry a namespace.
CLUSTER_SCOPED_EXTRA_KINDS = frozenset({"CSINode", "DeviceClass", "ResourceSlice"})
# resource.k8s.io/v1 kinds that DynamicResources reads, stored as ExtraObject rows.
DRA_KINDS = frozenset({"DeviceClass", "ResourceSlice", "ResourceClaim", "ResourceClaimTemplate"})


def stored_size(*expressions) -> models.GeneratedField:
    """A column the database keeps equal to the stored length of `expressions` (summed; a
    NULL counts 0), on every write path (save, bulk_create, update): the storage quota sums
    these instead of measuring megabytes of JSON on every run step (playground.quotas)."""
    total = sum((Coalesce(Length(e), 0) for e in expressions[1:]),
                Coalesce(Length(expressions[0]), 0))
    return models.GeneratedField(expression=total, output_field=models.BigIntegerField(),
                                 db_persist=True)


def _json_text(field: str) -> Cast:
    return Cast(field, models.TextField())


def _meta(manifest: dict) -> dict:
    meta = manifest.get("metadata")
    return meta if isinstance(meta, dict) else {}


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


class Cluster(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="clusters"
    )
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True, default="")
    # Shared clusters are readable (and runnable, clonable) by every user, writable by the owner.
    shared = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "name"], name="cluster_unique_owner_name"),
        ]

    def __str__(self):
        return f"{self.owner} / {self.name}"

    def priority_class_manifests(self) -> dict[str, dict]:
        return {pc.name: pc.manifest for pc in self.priorityclass_set.all()}


class KubeObject(models.Model):
    """A Kubernetes object of one kind in one cluster; `manifest` is the source of truth."""

    KIND = ""
    NAMESPACED = False

    cluster = models.ForeignKey(Cluster, on_delete=models.CASCADE)
    name = models.CharField(max_length=253)
    manifest = models.JSONField()
    size = stored_size(_json_text("manifest"))

    class Meta:
        abstract = True
        ordering = ["id"]

    def __str__(self):
        return f"{self.get_kind()} {self.key}"

    def get_kind(self) -> str:
        return self.KIND

    @property
    def key(self) -> str:
        namespace = getattr(self, "namespace", "")
        return f"{namespace}/{self.name}" if self.NAMESPACED else self.name

    def compute_derived(self, **context) -> None:
        """Fill the denormalized columns from the manifest (the engine's view of it)."""
        self.name = _meta(self.manifest).get("name") or ""
        if self.NAMESPACED:
            self.namespace = _meta(self.manifest).get("namespace") or "default"

    def save(self, *args, **kwargs):
        self.compute_derived()
        super().save(*args, **kwargs)


def _cluster_unique(model: str) -> list:
    return [
        models.UniqueConstraint(fields=["cluster", "name"], name=f"{model}_unique_cluster_name")
    ]


def _namespace_unique(model: str) -> list:
    return [
        models.UniqueConstraint(
            fields=["cluster", "namespace", "name"], name=f"{model}_unique_cluster_ns_name"
        )
    ]


class Node(KubeObject):
    KIND = "Node"

    unschedulable = models.BooleanField(default=False)
    cpu_milli = models.BigIntegerField(default=0)
    memory_bytes = models.BigIntegerField(default=0)
    pods_allocatable = models.BigIntegerField(default=0)

    class Meta(KubeObject.Meta):
        constraints = _cluster_unique("node")

    def compute_derived(self, **context) -> None:
        super().compute_derived()
        spec = self.manifest.get("spec") or {}
        status = self.manifest.get("status") or {}
        allocatable = Resource.from_list(status.get("allocatable") or {})
        self.unschedulable = bool(spec.get("unschedulable"))
        self.cpu_milli = allocatable.milli_cpu
        self.memory_bytes = allocatable.memory
        self.pods_allocatable = allocatable.allowed_pod_number


class Pod(KubeObject):
    KIND = "Pod"
    NAMESPACED = True

    namespace = models.CharField(max_length=253, default="default")
    node_name = models.CharField(max_length=253, blank=True, default="")
    phase = models.CharField(max_length=32, default="Pending")
    priority = models.BigIntegerField(default=0)
    cpu_request_milli = models.BigIntegerField(default=0)
    memory_request_bytes = models.BigIntegerField(default=0)
    scheduler_name = models.CharField(max_length=253, default="default-scheduler")

    class Meta(KubeObject.Meta):
        constraints = _namespace_unique("pod")
        indexes = [
            models.Index(fields=["cluster", "node_name"], name="pod_cluster_node"),
            models.Index(fields=["cluster", "phase"], name="pod_cluster_phase"),
        ]

    def compute_derived(self, *, priority_classes: dict[str, dict] | None = None,
                        **context) -> None:
        """priority_classes: the cluster's PriorityClass manifests by name (queried if None)."""
        super().compute_derived()
        if priority_classes is None:
            priority_classes = self.cluster.priority_class_manifests()
        info = PodInfo(self.manifest)
        status = self.manifest.get("status") or {}
        self.node_name = info.node_name
        # A pod the input already places on a node runs there, as far as scheduling goes.
        self.phase = status.get("phase") or ("Running" if info.node_name else "Pending")
        try:
            self.priority = pod_priority(self.manifest, priority_classes)
        except KeyError:
            self.priority = 0  # a dangling priorityClassName: the loader refuses it in a run
        self.cpu_request_milli = info.requests.milli_cpu
        self.memory_request_bytes = info.requests.memory
        self.scheduler_name = info.scheduler_name


class Namespace(KubeObject):
    KIND = "Namespace"

    class Meta(KubeObject.Meta):
        constraints = _cluster_unique("namespace")


class PriorityClass(KubeObject):
    KIND = "PriorityClass"

    value = models.BigIntegerField(default=0)
    global_default = models.BooleanField(default=False)

    class Meta(KubeObject.Meta):
        constraints = _cluster_unique("priorityclass")
        verbose_name_plural = "priority classes"

    def compute_derived(self, **context) -> None:
        super().compute_derived()
        self.value = int(self.manifest.get("value") or 0)
        self.global_default = bool(self.manifest.get("globalDefault"))

    def save(self, *args, **kwargs):
        super().save(*args, **kwargs)
        refresh_pod_priorities(self.cluster)

    def delete(self, *args, **kwargs):
        cluster = self.cluster
        result = super().delete(*args, **kwargs)
        refresh_pod_priorities(cluster)
        return result


def refresh_pod_priorities(cluster: Cluster) -> None:
    """Pods' priority column after a PriorityClass changed (value, globalDefault, deletion)."""
    classes = cluster.priority_class_manifests()
    changed = []
    for pod in cluster.pod_set.all().only("id", "manifest", "priority"):
        spec = pod.manifest.get("spec") or {}
        name = spec.get("priorityClassName")
        if name and name not in classes and not name.startswith("system-"):
            continue  # a dangling reference: the run's loader reports it, the column stays
        value = pod_priority(pod.manifest, classes)
        if value != pod.priority:
            pod.priority = value
            changed.append(pod)
    Pod.objects.bulk_update(changed, ["priority"], batch_size=1000)


class PodDisruptionBudget(KubeObject):
    KIND = "PodDisruptionBudget"
    NAMESPACED = True

    namespace = models.CharField(max_length=253, default="default")

    class Meta(KubeObject.Meta):
        constraints = _namespace_unique("pdb")


class PersistentVolume(KubeObject):
    KIND = "PersistentVolume"

    class Meta(KubeObject.Meta):
        constraints = _cluster_unique("pv")


class PersistentVolumeClaim(KubeObject):
    KIND = "PersistentVolumeClaim"
    NAMESPACED = True

    namespace = models.CharField(max_length=253, default="default")

    class Meta(KubeObject.Meta):
        constraints = _namespace_unique("pvc")


class StorageClass(KubeObject):
    KIND = "StorageClass"

    class Meta(KubeObject.Meta):
        constraints = _cluster_unique("storageclass")
        verbose_name_plural = "storage classes"


class ExtraObject(KubeObject):
    """CSINode, PodGroup and the other kinds the engine reads but has no model for."""

    kind = models.CharField(max_length=100)
    # "" for cluster-scoped kinds (CSINode).
    namespace = models.CharField(max_length=253, blank=True, default="")

    class Meta(KubeObject.Meta):
        constraints = [
            models.UniqueConstraint(
                fields=["cluster", "kind", "namespace", "name"],
                name="extraobject_unique_cluster_kind_ns_name",
            )
        ]
        indexes = [models.Index(fields=["cluster", "kind"], name="extra_cluster_kind")]

    def get_kind(self) -> str:
        return self.kind

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}" if self.namespace else self.name

    def compute_derived(self, **context) -> None:
        super().compute_derived()
        self.kind = self.manifest.get("kind") or ""
        if self.kind in CLUSTER_SCOPED_EXTRA_KINDS:
            self.namespace = ""
        else:
            self.namespace = _meta(self.manifest).get("namespace") or "default"


# Every object model in the order an export writes them: what a pod refers to comes first.
OBJECT_MODELS: list[type[KubeObject]] = [
    Namespace, PriorityClass, StorageClass, PersistentVolume, PersistentVolumeClaim,
    PodDisruptionBudget, Node, ExtraObject, Pod,
]
MODEL_BY_KIND: dict[str, type[KubeObject]] = {m.KIND: m for m in OBJECT_MODELS if m.KIND}


class SchedulerProfile(models.Model):
    """The cluster's KubeSchedulerConfiguration, checked by scheduler_core.config."""

    cluster = models.OneToOneField(Cluster, on_delete=models.CASCADE, related_name="profile")
    config = models.JSONField()
    updated = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"profile of {self.cluster}"


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
    size = stored_size(_json_text("documents"))

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


class Timeline(models.Model):
    """Cluster events at virtual times (scheduler_core.timeline, docs/TIMELINE.md); a run
    takes the cluster's timelines with its documents."""

    API_VERSION = "playground.k8s.local/v1"

    cluster = models.ForeignKey(Cluster, on_delete=models.CASCADE, related_name="timelines")
    name = models.CharField(max_length=200)
    steps = models.JSONField(default=list)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["cluster", "name"], name="timeline_unique_name"),
        ]

    def __str__(self):
        return f"timeline {self.name} of {self.cluster}"

    def document(self) -> dict:
        return {"apiVersion": self.API_VERSION, "kind": "Timeline",
                "metadata": {"name": self.name}, "spec": {"steps": self.steps}}
