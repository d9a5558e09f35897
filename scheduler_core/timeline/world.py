"""The running cluster as the workload controllers see it (the `world` of workloads/)."""
from __future__ import annotations

from ..workloads.pods import name_of, namespace_of


class LiveWorld:
    def __init__(self, informer, manager):
        self.informer = informer
        self.manager = manager
        self.rng = manager.rng

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
        self.informer.add_pod(pod)

    def delete_pod(self, pod: dict, reason: str) -> None:
        pi = self.informer.pod(f"{namespace_of(pod)}/{name_of(pod)}")
        if pi is not None:
            self.informer.delete_pod(pi, reason, notify=False)

    def get_pvc(self, namespace: str, name: str) -> dict | None:
        return self.informer.s.cluster.objects.pvcs.get(f"{namespace}/{name}")

    def create_pvc(self, pvc: dict) -> None:
        self.informer.put_object(pvc, created=True)
