"""PreFilter, AddPod, RemovePod and Filter: hard constraints (podtopologyspread/filtering.go)."""
from __future__ import annotations

from ...columns import COLUMNS_KEY
from ...columns.verdict import Verdict
from ...framework.cycle_state import CycleState, StateData
from ...framework.interfaces import FilterPlugin, PreFilterExtensions, PreFilterPlugin
from ...framework.status import Status
from ...labels import SelectorError
from .common import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH,
    ERR_REASON_NODE_LABEL_NOT_MATCH,
    NAME,
    node_labels_match_spread_constraints,
    nodes_with_all_topology_keys,
    required_node_affinity,
)
from .vector import filter_verdict, kept_domain_counts

PRE_FILTER_STATE_KEY = "PreFilter" + NAME
MAX_INT32 = 2**31 - 1


class CriticalPaths:
    """The two domains with the fewest matching pods for one constraint (criticalPaths).

    Slot 0 always holds the minimum; slot 1 is at least as large but not necessarily the
    second minimum. Two suffice because preemption only removes pods from one node, and each
    node is evaluated on its own copy of the state.
    """

    __slots__ = ("num0", "num1", "value0", "value1")

    def __init__(self, value0="", num0=MAX_INT32, value1="", num1=MAX_INT32):
        self.value0, self.num0, self.value1, self.num1 = value0, num0, value1, num1

    def update(self, tp_value: str, num: int) -> None:
        if tp_value == self.value0:
            self.num0 = num
        elif tp_value == self.value1:
            self.num1 = num
        else:
            if num < self.num0:
                self.value1, self.num1 = self.value0, self.num0
                self.value0, self.num0 = tp_value, num
            elif num < self.num1:
                self.value1, self.num1 = tp_value, num
            return
        if self.num0 > self.num1:
            self.value0, self.num0, self.value1, self.num1 = (
                self.value1, self.num1, self.value0, self.num0)

    def clone(self) -> CriticalPaths:
        return CriticalPaths(self.value0, self.num0, self.value1, self.num1)

    def pairs(self) -> list[tuple[str, int]]:
        return [(self.value0, self.num0), (self.value1, self.num1)]

    def __repr__(self):
        return f"CriticalPaths({self.pairs()})"


class PreFilterState(StateData):
    """Per-constraint matching-pod counts by topology value and their critical paths.

    An empty state (no constraints) is legit and lets every node pass. self_match[i] is 1 when
    the incoming pod matches constraint i's selector: the pod's labels do not change during a
    cycle, so it is computed once here instead of per node in Filter. class_counts: on the
    columns, tp_value_to_match_num's counts per class of nodes alike under each constraint's
    key, for the vectorized Filter (None once AddPod or RemovePod changed the counts).
    """

    __slots__ = ("class_counts", "constraints", "critical_paths", "self_match",
                 "tp_value_to_match_num")

    def __init__(self, constraints=(), critical_paths=(), tp_value_to_match_num=(),
                 self_match=(), class_counts=None):
        self.constraints = list(constraints)
        self.critical_paths = list(critical_paths)
        self.tp_value_to_match_num = list(tp_value_to_match_num)
        self.self_match = list(self_match)
        self.class_counts = class_counts

    def min_match_num(self, i: int, min_domains: int) -> int:
        """The global minimum for the skew; 0 while there are fewer domains than minDomains."""
        if len(self.tp_value_to_match_num[i]) < min_domains:
            return 0
        return self.critical_paths[i].num0

    def clone(self) -> PreFilterState:
        # Constraints and self-matches never change once computed, so they are shared.
        copy = PreFilterState.__new__(PreFilterState)
        copy.constraints = self.constraints
        copy.self_match = self.self_match
        copy.class_counts = self.class_counts
        copy.critical_paths = [p.clone() for p in self.critical_paths]
        copy.tp_value_to_match_num = [dict(m) for m in self.tp_value_to_match_num]
        return copy


