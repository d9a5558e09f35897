"""PreScore, Score and NormalizeScore for soft constraints (podtopologyspread/scoring.go)."""
from __future__ import annotations

import math

from ...columns import COLUMNS_KEY
from ...framework.cycle_state import CycleState, StateData
from ...framework.interfaces import MAX_NODE_SCORE, PreScorePlugin, ScoreExtensions, ScorePlugin
from ...framework.status import Status
from ...framework.vector_scores import rows_of
from ...labels import SelectorError
from . import vector
from .common import (
    LABEL_HOSTNAME,
    NAME,
    node_labels_match_spread_constraints,
    nodes_with_all_topology_keys,
    required_node_affinity,
)
from .vector import add_domain_counts

PRE_SCORE_STATE_KEY = "PreScore" + NAME
IGNORED_ROWS_KEY = "PreScore" + NAME + ".ignoredRows"
INVALID_SCORE = -1
MAX_INT64 = 2**63 - 1

_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_L1 = 6.666666666666735130e-01
_L2 = 3.999999999940941908e-01
_L3 = 2.857142874366239149e-01
_L4 = 2.222219843214978396e-01
_L5 = 1.818357216161805012e-01
_L6 = 1.531383769920937332e-01
_L7 = 1.479819860511658591e-01
_SQRT2_HALF = math.sqrt(2) / 2


def go_log(x: float) -> float:
    """Go's math.Log, step for step, so weights agree with kube-scheduler's to the last bit
    (the C library's log may round differently). Only called with x >= 2."""
    f1, ki = math.frexp(x)
    if f1 < _SQRT2_HALF:
        f1 *= 2
        ki -= 1
    f = f1 - 1
    k = float(ki)
    s = f / (2 + f)
    s2 = s * s
    s4 = s2 * s2
    t1 = s2 * (_L1 + s4 * (_L3 + s4 * (_L5 + s4 * _L7)))
    t2 = s4 * (_L2 + s4 * (_L4 + s4 * _L6))
    r = t1 + t2
    hfsq = 0.5 * f * f
    return k * _LN2_HI - ((hfsq - (s * (hfsq + r) + k * _LN2_LO)) - f)


def go_round(x: float) -> int:
    """Go's math.Round: half away from zero (Python's round() rounds half to even)."""
    t = math.trunc(x)
    if abs(x - t) >= 0.5:
        t += math.copysign(1.0, x)
    return int(t)


def topology_normalizing_weight(size: int) -> float:
    """log(size+2): pod counts of small topologies are not watered down by big ones."""
    return go_log(float(size + 2))


def score_for_count(cnt: int, max_skew: int, tp_weight: float) -> float:
    """maxSkew-1 is added so differences between domains get watered down by the tolerance."""
    return float(cnt) * tp_weight + float(max_skew - 1)


class PreScoreState(StateData):
    """Soft constraints, nodes to ignore, per-constraint pod counts by topology value, weights.

    Hostname constraints keep no counts: Score counts the node's own pods.
    """

    __slots__ = (
        "constraints",
        "ignored_nodes",
        "topology_normalizing_weight",
        "topology_value_to_pod_counts",
    )

    def __init__(self):
        self.constraints: list = []
        self.ignored_nodes: set[str] = set()
        self.topology_value_to_pod_counts: list[dict[str, int]] = []
        self.topology_normalizing_weight: list[float] = []

    def clone(self) -> PreScoreState:
        return self  # read-only after PreScore


