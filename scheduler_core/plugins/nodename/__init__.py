"""NodeName: a pod that names its node fits only that node (framework/plugins/nodename)."""
from __future__ import annotations

from ...columns.verdict import Verdict
from ...framework.cycle_state import CycleState
from ...framework.interfaces import EnqueueExtensions, FilterPlugin
from ...framework.status import Code, Status
from ...framework.types import NodeInfo, PodInfo
from .. import names
from . import queueing_hints

NAME = names.NODE_NAME
ERR_REASON = "node(s) didn't match the requested node name"


def fits(pod: PodInfo, node_info: NodeInfo) -> bool:
    return not pod.node_name or pod.node_name == node_info.name


class NodeName(FilterPlugin, EnqueueExtensions):
    NAME = NAME
    NODE_ONLY = True

    # Filter -----------------------------------------------------------------------------
    def filter(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> Status | None:
        if fits(pod, node_info):
            return None
        return Status.unresolvable(ERR_REASON)

    def filter_vector(self, state: CycleState, pod: PodInfo, cols) -> Verdict:
        if not pod.node_name:
            return Verdict.uniform(cols.size, None)
        verdict = Verdict.uniform(cols.size, (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON,)))
        row = cols.position.get(pod.node_name)
        if row is not None:
            verdict.kinds[row] = 0
        return verdict

    # EnqueueExtensions ------------------------------------------------------------------
    def events_to_register(self) -> set[str]:
        # Only the arrival of the named node can help.
        return {"NodeAdd"}

    def queueing_hints(self) -> dict:
        return queueing_hints.for_node_name(self)


def new(args: dict, handle) -> NodeName:
    return NodeName()
