"""Clusters of Kubernetes objects: the cluster and one model per kind of object.

Each Kubernetes object keeps its manifest (the source of truth) and a few denormalized
columns for filtering and listing. Those columns are recomputed from the manifest by the
engine's own code (PodInfo, Resource.from_list, pod_priority) in save(), and by
`compute_derived()` before a bulk insert; nothing else writes them.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models.functions import Cast, Coalesce, Length

from scheduler_core.framework.types import PodInfo, Resource
from scheduler_core.loader import pod_priority

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


def json_text(field: str) -> Cast:
    return Cast(field, models.TextField())


def _meta(manifest: dict) -> dict:
    meta = manifest.get("metadata")
    return meta if isinstance(meta, dict) else {}


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
    size = stored_size(json_text("manifest"))

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
