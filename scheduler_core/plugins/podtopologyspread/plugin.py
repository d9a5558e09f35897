"""PodTopologySpread: constraints, construction and requeueing (podtopologyspread/plugin.go).

PreFilter/AddPod/RemovePod/Filter live in filtering.py, PreScore/Score/NormalizeScore in
scoring.py, as in Go; this class ties them to the pod's constraints and the cluster objects.
"""
from __future__ import annotations

from ...framework.interfaces import EnqueueExtensions
from ...labels import SelectorError
from . import queueing_hints
from .common import (
    DO_NOT_SCHEDULE,
    HONOR,
    LABEL_HOSTNAME,
    LABEL_TOPOLOGY_ZONE,
    NAME,
    SCHEDULE_ANYWAY,
    MatchCounter,
    default_selector,
    filter_topology_spread_constraints,
    node_labels_match_spread_constraints,
    pod_labels_match_spread_constraints,
)
from .filtering import Filtering
from .scoring import Scoring
from .validation import SYSTEM_DEFAULTING, default_args, validate_args

SYSTEM_DEFAULT_CONSTRAINTS = [
    {"topologyKey": LABEL_HOSTNAME, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 3},
    {"topologyKey": LABEL_TOPOLOGY_ZONE, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 5},
]

# Queueing hints, as framework.Queue and framework.QueueSkip.
QUEUE = "Queue"
QUEUE_SKIP = "QueueSkip"

_WORDS = {DO_NOT_SCHEDULE: "hard", SCHEDULE_ANYWAY: "soft"}


class PodTopologySpread(Filtering, Scoring, EnqueueExtensions):
    """Spreads pods that match a selector evenly over topology domains."""

    NAME = NAME

    def __init__(self, handle, default_constraints: list[dict], system_defaulted: bool):
        self.handle = handle
        self.system_defaulted = system_defaulted
        self.counter = MatchCounter()
        # The default constraints' selectors are deduced per pod; parse the rest once.
        self.default_constraints = {
            action: filter_topology_spread_constraints(default_constraints, {}, action)
            for action in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY)
        }

    # --- constraints ------------------------------------------------------------------------
    def _pod_constraints(self, pod, action: str) -> list:
        """The pod's own constraints for one action, parsed once per PodInfo."""
        parsed = pod.parsed.get(NAME)
        if parsed is None:
            parsed = pod.parsed[NAME] = {}
        result = parsed.get(action)
        if result is None:
            try:
                result = filter_topology_spread_constraints(
                    pod.spec.get("topologySpreadConstraints"), pod.labels, action)
            except SelectorError as exc:
                result = exc
            parsed[action] = result
        if isinstance(result, SelectorError):
            raise SelectorError(
                f"obtaining pod's {_WORDS[action]} topology spread constraints: {result}")
        return result

    def build_default_constraints(self, pod, action: str) -> list:
        """buildDefaultConstraints: the default constraints with the selector of the Services,
        ReplicationControllers, ReplicaSets and StatefulSets that select the pod; none when
        nothing selects it."""
        constraints = self.default_constraints[action]
        if not constraints:
            return []
        selector = default_selector(pod, getattr(self.handle, "objects", None))
        if selector.is_empty():
            return []
        return [c.with_selector(selector) for c in constraints]

    def _constraints(self, pod, action: str) -> list:
        if pod.spec.get("topologySpreadConstraints"):
            return self._pod_constraints(pod, action)
        return self.build_default_constraints(pod, action)

    def get_constraints(self, pod) -> list:
        """getConstraints: the hard constraints, the pod's own or else the defaults."""
        return self._constraints(pod, DO_NOT_SCHEDULE)

    def get_soft_constraints(self, pod) -> list:
        return self._constraints(pod, SCHEDULE_ANYWAY)

    # --- EnqueueExtensions ----------------------------------------------------------------------
    def events_to_register(self) -> set[str]:
        # Assigned pods added, relabelled or deleted change the counts; the pending pod's own
        # label or toleration update can change its constraints; a node added or relabelled
        # (or retainted) can add a domain.
        return {"AssignedPodAdd", "AssignedPodUpdate", "AssignedPodDelete",
                "UnscheduledPodUpdate", "NodeAdd", "NodeUpdate"}

    def queueing_hints(self) -> dict:
        return queueing_hints.for_pod_topology_spread(self)

    def is_schedulable_after_pod_change(self, pod, old_pod, new_pod) -> str:
        """isSchedulableAfterPodChange: old_pod/new_pod are PodInfos (None for add/delete)."""
        for other in (new_pod, old_pod):
            if other is not None and not _involved_in_topology_spreading(other, pod):
                return QUEUE_SKIP
        try:
            constraints = self.get_constraints(pod)
        except SelectorError:
            return QUEUE
        if new_pod is not None and old_pod is not None:
            if (pod.uid == new_pod.uid and new_pod.tolerations != old_pod.tolerations
                    and any(c.node_taints_policy == HONOR for c in constraints)):
                return QUEUE  # a new toleration may let a tainted node's domain count
            if new_pod.labels == old_pod.labels:
                return QUEUE_SKIP
            for c in constraints:
                if c.selector.matches(old_pod.labels) != c.selector.matches(new_pod.labels):
                    return QUEUE
            return QUEUE_SKIP
        changed = new_pod if new_pod is not None else old_pod
        if pod_labels_match_spread_constraints(constraints, changed.labels):
            return QUEUE
        return QUEUE_SKIP

    def is_schedulable_after_node_change(self, pod, old_node, new_node) -> str:
        """isSchedulableAfterNodeChange: old_node/new_node are Node manifests (None for
        add/delete)."""
        try:
            constraints = self.get_constraints(pod)
        except SelectorError:
            return QUEUE
        old_labels = _node_labels(old_node)
        new_labels = _node_labels(new_node)
        old_matching = old_node is not None and node_labels_match_spread_constraints(
            old_labels, constraints)
        new_matching = new_node is not None and node_labels_match_spread_constraints(
            new_labels, constraints)
        if old_node is not None and new_node is not None:
            if old_matching != new_matching:
                return QUEUE
            if new_matching and (
                    any(old_labels.get(c.topology_key) != new_labels.get(c.topology_key)
                        for c in constraints)
                    or _node_taints(old_node) != _node_taints(new_node)):
                return QUEUE
            return QUEUE_SKIP
        if new_node is not None:
            return QUEUE if new_matching else QUEUE_SKIP
        return QUEUE if old_matching else QUEUE_SKIP


def _involved_in_topology_spreading(incoming, pod) -> bool:
    """The incoming pod is the pod itself, or an assigned pod of its namespace."""
    return incoming.uid == pod.uid or (bool(incoming.node_name)
                                       and incoming.namespace == pod.namespace)


def _node_labels(node: dict | None) -> dict:
    return ((node or {}).get("metadata") or {}).get("labels") or {}


def _node_taints(node: dict) -> list:
    return (node.get("spec") or {}).get("taints") or []


def new(args: dict, handle) -> PodTopologySpread:
    args = default_args(args)
    errs = validate_args(args, "")
    if errs:
        raise ValueError(errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]")
    if args["defaultingType"] == SYSTEM_DEFAULTING:
        return PodTopologySpread(handle, SYSTEM_DEFAULT_CONSTRAINTS, system_defaulted=True)
    return PodTopologySpread(handle, args.get("defaultConstraints") or [], system_defaulted=False)
