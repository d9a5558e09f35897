"""The per-cycle snapshot of node infos, in the node tree's zone-interleaved order."""
from __future__ import annotations

from .types import ImageStateSummary, NodeInfo, PodInfo

ZONE_LABELS = ("topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone")
REGION_LABELS = ("topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region")


def zone_key(labels: dict) -> str:
    """utilnode.GetZoneKey: region and zone, or '' when the node has neither."""
    zone = next((labels[k] for k in ZONE_LABELS if k in labels), "")
    region = next((labels[k] for k in REGION_LABELS if k in labels), "")
    if not zone and not region:
        return ""
    return f"{region}:\x00:{zone}"


def node_tree_order(node_infos: list[NodeInfo]) -> list[NodeInfo]:
    """nodeTree.list(): zones in order of first appearance, one node from each in turn."""
    zones: dict[str, list[NodeInfo]] = {}
    for ni in node_infos:
        zones.setdefault(zone_key(ni.labels), []).append(ni)
    if len(zones) <= 1:
        return list(node_infos)
    ordered, columns, depth = [], list(zones.values()), 0
    while len(ordered) < len(node_infos):
        for column in columns:
            if depth < len(column):
                ordered.append(column[depth])
        depth += 1
    return ordered


class Snapshot:
    """Node infos by name and in list order, with the affinity sub-lists InterPodAffinity uses."""

    def __init__(self, node_infos: list[NodeInfo]):
        self.node_info_list = node_tree_order(node_infos)
        self.node_info_map = {ni.name: ni for ni in self.node_info_list}
        self.position = {ni.name: i for i, ni in enumerate(self.node_info_list)}
        # The nodes as numpy columns (columns.NodeColumns), attached by the vector path on
        # first use; replace() keeps its rows in step.
        self.columns = None
        self.refresh_lists()
        self.refresh_image_states()

    def refresh_lists(self) -> None:
        self.have_pods_with_affinity_list = [
            ni for ni in self.node_info_list if ni.pods_with_affinity]
        self.have_pods_with_required_anti_affinity_list = [
            ni for ni in self.node_info_list if ni.pods_with_required_anti_affinity]

    def refresh_image_states(self) -> None:
        """Each image's size and how many nodes have it (cache.createImageStateSummary)."""
        spread: dict[str, int] = {}
        for ni in self.node_info_list:
            for image_names in {n for names, _ in ni.images for n in names}:
                spread[image_names] = spread.get(image_names, 0) + 1
        for ni in self.node_info_list:
            ni.image_states = {
                name: ImageStateSummary(size, spread[name])
                for names, size in ni.images for name in names
            }

    def replace(self, fresh: NodeInfo) -> None:
        """Swap in a newer copy of one node's info, keeping list order (and its column row)."""
        old = self.node_info_map[fresh.name]
        row = self.position[fresh.name]
        self.node_info_map[fresh.name] = fresh
        self.node_info_list[row] = fresh
        if self.columns is not None:
            self.columns.update_row(row, fresh, old)

    def get(self, name: str) -> NodeInfo | None:
        return self.node_info_map.get(name)

    def list(self) -> list[NodeInfo]:
        return self.node_info_list

    def __len__(self):
        return len(self.node_info_list)

    @classmethod
    def from_objects(cls, nodes: list[dict], pods: list[PodInfo] | None = None) -> Snapshot:
        """A snapshot of the given Node manifests with the assigned PodInfos placed on them."""
        infos = {n["metadata"]["name"]: NodeInfo(n) for n in nodes}
        for pi in pods or []:
            if pi.node_name in infos:
                infos[pi.node_name].add_pod(pi)
        return cls(list(infos.values()))
