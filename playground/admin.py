"""Admin pages for clusters, their objects, profiles, runs and cycles.

Objects are edited through their manifest; the denormalized columns are read-only because
save() recomputes them.
"""

from django.contrib import admin

from playground.clusters.models import (
    Cluster,
    ExtraObject,
    Namespace,
    Node,
    PersistentVolume,
    PersistentVolumeClaim,
    Pod,
    PodDisruptionBudget,
    PriorityClass,
    StorageClass,
)
from playground.profiles.models import SchedulerProfile
from playground.runs.models import CycleRecord, Run
from playground.timelines.models import Timeline


@admin.register(Cluster)
class ClusterAdmin(admin.ModelAdmin):
    list_display = ["id", "name", "owner", "shared", "updated"]
    list_filter = ["shared"]
    search_fields = ["name", "owner__username"]


class KubeObjectAdmin(admin.ModelAdmin):
    derived: list[str] = []
    list_display = ["id", "name", "cluster"]
    list_filter = ["cluster"]
    search_fields = ["name"]
    raw_id_fields = ["cluster"]

    def get_readonly_fields(self, request, obj=None):
        return ["name", *self.derived]


def _register(model, derived: list[str], display: list[str] | None = None):
    attrs = {"derived": derived, "list_display": ["id", "name", *(display or derived)[:5],
                                                   "cluster"]}
    admin.site.register(model, type(f"{model.__name__}Admin", (KubeObjectAdmin,), attrs))


_register(Node, ["unschedulable", "cpu_milli", "memory_bytes", "pods_allocatable"])
_register(Pod, ["namespace", "node_name", "phase", "priority", "cpu_request_milli",
                "memory_request_bytes", "scheduler_name"],
          ["namespace", "node_name", "phase", "priority", "scheduler_name"])
_register(Namespace, [])
_register(PriorityClass, ["value", "global_default"])
_register(PodDisruptionBudget, ["namespace"])
_register(PersistentVolume, [])
_register(PersistentVolumeClaim, ["namespace"])
_register(StorageClass, [])
_register(ExtraObject, ["kind", "namespace"])


@admin.register(SchedulerProfile)
class SchedulerProfileAdmin(admin.ModelAdmin):
    list_display = ["id", "cluster", "updated"]
    raw_id_fields = ["cluster"]


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ["id", "name", "cluster", "owner", "status", "cycle_count", "pods_bound",
                    "updated"]
    list_filter = ["status"]
    raw_id_fields = ["cluster", "owner"]
    readonly_fields = ["documents", "config"]


@admin.register(Timeline)
class TimelineAdmin(admin.ModelAdmin):
    list_display = ["id", "name", "cluster", "updated"]
    search_fields = ["name"]
    raw_id_fields = ["cluster"]


@admin.register(CycleRecord)
class CycleRecordAdmin(admin.ModelAdmin):
    """Read-only: a cycle is what the engine decided; editing one would make the run lie."""

    list_display = ["id", "run", "index", "pod", "outcome", "node"]
    list_filter = ["outcome"]
    search_fields = ["pod"]
    raw_id_fields = ["run"]
    exclude = ["legacy_trace", "packed"]  # either form of the trace, read as `trace`
    readonly_fields = ["trace"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
