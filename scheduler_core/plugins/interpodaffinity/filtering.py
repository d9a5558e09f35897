"""InterPodAffinity PreFilter (with AddPod/RemovePod) and Filter (filtering.go).

PreFilter counts, per topology pair (key, value), the existing pods whose required
anti-affinity matches the incoming pod and the existing pods that match the incoming pod's
required affinity and anti-affinity terms. Filter then only looks those counts up.
"""
from __future__ import annotations

from ...columns.verdict import Verdict
from ...framework.cycle_state import CycleState, StateData
from ...framework.interfaces import (
    FilterPlugin,
    PreFilterExtensions,
    PreFilterPlugin,
    PreFilterResult,
)
from ...framework.status import Code, Status
from ...framework.types import NodeInfo, PodInfo
from ..names import INTER_POD_AFFINITY
from . import vector
from .terms import AffinityTerm, parsed_affinity, pod_matches_all_affinity_terms

PRE_FILTER_STATE_KEY = "PreFilter" + INTER_POD_AFFINITY

ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = \
    "node(s) didn't satisfy existing pods anti-affinity rules"
ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules"
# What each kind of vector.filter_kinds means.
OUTCOMES = {
    vector.AFFINITY_NOT_MATCH: (Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                (ERR_REASON_AFFINITY_RULES_NOT_MATCH,)),
    vector.ANTI_AFFINITY_NOT_MATCH: (
        Code.UNSCHEDULABLE, (ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,)),
    vector.EXISTING_ANTI_AFFINITY_NOT_MATCH: (
        Code.UNSCHEDULABLE, (ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,)),
}


def _update(counts: dict, node_labels: dict, topology_key: str, value: int) -> None:
    """Add value to the node's pair for the key; a pair brought down to zero is dropped."""
    if topology_key in node_labels:
        pair = (topology_key, node_labels[topology_key])
        count = counts.get(pair, 0) + value
        if count:
            counts[pair] = count
        else:
            del counts[pair]


def update_with_affinity_terms(counts: dict, terms: list[AffinityTerm], pod: PodInfo,
                               node_labels: dict, value: int) -> None:
    """Count the pod once per term, if it matches ALL the terms."""
    if pod_matches_all_affinity_terms(terms, pod):
        for term in terms:
            _update(counts, node_labels, term.topology_key, value)


def update_with_anti_affinity_terms(counts: dict, terms: list[AffinityTerm], pod: PodInfo,
                                    ns_labels: dict | None, node_labels: dict,
                                    value: int) -> None:
    """Count the pod once per term it matches."""
    for term in terms:
        if term.matches(pod, ns_labels):
            _update(counts, node_labels, term.topology_key, value)


class PreFilterState(StateData):
    """Topology pair -> count maps (dicts, or pair_counts.PairCounts on the columns), plus the
    incoming pod's terms (namespace selectors merged)."""

    __slots__ = (
        "affinity_counts",
        "affinity_terms",
        "anti_affinity_counts",
        "anti_affinity_terms",
        "existing_anti_affinity_counts",
        "namespace_labels",
        "pod",
    )

    def __init__(self, pod: PodInfo, affinity_terms: list[AffinityTerm],
                 anti_affinity_terms: list[AffinityTerm], namespace_labels: dict,
                 existing_anti_affinity_counts: dict, affinity_counts: dict,
                 anti_affinity_counts: dict):
        self.pod = pod
        self.affinity_terms = affinity_terms
        self.anti_affinity_terms = anti_affinity_terms
        self.namespace_labels = namespace_labels
        self.existing_anti_affinity_counts = existing_anti_affinity_counts
        self.affinity_counts = affinity_counts
        self.anti_affinity_counts = anti_affinity_counts

    def clone(self) -> PreFilterState:
        # The pod and its terms never change during a cycle; only the counts are copied.
        return PreFilterState(self.pod, self.affinity_terms, self.anti_affinity_terms,
                              self.namespace_labels, self.existing_anti_affinity_counts.copy(),
                              self.affinity_counts.copy(), self.anti_affinity_counts.copy())

    def update_with_pod(self, pod: PodInfo, node_labels: dict, multiplier: int) -> None:
        """Account for a pod added to (1) or removed from (-1) a node."""
        update_with_anti_affinity_terms(
            self.existing_anti_affinity_counts, parsed_affinity(pod).required_anti_affinity,
            self.pod, self.namespace_labels, node_labels, multiplier)
        update_with_affinity_terms(self.affinity_counts, self.affinity_terms, pod, node_labels,
                                   multiplier)
        # The incoming pod's terms carry their namespaces by name: no namespace labels needed.
        update_with_anti_affinity_terms(self.anti_affinity_counts, self.anti_affinity_terms, pod,
                                        None, node_labels, multiplier)


def existing_anti_affinity_counts(pod: PodInfo, ns_labels: dict,
                                  nodes: list[NodeInfo]) -> dict:
    """Pairs of the nodes whose existing pods have a required anti-affinity term matching pod."""
    counts: dict = {}
    for node_info in nodes:
        labels = node_info.labels
        for existing in node_info.pods_with_required_anti_affinity:
            for term in parsed_affinity(existing).required_anti_affinity:
                if term.matches(pod, ns_labels) and term.topology_key in labels:
                    pair = (term.topology_key, labels[term.topology_key])
                    counts[pair] = counts.get(pair, 0) + 1
    return counts


