"""One small interface per extension point (framework/interface.go).

A plugin is a class that subclasses the interfaces of the points it implements; the runtime
finds them by isinstance, as Go finds them by type assertion. Every method may return None for
a Success status.
"""
from __future__ import annotations

from .cycle_state import CycleState
from .status import Status
from .types import NodeInfo, PodInfo

MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0
MAX_TOTAL_SCORE = 2**63 - 1
MAX_PERMIT_TIMEOUT = 15 * 60.0  # seconds; longer Permit waits are capped (maxTimeout)


class Plugin:
    NAME = ""

    def name(self) -> str:
        return self.NAME


class PreEnqueuePlugin(Plugin):
    def pre_enqueue(self, pod: PodInfo) -> Status | None:
        raise NotImplementedError


class QueueSortPlugin(Plugin):
    def less(self, a, b) -> bool:
        """a and b are QueuedPodInfo: .pod (PodInfo), .timestamp, .seq."""
        raise NotImplementedError


class PreFilterResult:
    """Nodes a PreFilter plugin restricts the cycle to; None means all nodes."""

    __slots__ = ("node_names",)

    def __init__(self, node_names=None):
        self.node_names = None if node_names is None else set(node_names)

    def all_nodes(self) -> bool:
        return self.node_names is None

    def merge(self, other: PreFilterResult | None) -> PreFilterResult:
        if other is None or other.all_nodes():
            return self
        if self.all_nodes():
            return PreFilterResult(other.node_names)
        return PreFilterResult(self.node_names & other.node_names)


class PreFilterExtensions:
    def add_pod(self, state: CycleState, pod: PodInfo, pod_to_add: PodInfo,
                node_info: NodeInfo) -> Status | None:
        raise NotImplementedError

    def remove_pod(self, state: CycleState, pod: PodInfo, pod_to_remove: PodInfo,
                   node_info: NodeInfo) -> Status | None:
        raise NotImplementedError


class PreFilterPlugin(Plugin):
    def pre_filter(self, state: CycleState, pod: PodInfo,
                   nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        raise NotImplementedError

    def pre_filter_extensions(self) -> PreFilterExtensions | None:
        return None


class FilterPlugin(Plugin):
    # Filter looks at the node alone, never at the pods on it: its verdict on a node holds
    # whatever pods come and go there (preemption and nominated pods lean on it).
    NODE_ONLY = False

    def filter(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> Status | None:
        raise NotImplementedError


class PostFilterResult:
    __slots__ = ("nominated_node_name",)

    def __init__(self, nominated_node_name: str = ""):
        self.nominated_node_name = nominated_node_name


class PostFilterPlugin(Plugin):
    def post_filter(self, state: CycleState, pod: PodInfo,
                    node_to_status) -> tuple[PostFilterResult | None, Status]:
        """node_to_status is a NodeToStatus: .get(node_name) -> Status of that node's rejection."""
        raise NotImplementedError


class PreScorePlugin(Plugin):
    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status | None:
        raise NotImplementedError


class NodeScore:
    __slots__ = ("name", "score")

    def __init__(self, name: str, score: int):
        self.name = name
        self.score = score

    def __repr__(self):
        return f"NodeScore({self.name}={self.score})"


class ScoreExtensions:
    def normalize_score(self, state: CycleState, pod: PodInfo,
                        scores: list[NodeScore]) -> Status | None:
        raise NotImplementedError


class ScorePlugin(Plugin):
    def score(self, state: CycleState, pod: PodInfo,
              node_info: NodeInfo) -> tuple[int, Status | None]:
        raise NotImplementedError

    def score_extensions(self) -> ScoreExtensions | None:
        return None


class ReservePlugin(Plugin):
    def reserve(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None:
        raise NotImplementedError

    def unreserve(self, state: CycleState, pod: PodInfo, node_name: str) -> None:
        raise NotImplementedError


class PermitPlugin(Plugin):
    def permit(self, state: CycleState, pod: PodInfo,
               node_name: str) -> tuple[Status | None, float]:
        """Success, a rejection, or Status(Code.WAIT) with a timeout in seconds."""
        raise NotImplementedError


class PreBindPlugin(Plugin):
    def pre_bind(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None:
        raise NotImplementedError

    def pre_bind_pre_flight(self, state: CycleState, pod: PodInfo,
                            node_name: str) -> Status | None:
        """Whether PreBind will do work for the pod (Success) or not (Skip); Error stops
        binding. Go's PreBindPlugin requires it (v1.34+); a plugin that does not override it
        is taken as doing work, so its PreBind always runs."""
        return None

    # A PreBind that blocks while it polls (Go's wait.PollUntilContextTimeout inside PreBind)
    # returns Status(Code.WAIT) after its first check; the scheduler then goes on with other
    # pods and asks `pre_bind_poll` again after `pre_bind_poll_delay(waited)` virtual seconds,
    # until it answers with anything but Wait (the PreBind's final status).
    def pre_bind_poll_delay(self, waited: float) -> float:
        raise NotImplementedError

    def pre_bind_poll(self, state: CycleState, pod: PodInfo, node_name: str,
                      waited: float) -> Status | None:
        raise NotImplementedError


class BindPlugin(Plugin):
    def bind(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None:
        raise NotImplementedError


class PostBindPlugin(Plugin):
    def post_bind(self, state: CycleState, pod: PodInfo, node_name: str) -> None:
        raise NotImplementedError


class EnqueueExtensions:
    """Cluster events that may make a pod this plugin rejected schedulable again.

    Event names: AssignedPodAdd, AssignedPodDelete, AssignedPodUpdate, UnscheduledPodUpdate,
    NodeAdd, NodeUpdate, PvcAdd, PvAdd, StorageClassAdd, CSINodeAdd, PodGroupUpdate.
    """

    def events_to_register(self) -> set[str]:
        raise NotImplementedError


# Extension point name -> interface, in pipeline order.
EXTENSION_POINTS = {
    "preEnqueue": PreEnqueuePlugin,
    "queueSort": QueueSortPlugin,
    "preFilter": PreFilterPlugin,
    "filter": FilterPlugin,
    "postFilter": PostFilterPlugin,
    "preScore": PreScorePlugin,
    "score": ScorePlugin,
    "reserve": ReservePlugin,
    "permit": PermitPlugin,
    "preBind": PreBindPlugin,
    "bind": BindPlugin,
    "postBind": PostBindPlugin,
}
