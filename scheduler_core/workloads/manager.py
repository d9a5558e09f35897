"""The controller manager: every workload synced until the cluster stops changing."""
from __future__ import annotations

import random

from . import daemonset, deployment, job, replicaset, statefulset
from .pods import ensure_uid, name_of, namespace_of

CONTROLLERS = {m.KIND: m for m in (deployment, replicaset, statefulset, daemonset, job)}
WORKLOAD_KINDS = tuple(CONTROLLERS)
# Deployment -> ReplicaSet -> pods is the deepest chain; a few more passes are headroom.
MAX_PASSES = 8


def workload_rng(seed: int) -> random.Random:
    """Names and uids have their own generator, apart from the scheduler's tie-breaks."""
    return random.Random(f"workloads/{seed}")


def workload_key(obj: dict) -> tuple[str, str, str]:
    return obj.get("kind", ""), namespace_of(obj), name_of(obj)


class ControllerManager:
    def __init__(self, rng: random.Random):
        self.rng = rng
        self.workloads: dict[tuple[str, str, str], dict] = {}

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

    def nodes(self) -> list[dict]:
        return self.cluster.nodes

    def workloads(self, kind: str) -> list[dict]:
        return self.manager.of_kind(kind)

    def create_workload(self, obj: dict) -> None:
        self.manager.add(obj)
        self.cluster.objects.extra.setdefault(obj["kind"], []).append(obj)

    def create_pod(self, pod: dict) -> None:
        self.cluster.pods.append(pod)

    def delete_pod(self, pod: dict, reason: str) -> None:
        self.cluster.pods.remove(pod)

    def get_pvc(self, namespace: str, name: str) -> dict | None:
        return self.cluster.objects.pvcs.get(f"{namespace}/{name}")

    def create_pvc(self, pvc: dict) -> None:
        self.cluster.objects.pvcs[f"{namespace_of(pvc)}/{name_of(pvc)}"] = pvc


def expand(cluster, seed: int) -> ControllerManager:
    """Run the controllers over a freshly loaded cluster: its workloads become pods."""
    manager = ControllerManager(workload_rng(seed))
    for obj in cluster.workloads:
        manager.add(obj)
    if manager.workloads:
        manager.sync(LoadWorld(cluster, manager))
    return manager