def incoming_affinity_anti_affinity_counts(affinity_terms: list[AffinityTerm],
                                           anti_affinity_terms: list[AffinityTerm],
                                           nodes: list[NodeInfo]) -> tuple[dict, dict]:
    """Pairs of the existing pods matching all of the incoming pod's affinity terms (one count
    per term) and each of its anti-affinity terms."""
    affinity: dict = {}
    anti_affinity: dict = {}
    if not affinity_terms and not anti_affinity_terms:
        return affinity, anti_affinity
    for node_info in nodes:
        pods = node_info.pods
        if not pods:
            continue
        labels = node_info.labels
        # Count the node's matching pods first, then credit the node's pairs once.
        if affinity_terms:
            matched = sum(1 for p in pods if pod_matches_all_affinity_terms(affinity_terms, p))
            if matched:
                for term in affinity_terms:
                    _credit(affinity, labels, term.topology_key, matched)
        for term in anti_affinity_terms:
            if term.topology_key not in labels:
                continue
            matched = sum(1 for p in pods if term.matches(p, None))
            if matched:
                _credit(anti_affinity, labels, term.topology_key, matched)
    return affinity, anti_affinity


def _credit(counts: dict, labels: dict, topology_key: str, matched: int) -> None:
    if topology_key in labels:
        pair = (topology_key, labels[topology_key])
        counts[pair] = counts.get(pair, 0) + matched


def satisfy_existing_pods_anti_affinity(state: PreFilterState, node_info: NodeInfo) -> bool:
    """No existing pod's anti-affinity term matching the pod covers any of the node's pairs."""
    counts = state.existing_anti_affinity_counts
    if counts:
        for pair in node_info.labels.items():
            if counts.get(pair, 0) > 0:
                return False
    return True


def satisfy_pod_anti_affinity(state: PreFilterState, node_info: NodeInfo) -> bool:
    counts = state.anti_affinity_counts
    if counts:
        labels = node_info.labels
        for term in state.anti_affinity_terms:
            key = term.topology_key
            if key in labels and counts.get((key, labels[key]), 0) > 0:
                return False
    return True


def satisfy_pod_affinity(state: PreFilterState, node_info: NodeInfo) -> bool:
    labels = node_info.labels
    counts = state.affinity_counts
    pods_exist = True
    for term in state.affinity_terms:
        key = term.topology_key
        if key not in labels:
            return False  # the node must carry every topology key
        if counts.get((key, labels[key]), 0) <= 0:
            pods_exist = False
    if not pods_exist:
        # The first pod of a group whose terms select itself: no pod matches anywhere yet, and
        # the pod matches its own terms, so it may go to any node with the topology keys.
        return not counts and pod_matches_all_affinity_terms(state.affinity_terms, state.pod)
    return True


def get_pre_filter_state(state: CycleState) -> PreFilterState | Status:
    data = state.get(PRE_FILTER_STATE_KEY)
    if data is None:
        return Status.as_error(
            f'error reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
    return data


class Filtering(PreFilterPlugin, PreFilterExtensions, FilterPlugin):
    """The filtering half of InterPodAffinity; needs self.handle."""

    def pre_filter(self, state: CycleState, pod: PodInfo,
                   nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        snapshot = self.handle.snapshot
        objects = self.handle.objects
        parsed = parsed_affinity(pod)
        if parsed.error:
            return None, Status.unresolvable(f"parsing pod: {parsed.error}")
        affinity_terms = [t.with_merged_namespaces(objects) for t in parsed.required_affinity]
        anti_affinity_terms = [t.with_merged_namespaces(objects)
                               for t in parsed.required_anti_affinity]
        ns_labels = objects.namespace_labels(pod.namespace)
        cols = vector.snapshot_columns(state, snapshot)
        index = vector.term_index(cols) if cols is not None else None
        if index is not None:
            existing = vector.existing_anti_affinity_counts(index, cols, pod, ns_labels)
            if not existing and not affinity_terms and not anti_affinity_terms:
                return None, Status.skip()   # the incoming counts would be empty too
            affinity, anti_affinity = vector.incoming_counts(cols, affinity_terms,
                                                             anti_affinity_terms)
        else:
            existing = existing_anti_affinity_counts(
                pod, ns_labels, snapshot.have_pods_with_required_anti_affinity_list)
            affinity, anti_affinity = incoming_affinity_anti_affinity_counts(
                affinity_terms, anti_affinity_terms, snapshot.list())
        if not existing and not affinity_terms and not anti_affinity_terms:
            return None, Status.skip()
        state.write(PRE_FILTER_STATE_KEY, PreFilterState(
            pod, affinity_terms, anti_affinity_terms, ns_labels, existing, affinity,
            anti_affinity))
        return None, None

    def pre_filter_extensions(self) -> PreFilterExtensions:
        return self

    def add_pod(self, state: CycleState, pod: PodInfo, pod_to_add: PodInfo,
                node_info: NodeInfo) -> Status | None:
        s = get_pre_filter_state(state)
        if isinstance(s, Status):
            return s
        s.update_with_pod(pod_to_add, node_info.labels, 1)
        return None

    def remove_pod(self, state: CycleState, pod: PodInfo, pod_to_remove: PodInfo,
                   node_info: NodeInfo) -> Status | None:
        s = get_pre_filter_state(state)
        if isinstance(s, Status):
            return s
        s.update_with_pod(pod_to_remove, node_info.labels, -1)
        return None

    def filter_vector(self, state: CycleState, pod: PodInfo, cols) -> Verdict | None:
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return None  # the per-node Filter reports the missing state
        return Verdict(vector.filter_kinds(s, cols), OUTCOMES)

    def filter(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> Status | None:
        s = get_pre_filter_state(state)
        if isinstance(s, Status):
            return s
        if not satisfy_pod_affinity(s, node_info):
            return Status.unresolvable(ERR_REASON_AFFINITY_RULES_NOT_MATCH)
        if not satisfy_pod_anti_affinity(s, node_info):
            return Status.unschedulable(ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)
        if not satisfy_existing_pods_anti_affinity(s, node_info):
            return Status.unschedulable(ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)
        return None