def get_pre_filter_state(state: CycleState) -> PreFilterState:
    s = state.get(PRE_FILTER_STATE_KEY)
    if s is None:
        raise LookupError(f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
    return s


class Filtering(PreFilterPlugin, PreFilterExtensions, FilterPlugin):
    """The filtering half of PodTopologySpread; plugin.py supplies constraints and counting."""

    def pre_filter(self, state: CycleState, pod, nodes):
        try:
            s = self.cal_pre_filter_state(pod, nodes, state.get(COLUMNS_KEY))
        except SelectorError as exc:
            return None, Status.as_error(ValueError(f"get constraints from pod: {exc}"))
        if not s.constraints:
            return None, Status.skip()
        state.write(PRE_FILTER_STATE_KEY, s)
        return None, None

    def pre_filter_extensions(self):
        return self

    def add_pod(self, state: CycleState, pod, pod_to_add, node_info):
        try:
            s = get_pre_filter_state(state)
        except LookupError as exc:
            return Status.as_error(exc)
        self.update_with_pod(s, pod_to_add, pod, node_info, 1)
        return None

    def remove_pod(self, state: CycleState, pod, pod_to_remove, node_info):
        try:
            s = get_pre_filter_state(state)
        except LookupError as exc:
            return Status.as_error(exc)
        self.update_with_pod(s, pod_to_remove, pod, node_info, -1)
        return None

    def update_with_pod(self, s: PreFilterState, updated_pod, preemptor_pod, node_info,
                        delta: int) -> None:
        if s is None or updated_pod.namespace != preemptor_pod.namespace or not node_info.name:
            return
        labels = node_info.labels
        if not node_labels_match_spread_constraints(labels, s.constraints):
            return
        affinity = required_node_affinity(preemptor_pod)
        s.class_counts = None
        for i, c in enumerate(s.constraints):
            if not c.selector.matches(updated_pod.labels):
                continue
            if not c.matches_inclusion_policies(preemptor_pod, node_info, affinity):
                continue
            value = labels[c.topology_key]
            counts = s.tp_value_to_match_num[i]
            counts[value] = counts.get(value, 0) + delta
            s.critical_paths[i].update(value, counts[value])

    def cal_pre_filter_state(self, pod, all_nodes, cols=None) -> PreFilterState:
        """How the pods matching each hard constraint spread over its topology domains.

        With the snapshot's columns the per-domain counts come from per-node counts the
        columns keep up to date, the inclusion policies applied as a mask of rows.
        """
        constraints = self.get_constraints(pod)
        if not constraints:
            return PreFilterState()
        affinity = required_node_affinity(pod)
        if cols is not None and all_nodes is cols.node_infos:
            counts, per_class, pairs = kept_domain_counts(cols, constraints, pod, affinity,
                                                          self.counter)
            s = self._state_from(pod, constraints, counts, pairs)
            s.class_counts = per_class
            return s
        counts: list[dict[str, int]] = [{} for _ in constraints]
        # Only nodes holding every topology key take part in spreading.
        eligible = nodes_with_all_topology_keys(all_nodes, constraints)
        for c, tp_counts in zip(constraints, counts):
            nodes = eligible
            if c.honors_policies(affinity):
                nodes = [ni for ni in eligible
                         if c.matches_inclusion_policies(pod, ni, affinity)]
            key = c.topology_key
            for node_info, n in zip(nodes, self.counter.count_all(nodes, c, pod.namespace)):
                value = node_info.labels[key]
                tp_counts[value] = tp_counts.get(value, 0) + n
        return self._state_from(pod, constraints, counts)

    @staticmethod
    def _state_from(pod, constraints, counts, pairs=None) -> PreFilterState:
        """pairs: per constraint, its critical paths found at once, or None to update them
        value by value."""
        paths = []
        for i, tp_counts in enumerate(counts):
            found = pairs[i] if pairs is not None else None
            if found is not None:
                paths.append(CriticalPaths(*found))
                continue
            p = CriticalPaths()
            for value, num in tp_counts.items():
                p.update(value, num)
            paths.append(p)
        self_match = [1 if c.selector.matches(pod.labels) else 0 for c in constraints]
        return PreFilterState(constraints, paths, counts, self_match)

    def filter_vector(self, state: CycleState, pod, cols) -> Verdict | None:
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return None  # the per-node Filter reports the missing state
        if not s.constraints:
            return Verdict.uniform(cols.size, None)
        return filter_verdict(s, cols)

    def filter(self, state: CycleState, pod, node_info):
        try:
            s = get_pre_filter_state(state)
        except LookupError as exc:
            return Status.as_error(exc)
        # An empty state is legit: it tolerates every pod.
        if not s.constraints:
            return None
        labels = node_info.labels
        for i, c in enumerate(s.constraints):
            key = c.topology_key
            if key not in labels:
                return Status.unresolvable(ERR_REASON_NODE_LABEL_NOT_MATCH)
            # existing matching pods + the pod itself if it matches - global minimum <= maxSkew
            skew = (s.tp_value_to_match_num[i].get(labels[key], 0) + s.self_match[i]
                    - s.min_match_num(i, c.min_domains))
            if skew > c.max_skew:
                return Status.unschedulable(ERR_REASON_CONSTRAINTS_NOT_MATCH)
        return None