def get_pre_score_state(state: CycleState) -> PreScoreState:
    s = state.get(PRE_SCORE_STATE_KEY)
    if s is None:
        raise LookupError(f'error reading "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
    return s


class Scoring(PreScorePlugin, ScorePlugin, ScoreExtensions):
    """The scoring half of PodTopologySpread; plugin.py supplies constraints and counting."""

    def init_pre_score_state(self, s: PreScoreState, pod, filtered_nodes,
                             require_all_topologies: bool, rows=None, cols=None) -> None:
        """Constraints, ignored nodes (missing a topology key), domains and their weights;
        on the columns when the filtered nodes' rows are given."""
        s.constraints = self.get_soft_constraints(pod)
        if not s.constraints:
            return
        if rows is not None:
            sizes = vector.init_pre_score_state(s, cols, rows, require_all_topologies)
            s.topology_normalizing_weight = [topology_normalizing_weight(n) for n in sizes]
            return
        counts: list[dict[str, int]] = [{} for _ in s.constraints]
        topo_size = [0] * len(s.constraints)
        for node_info in filtered_nodes:
            labels = node_info.labels
            if require_all_topologies and not node_labels_match_spread_constraints(
                    labels, s.constraints):
                s.ignored_nodes.add(node_info.name)
                continue
            for i, c in enumerate(s.constraints):
                if c.topology_key == LABEL_HOSTNAME:
                    continue  # per-node counts are taken in Score
                value = labels.get(c.topology_key, "")
                if value not in counts[i]:
                    counts[i][value] = 0
                    topo_size[i] += 1
        s.topology_value_to_pod_counts = counts
        weights = []
        for i, c in enumerate(s.constraints):
            size = topo_size[i]
            if c.topology_key == LABEL_HOSTNAME:
                size = len(filtered_nodes) - len(s.ignored_nodes)
            weights.append(topology_normalizing_weight(size))
        s.topology_normalizing_weight = weights

    def pre_score(self, state: CycleState, pod, filtered_nodes):
        all_nodes = self.handle.snapshot.list()
        if not all_nodes:
            return Status.skip()
        s = PreScoreState()
        # Only non-system-default spreading needs all topology keys on a node; this lets
        # nodes without a zone label still get hostname spreading.
        require_all = bool(pod.spec.get("topologySpreadConstraints")) or not self.system_defaulted
        cols = state.get(COLUMNS_KEY)
        rows = None
        if cols is not None and all_nodes is cols.node_infos:
            rows = rows_of(state, cols, filtered_nodes)
        try:
            self.init_pre_score_state(s, pod, filtered_nodes, require_all, rows, cols)
        except SelectorError as exc:
            return Status.as_error(ValueError(f"calculating preScoreState: {exc}"))
        if not s.constraints:
            return Status.skip()
        affinity = required_node_affinity(pod)
        if cols is not None and all_nodes is cols.node_infos \
                and not any(c.honors_policies(affinity) for c in s.constraints):
            # The per-node counts the columns keep, summed per domain: no rescan.
            add_domain_counts(cols, s.constraints, s.topology_value_to_pod_counts,
                              pod.namespace, self.counter, require_all)
            state.write(PRE_SCORE_STATE_KEY, s)
            return None
        eligible = all_nodes
        if require_all:
            eligible = nodes_with_all_topology_keys(all_nodes, s.constraints)
        for c, counts in zip(s.constraints, s.topology_value_to_pod_counts):
            if not counts:
                continue  # hostname constraints: Score counts the node's own pods
            key = c.topology_key
            # Domains without a candidate node are not counted.
            nodes = [ni for ni in eligible if ni.labels.get(key, "") in counts]
            if c.honors_policies(affinity):
                nodes = [ni for ni in nodes if c.matches_inclusion_policies(pod, ni, affinity)]
            for node_info, n in zip(nodes, self.counter.count_all(nodes, c, pod.namespace)):
                counts[node_info.labels.get(key, "")] += n
        state.write(PRE_SCORE_STATE_KEY, s)
        return None

    def score(self, state: CycleState, pod, node_info):
        """The weighted matching-pod count of the node's domains; NormalizeScore inverts it."""
        try:
            s = get_pre_score_state(state)
        except LookupError as exc:
            return 0, Status.as_error(exc)
        if node_info.name in s.ignored_nodes:
            return 0, None
        labels = node_info.labels
        score = 0.0
        for i, c in enumerate(s.constraints):
            value = labels.get(c.topology_key)
            if value is None:
                continue
            if c.topology_key == LABEL_HOSTNAME:
                cnt = self.counter.count(node_info, c, pod.namespace)
            else:
                cnt = s.topology_value_to_pod_counts[i].get(value, 0)
            score += score_for_count(cnt, c.max_skew, s.topology_normalizing_weight[i])
        return go_round(score), None

    def score_vector(self, state: CycleState, pod, cols, rows):
        """Score for every row at once (vector.score_vector); the per-node Score reports a
        missing state."""
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return None
        namespace = pod.namespace
        raw, ignored = vector.score_vector(s, cols, rows, lambda c: cols.pod_counts(
            ("PodTopologySpread", namespace, c.selector_key),
            lambda ni: self.counter.count(ni, c, namespace)))
        # NormalizeScore needs to know which of these scores belong to ignored nodes.
        state.write(IGNORED_ROWS_KEY, (raw, ignored))
        return raw

    def score_extensions(self):
        return self

    def normalize_vector(self, state: CycleState, pod, scores):
        """NormalizeScore on the array Score returned (None: normalize node by node)."""
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return None
        if not s.ignored_nodes:
            return vector.normalize_vector(scores, None)
        kept = state.get(IGNORED_ROWS_KEY)
        if kept is None or kept[0] is not scores:
            return None
        return vector.normalize_vector(scores, kept[1])

    def normalize_score(self, state: CycleState, pod, scores):
        try:
            s = get_pre_score_state(state)
        except LookupError as exc:
            return Status.as_error(exc)
        min_score, max_score = MAX_INT64, 0
        for ns in scores:
            # Ignored nodes must not take part in the min and max.
            if ns.name in s.ignored_nodes:
                ns.score = INVALID_SCORE
                continue
            min_score = min(min_score, ns.score)
            max_score = max(max_score, ns.score)
        for ns in scores:
            if ns.score == INVALID_SCORE:
                ns.score = 0
            elif max_score == 0:
                ns.score = MAX_NODE_SCORE
            else:
                ns.score = MAX_NODE_SCORE * (max_score + min_score - ns.score) // max_score
        return None
