"""The controller manager: every workload synced until the cluster stops changing."""
from __future__ import annotations

import random

from .. import limit_ranger
from ..admission import admit_pod, default_priority_class
from . import (
    cronjob,
    daemonset,
    deployment,
    job,
    replicaset,
    replicationcontroller,
    statefulset,
)
from .naming import controller_of
from .pods import ensure_uid, name_of, namespace_of

CONTROLLERS = {m.KIND: m for m in (deployment, replicaset, statefulset, daemonset, job,
                                   replicationcontroller, cronjob)}
WORKLOAD_KINDS = tuple(CONTROLLERS)
# Deployment -> ReplicaSet -> pods is the deepest chain; a few more passes are headroom.
MAX_PASSES = 8


def workload_rng(seed: int) -> random.Random:
    """Names and uids have their own generator, apart from the scheduler's tie-breaks."""
    return random.Random(f"workloads/{seed}")


def failed_create(manager, warnings, pod: dict, exc) -> None:
    """The FailedCreate event of the pod's controller, as a warning line: once per
    controller and reason, as the controller retries with a new name at every sync."""
    owner = controller_of(pod) or {}
    reason = exc.message.split(" is forbidden: ", 1)[-1]
    if (owner.get("uid"), reason) in manager.create_failures:
        return
    manager.create_failures.add((owner.get("uid"), reason))
    kind, namespace, name = owner.get("kind", ""), namespace_of(pod), owner.get("name", "")
    path, where = manager.origins.get((kind, namespace, name), ("", ""))
    warnings.append(": ".join(p for p in (path, where, f"{kind} {namespace}/{name}",
                                          f"FailedCreate: Error creating: {exc.message}") if p))


# The one version a v1.3x API server serves each kind at (batch/v1beta1 CronJobs, apps/v1beta2
# and extensions/v1beta1 workloads were removed in 1.16 to 1.25).
SERVED_VERSIONS = {"Deployment": "apps/v1", "ReplicaSet": "apps/v1", "StatefulSet": "apps/v1",
                   "DaemonSet": "apps/v1", "Job": "batch/v1", "CronJob": "batch/v1",
                   "ReplicationController": "v1"}


def workload_problems(obj: dict) -> list[tuple[str, str]]:
    """A version the API server no longer serves (as kubectl reports the missing mapping),
    then what the kind's validation refuses beyond the common checks."""
    kind, version = obj["kind"], obj.get("apiVersion")
    if version and version != SERVED_VERSIONS[kind]:
        return [("apiVersion", f'no matches for kind "{kind}" in version "{version}"')]
    validate = getattr(CONTROLLERS[kind], "validate", None)
    return validate(obj) if validate is not None else []


def workload_key(obj: dict) -> tuple[str, str, str]:
    return obj.get("kind", ""), namespace_of(obj), name_of(obj)


class ControllerManager:
    def __init__(self, rng: random.Random):
        self.rng = rng
        self.workloads: dict[tuple[str, str, str], dict] = {}
        # (owner uid, reason) of the pod creations admission refused, said once each.
        self.create_failures: set[tuple[str, str]] = set()
        # (kind, namespace, name) -> (file, document) of the input's workloads.
        self.origins: dict[tuple[str, str, str], tuple[str, str]] = {}

    def add(self, obj: dict) -> None:
        ensure_uid(obj, self.rng)
        self.workloads[workload_key(obj)] = obj

    def remove(self, kind: str, namespace: str, name: str) -> dict | None:
        return self.workloads.pop((kind, namespace, name), None)

    def get(self, kind: str, namespace: str, name: str) -> dict | None:
        return self.workloads.get((kind, namespace, name))

    def of_kind(self, kind: str) -> list[dict]:
        return [w for (k, _, _), w in self.workloads.items() if k == kind]

    def sync(self, world, kinds: tuple[str, ...] | None = None) -> None:
        """kinds: only the controllers that watch what changed (None: all of them)."""
        for _ in range(MAX_PASSES):
            changed = False
            for obj in list(self.workloads.values()):
                if self.workloads.get(workload_key(obj)) is not obj:
                    continue   # deleted earlier in this pass (a CronJob's Replace)
                if kinds is None or obj["kind"] in kinds:
                    changed |= CONTROLLERS[obj["kind"]].sync(obj, world)
            if not changed:
                return


class LoadWorld:
    """The Cluster as it is being loaded: what the controllers make joins its documents."""

    def __init__(self, cluster, manager: ControllerManager):
        self.cluster = cluster
        self.manager = manager
        self.rng = manager.rng

    def pods(self) -> list[dict]:
        return self.cluster.pods

    def now(self) -> None:
        """No clock yet: controllers that act at times (CronJob) wait for the run."""
        return None

    def nodes(self) -> list[dict]:
        return self.cluster.nodes

    def workloads(self, kind: str) -> list[dict]:
        return self.manager.of_kind(kind)

    def create_workload(self, obj: dict) -> None:
        self.manager.add(obj)
        self.cluster.objects.extra.setdefault(obj["kind"], []).append(obj)

    def create_pod(self, pod: dict) -> None:
        """The API server admits the pod; one LimitRanger forbids is not made (the
        controller's FailedCreate event), and said so."""
        classes = self.cluster.objects.priority_classes
        try:
            admit_pod(pod, classes, default_priority_class(classes),
                      self.cluster.objects.extra.get("LimitRange", []))
        except limit_ranger.Forbidden as exc:
            failed_create(self.manager, self.cluster.warnings, pod, exc)
            return
        self.cluster.pods.append(pod)

    def delete_pod(self, pod: dict, reason: str) -> None:
        self.cluster.pods.remove(pod)

    def get_pvc(self, namespace: str, name: str) -> dict | None:
        return self.cluster.objects.pvcs.get(f"{namespace}/{name}")

    def create_pvc(self, pvc: dict) -> None:
        self.cluster.objects.pvcs[f"{namespace_of(pvc)}/{name_of(pvc)}"] = pvc


def expand(cluster, seed: int, origin=None) -> ControllerManager:
    """Run the controllers over a freshly loaded cluster: its workloads become pods.
    origin(obj) -> (file, document) names where a workload came from in warnings."""
    manager = ControllerManager(workload_rng(seed))
    for obj in cluster.workloads:
        manager.add(obj)
        if origin is not None:
            manager.origins[workload_key(obj)] = origin(obj)
    if manager.workloads:
        manager.sync(LoadWorld(cluster, manager))
    return manager
