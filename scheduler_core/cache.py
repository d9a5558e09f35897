"""The scheduler cache: node infos with assumed pods, and the per-cycle snapshot.

Assumed pods count on their node from Reserve until binding confirms them or Forget drops
them. update_snapshot copies only the node infos that changed since the last cycle, as
Cache.UpdateSnapshot does with generations.
"""
from __future__ import annotations

from .framework.snapshot import Snapshot
from .framework.types import NodeInfo, PodInfo


class Cache:
    def __init__(self, nodes: list[dict]):
        self.node_infos: dict[str, NodeInfo] = {n["metadata"]["name"]: NodeInfo(n) for n in nodes}
        self.pods: dict[str, PodInfo] = {}     # uid -> pod placed on a node (bound or assumed)
        self.assumed: set[str] = set()
        self._dirty: set[str] = set(self.node_infos)

    def add_pod(self, pod: PodInfo) -> bool:
        """A pod already bound to a node (from the input or a finished binding)."""
        ni = self.node_infos.get(pod.node_name)
        if ni is None:
            return False
        ni.add_pod(pod)
        self.pods[pod.uid] = pod
        self._dirty.add(ni.name)
        return True

    def assume(self, pod: PodInfo, node_name: str) -> None:
        pod.node_name = node_name
        self.add_pod(pod)
        self.assumed.add(pod.uid)

    def forget(self, pod: PodInfo) -> None:
        if pod.uid in self.assumed:
            self.assumed.discard(pod.uid)
            self.remove_pod(pod)
            pod.node_name = ""

    def finish_binding(self, pod: PodInfo) -> None:
        self.assumed.discard(pod.uid)

    def remove_pod(self, pod: PodInfo) -> None:
        ni = self.node_infos.get(pod.node_name)
        if ni is not None and ni.remove_pod(pod):
            self._dirty.add(ni.name)
        self.pods.pop(pod.uid, None)

    def touch(self, node_name: str) -> None:
        """A pod on the node changed in place (deletion started): refresh its copy."""
        self._dirty.add(node_name)
        self.node_infos[node_name].generation += 1

    def add_node(self, node: dict) -> None:
        name = node["metadata"]["name"]
        self.node_infos[name] = NodeInfo(node)
        self._dirty.add(name)

    def update_node(self, node: dict) -> None:
        """The node object changed (taints, labels, unschedulable); its pods stay."""
        ni = self.node_infos[node["metadata"]["name"]]
        ni.set_node(node)
        ni.generation += 1
        self._dirty.add(ni.name)

    def remove_node(self, name: str) -> None:
        """Drop a node; its pods must be gone first (the pod GC deletes them)."""
        self.node_infos.pop(name, None)
        self._dirty.discard(name)

    def new_snapshot(self) -> Snapshot:
        self._dirty.clear()
        return Snapshot([ni.clone() for ni in self.node_infos.values()])

    def update_snapshot(self, snapshot: Snapshot) -> None:
        if not self._dirty:
            return
        affinity_changed = False
        for name in self._dirty:
            fresh = self.node_infos[name].clone()
            old = snapshot.node_info_map[name]
            fresh.image_states = old.image_states
            affinity_changed |= bool(old.pods_with_affinity or fresh.pods_with_affinity)
            snapshot.replace(fresh)
        if affinity_changed:
            snapshot.refresh_lists()
        self._dirty.clear()
