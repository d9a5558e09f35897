"""NodeToStatus, Diagnosis and FitError (framework/types.go), with the same messages."""
from __future__ import annotations

import numpy as np

from .status import Code, Status

NO_NODE_AVAILABLE = "0/{} nodes are available"


class NodeToStatus:
    """Statuses of rejected nodes, plus one status for every node not listed (absent nodes).

    The columns path hands over its rejected nodes at once (`set_rows`): rows and an index
    into a few shared statuses. They are listed node by node only when read that way, so a
    cycle that finds its node anyway never does.
    """

    __slots__ = ("_map", "_rows", "absent")

    def __init__(self, absent: Status | None = None):
        self._map: dict[str, Status] = {}
        # (names by row, node infos by row, rows, status ids, statuses, row by name)
        self._rows = None
        self.absent = absent or Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)

    def _listed(self) -> dict[str, Status]:
        if self._rows is not None:
            names, _, rows, ids, statuses, _ = self._rows
            self._rows = None
            self._map.update(zip(map(names.__getitem__, rows.tolist()),
                                 map(statuses.__getitem__, ids.tolist())))
        return self._map

    def get(self, node_name: str) -> Status:
        if self._rows is not None:
            # One node asked for (PostFilter's nominated node): found among the rows.
            _, _, rows, ids, statuses, position = self._rows
            at = np.flatnonzero(rows == position.get(node_name, -1))
            return statuses[ids[at[0]]] if len(at) else self.absent
        return self._map.get(node_name, self.absent)

    def set(self, node_name: str, status: Status) -> None:
        self._listed()[node_name] = status

    def set_rows(self, names: list[str], node_infos: list, rows, ids, statuses: list,
                 position: dict[str, int]) -> None:
        """names[rows[i]] (node_infos[rows[i]]) has statuses[ids[i]]; rows are distinct;
        position[name] is a node's row."""
        self._listed()
        self._rows = (names, node_infos, rows, ids, statuses, position)
        if self._map:
            self._listed()  # a node may be listed already: merged now, len counts it once

    def items(self):
        return self._listed().items()

    def __len__(self):
        if self._rows is not None:
            return len(self._rows[2])   # set only into an empty map
        return len(self._map)

    def __contains__(self, node_name: str) -> bool:
        return node_name in self._listed()

    def status_counts(self) -> list[tuple[Status, int]]:
        """Each listed status with how many nodes have it."""
        if self._rows is not None:
            statuses, ids = self._rows[4], self._rows[3]
            return list(zip(statuses, np.bincount(ids, minlength=len(statuses)).tolist()))
        return [(status, 1) for status in self._map.values()]

    def nodes_for_status_code(self, node_infos, code: Code) -> list:
        """Node infos whose status has `code`, absent nodes counting with the absent status."""
        if self._rows is not None and node_infos is self._rows[1]:
            _, _, rows, ids, statuses, _ = self._rows
            match = np.full(len(node_infos), self.absent.code == code)
            match[rows] = np.array([s.code == code for s in statuses], bool)[ids]
            return [node_infos[i] for i in np.flatnonzero(match).tolist()]
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
    for status, count in node_to_status.status_counts():
        for reason in status.reasons:
            reasons[reason] = reasons.get(reason, 0) + count
    absent_count = num_all_nodes - len(node_to_status)
    if absent_count > 0:
        for reason in node_to_status.absent.reasons:
            reasons[reason] = reasons.get(reason, 0) + absent_count
    if not reasons:
        return ""
    parts = sorted((f"{count} {reason}" for reason, count in reasons.items()),
                   key=lambda s: s.encode())
    return " " + ", ".join(parts) + "."
