"""NodeUnschedulable: keep pods off cordoned nodes (framework/plugins/nodeunschedulable).

A node with spec.unschedulable rejects pods unless they tolerate the
node.kubernetes.io/unschedulable:NoSchedule taint.
"""
from __future__ import annotations

import numpy as np

from ...columns.verdict import Verdict
from ...framework.cycle_state import CycleState
from ...framework.interfaces import EnqueueExtensions, FilterPlugin
from ...framework.status import Code, Status
from ...framework.types import NodeInfo, PodInfo
from ...taints import tolerations_tolerate_taint
from .. import names
from . import queueing_hints

NAME = names.NODE_UNSCHEDULABLE
ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"
TAINT_NODE_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
_UNSCHEDULABLE_TAINT = {"key": TAINT_NODE_UNSCHEDULABLE, "effect": "NoSchedule"}
_OUTCOMES = {1: (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_UNSCHEDULABLE,))}


def tolerates_unschedulable(pod: PodInfo) -> bool:
    return tolerations_tolerate_taint(pod.tolerations, _UNSCHEDULABLE_TAINT)


class NodeUnschedulable(FilterPlugin, EnqueueExtensions):
    NAME = NAME
    NODE_ONLY = True

    # Filter -----------------------------------------------------------------------------
    def filter(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> Status | None:
        if not node_info.unschedulable or tolerates_unschedulable(pod):
            return None
        return Status.unresolvable(ERR_REASON_UNSCHEDULABLE)

    def filter_vector(self, state: CycleState, pod: PodInfo, cols) -> Verdict:
        if tolerates_unschedulable(pod):
            return Verdict.uniform(cols.size, None)
        # Kept across cycles: a cycle rewrites a row or two, not the flag of every node.
        kinds, rejected = cols.kept_nonzero(
            NAME, lambda rows: cols.unschedulable[rows].astype(np.int32),
            lambda row: int(cols.unschedulable[row]))
        return Verdict(kinds, _OUTCOMES, rejected)

    # EnqueueExtensions ------------------------------------------------------------------
    def events_to_register(self) -> set[str]:
        # A node added or uncordoned, or the pod itself gaining the toleration.
        return {"NodeAdd", "NodeUpdate", "UnscheduledPodUpdate"}

    def queueing_hints(self) -> dict:
        return queueing_hints.for_node_unschedulable(tolerates_unschedulable)


def new(args: dict, handle) -> NodeUnschedulable:
    return NodeUnschedulable()
