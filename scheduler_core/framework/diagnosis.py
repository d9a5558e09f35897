"""NodeToStatus, Diagnosis and FitError (framework/types.go), with the same messages."""
from __future__ import annotations

from .status import Code, Status

NO_NODE_AVAILABLE = "0/{} nodes are available"


class NodeToStatus:
    """Statuses of rejected nodes, plus one status for every node not listed (absent nodes)."""

    __slots__ = ("_map", "absent")

    def __init__(self, absent: Status | None = None):
        self._map: dict[str, Status] = {}
        self.absent = absent or Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)

    def get(self, node_name: str) -> Status:
        return self._map.get(node_name, self.absent)

    def set(self, node_name: str, status: Status) -> None:
        self._map[node_name] = status

    def items(self):
        return self._map.items()

    def __len__(self):
        return len(self._map)

    def __contains__(self, node_name: str) -> bool:
        return node_name in self._map

    def nodes_for_status_code(self, node_infos, code: Code) -> list:
        """Node infos whose status has `code`, absent nodes counting with the absent status."""
        return [ni for ni in node_infos if self.get(ni.name).code == code]


class Diagnosis:
    __slots__ = ("node_to_status", "unschedulable_plugins", "pending_plugins", "pre_filter_msg",
                 "post_filter_msg")

    def __init__(self):
        self.node_to_status = NodeToStatus()
        self.unschedulable_plugins: set[str] = set()
        self.pending_plugins: set[str] = set()
        self.pre_filter_msg = ""
        self.post_filter_msg = ""

    def add_plugin_status(self, status: Status) -> None:
        if not status.plugin:
            return
        if status.code == Code.PENDING:
            self.pending_plugins.add(status.plugin)
        elif status.is_rejected():
            self.unschedulable_plugins.add(status.plugin)


class FitError(Exception):
    """The pod fits no node; str() is the FailedScheduling event's message."""

    def __init__(self, pod, num_all_nodes: int, diagnosis: Diagnosis):
        self.pod = pod
        self.num_all_nodes = num_all_nodes
        self.diagnosis = diagnosis
        super().__init__()

    def __str__(self) -> str:
        d = self.diagnosis
        msg = NO_NODE_AVAILABLE.format(self.num_all_nodes) + ":"
        if d.pre_filter_msg:
            msg += f" {d.pre_filter_msg}."
        else:
            msg += histogram_message(d.node_to_status, self.num_all_nodes)
        if d.post_filter_msg:
            msg += f" {d.post_filter_msg}"
        return msg


def histogram_message(node_to_status: NodeToStatus, num_all_nodes: int) -> str:
    """' 2 Insufficient cpu, 1 node(s) were unschedulable.' sorted as Go's sort.Strings."""
    reasons: dict[str, int] = {}
    for _, status in node_to_status.items():
        for reason in status.reasons:
            reasons[reason] = reasons.get(reason, 0) + 1
    absent_count = num_all_nodes - len(node_to_status)
    if absent_count > 0:
        for reason in node_to_status.absent.reasons:
            reasons[reason] = reasons.get(reason, 0) + absent_count
    if not reasons:
        return ""
    parts = sorted((f"{count} {reason}" for reason, count in reasons.items()),
                   key=lambda s: s.encode())
    return " " + ", ".join(parts) + "."
