"""The running cluster as the workload controllers see it (the `world` of workloads/)."""
from __future__ import annotations

from ..limit_ranger import Forbidden
from ..scheduler import RUN_EPOCH
from ..workloads.manager import failed_create
from ..workloads.naming import controller_of
from ..workloads.pods import name_of, namespace_of

# The kinds a timed wake-up syncs: the CronJob, and the Jobs it makes in the same pass.
TIMED_KINDS = ("CronJob", "Job")


class LiveWorld:
    def __init__(self, informer, manager):
        self.informer = informer
        self.manager = manager
        self.rng = manager.rng
        self._wakes: set[float] = set()

    def now(self) -> float:
        """The wall-clock time of the run's virtual clock (epoch seconds)."""
        return RUN_EPOCH + self.informer.s.clock

    def start(self) -> float:
        return RUN_EPOCH

    def wake_at(self, epoch: float) -> None:
        """Sync the timed controllers at that time (once per time; not past --until)."""
        s = self.informer.s
        at = epoch - RUN_EPOCH
        if at in self._wakes or (s.until is not None and at > s.until):
            return
        self._wakes.add(at)
        s.at(at, lambda: self.informer.on_change(TIMED_KINDS))

    def pods(self) -> list[dict]:
        return [pi.obj for pi in self.informer.pods.values()]

    def nodes(self) -> list[dict]:
        return list(self.informer.s.cluster.nodes)

    def workloads(self, kind: str) -> list[dict]:
        return self.manager.of_kind(kind)

    def create_workload(self, obj: dict) -> None:
        self.manager.add(obj)
        self.informer.put_object(obj, created=True)

    def create_pod(self, pod: dict) -> None:
        try:
            self.informer.add_pod(pod)
        except Forbidden as exc:
            failed_create(self.manager, self.informer.s.cluster.warnings, pod, exc)

    def delete_workload(self, obj: dict) -> None:
        """A background deletion: the workload goes, the garbage collector takes its pods."""
        kind, namespace, name = obj["kind"], namespace_of(obj), name_of(obj)
        self.manager.remove(kind, namespace, name)
        uid = obj["metadata"].get("uid")
        for pi in [p for p in self.informer.pods.values()
                   if (controller_of(p.obj) or {}).get("uid") == uid]:
            self.informer.delete_pod(pi, "deleted with its owner", notify=False)
        self.informer.remove_object(kind, namespace, name)

    def delete_pod(self, pod: dict, reason: str) -> None:
        pi = self.informer.pod(f"{namespace_of(pod)}/{name_of(pod)}")
        if pi is not None:
            self.informer.delete_pod(pi, reason, notify=False)

    def get_pvc(self, namespace: str, name: str) -> dict | None:
        return self.informer.s.cluster.objects.pvcs.get(f"{namespace}/{name}")

    def create_pvc(self, pvc: dict) -> None:
        self.informer.put_object(pvc, created=True)
