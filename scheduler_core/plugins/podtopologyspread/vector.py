"""PodTopologySpread on the columns: PreFilter's per-domain counts summed from per-node counts
the columns keep up to date (instead of rescanning every node's pods each cycle), Filter decided
on arrays once per class of nodes alike under the topology keys, and Score's per-node sums.

Used only where it gives what the per-node code gives: every node of the snapshot. Inclusion
policies become a mask of the rows whose nodes count for a constraint (taints decided once per
group of nodes with the same taints).
"""
from __future__ import annotations

from functools import partial
from itertools import repeat

import numpy as np

from ...columns.verdict import Verdict
from ...framework.interfaces import MAX_NODE_SCORE
from ...framework.status import Code
from ...taints import does_not_schedule, find_untolerated_taint
from .common import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH,
    ERR_REASON_NODE_LABEL_NOT_MATCH,
    LABEL_HOSTNAME,
)

MAX_INT32 = 2**31 - 1
MAX_INT64 = 2**63 - 1
FEW_DOMAINS = 32   # up to this many, plain Python beats numpy's cost per call
INVALID_SCORE = -1


def filter_verdict(s, cols) -> Verdict:
    """Filter for every node, on arrays over the classes of nodes alike under the keys: a
    node's first failing constraint decides, a missing key before the skew, as in Filter."""
    keys = tuple(sorted({c.topology_key for c in s.constraints}))
    class_ids, classes = cols.label_classes(keys)
    n = len(classes)
    kinds = np.zeros(n, np.int8)   # 0 passes, 1 misses a key, 2 skews too far
    for i, c in enumerate(s.constraints):
        values = cols.class_values(keys, c.topology_key)
        if s.class_counts is not None and keys == (c.topology_key,):
            counts = s.class_counts[i]   # PreFilter's, per class of these very keys
        else:
            counts = np.array(list(map(s.tp_value_to_match_num[i].get, values, repeat(0, n))),
                              np.int64)
        skew = counts + (s.self_match[i] - s.min_match_num(i, c.min_domains))
        open_ = kinds == 0
        missing = cols.class_lacks(keys, c.topology_key)
        kinds[open_ & missing] = 1
        kinds[open_ & ~missing & (skew > c.max_skew)] = 2
    present = set(kinds.tolist()) - {0}
    if not present:
        return Verdict.uniform(cols.size, None)
    return Verdict(_kinds_by_row(cols, keys, class_ids, kinds), {k: MEANING[k] for k in present})


MEANING = {1: (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_NODE_LABEL_NOT_MATCH,)),
           2: (Code.UNSCHEDULABLE, (ERR_REASON_CONSTRAINTS_NOT_MATCH,))}
MAX_KINDS_KEPT = 64


def _kinds_by_row(cols, keys, class_ids, kinds) -> np.ndarray:
    """kinds (per class of label_classes(keys)) spread over the rows, read-only and kept per
    pattern: a few domains give few patterns, and each costs a pass over every row."""
    kept = cols.derived(("PodTopologySpread kinds", keys), lambda: [None, {}])
    if kept[0] is not class_ids or len(kept[1]) >= MAX_KINDS_KEPT:
        kept[0], kept[1] = class_ids, {}   # labels changed: new classes
    pattern = kinds.tobytes()
    by_row = kept[1].get(pattern)
    if by_row is None:
        by_row = kept[1][pattern] = kinds.astype(np.int32)[class_ids]
        by_row.flags.writeable = False
    return by_row


def policy_mask(cols, c, pod, affinity) -> np.ndarray | None:
    """The rows whose nodes count for constraint c under its inclusion policies
    (matchNodeInclusionPolicies), or None when every node does."""
    if not c.honors_policies(affinity):
        return None
    mask = np.ones(cols.size, bool)
    if c.node_affinity_policy == "Honor" and affinity is not None:
        mask &= np.fromiter((affinity(ni) for ni in cols.node_infos), bool, cols.size)
    if c.node_taints_policy == "Honor":
        tolerated = np.array([not taints or find_untolerated_taint(
            taints, pod.tolerations, does_not_schedule) is None for taints in cols.taint_groups],
            bool)
        mask &= tolerated[cols.taint_group]
    return mask


def _eligible(cols, constraints) -> np.ndarray:
    """The rows holding every constraint's key (the columns' own array for a single key)."""
    keys = {c.topology_key for c in constraints}
    if len(keys) == 1:
        return cols.has_label(keys.pop())
    eligible = np.ones(cols.size, bool)
    for key in keys:
        eligible &= cols.has_label(key)
    return eligible


class KeptDomains:
    """One constraint's matching pods per topology value over the nodes that count for it,
    kept across cycles: a cycle that changed a few rows adds their count changes to the
    domains they belong to. When a changed row joins or leaves the nodes that count, or labels
    change, it is summed again (the domains' first-appearance order may change)."""

    __slots__ = ("class_ids", "member", "order", "row_counts", "sums", "tp_counts", "values",
                 "version")

    def __init__(self, cols, key: str, member: np.ndarray, counts: np.ndarray):
        class_ids, _ = cols.label_classes((key,))
        self.class_ids = class_ids
        self.values = cols.class_values((key,), key)
        self.member = member
        self.row_counts = counts.copy()
        rows = np.flatnonzero(member)
        row_classes = class_ids[rows]
        self.sums = np.bincount(row_classes, weights=counts[rows],
                                minlength=len(self.values)).astype(np.int64)
        present, first_row = np.unique(row_classes, return_index=True)
        self.order = present[np.argsort(first_row, kind="stable")]
        values, sums = self.values, self.sums.tolist()
        self.tp_counts = {values[cid]: sums[cid] for cid in self.order.tolist()}
        self.version = cols.version

    def critical_pair(self) -> tuple[str, int, str, int] | None:
        """critical_pair(self.tp_counts), from the sums in domain order."""
        if len(self.order) <= FEW_DOMAINS or "" in self.tp_counts:
            return critical_pair(self.tp_counts)
        nums = self.sums[self.order]
        first = int(np.argmin(nums))   # the earliest of the smallest
        v0, n0 = self.values[int(self.order[first])], int(nums[first])
        nums[first] = MAX_INT64
        second = int(np.argmin(nums))
        return v0, n0, self.values[int(self.order[second])], int(nums[second])

    def refresh(self, cols, key: str, member: np.ndarray, counts: np.ndarray) -> None:
        """Brought up to date with the columns, by the changed rows or summed again."""
        if self.class_ids is not cols.label_classes((key,))[0]:
            self.__init__(cols, key, member, counts)
            return
        if self.version == cols.version:
            return
        changed = cols.changed_since(self.version)
        if member is not self.member and (member[changed] != self.member[changed]).any():
            self.__init__(cols, key, member, counts)
            return
        self.version = cols.version
        if len(changed) > FEW_DOMAINS:
            delta = counts[changed] - self.row_counts[changed]
            self.row_counts[changed] = counts[changed]
            moved = (delta != 0) & member[changed]
            self._add(changed[moved].tolist(), delta[moved].tolist())
            return
        # A cycle changes a row or two: numpy's fixed cost per call would dominate.
        rows, deltas = [], []
        for row in changed.tolist():
            d = int(counts[row]) - int(self.row_counts[row])
            if d:
                self.row_counts[row] = counts[row]
                if member[row]:
                    rows.append(row)
                    deltas.append(d)
        self._add(rows, deltas)

    def _add(self, rows: list[int], deltas: list[int]) -> None:
        for row, d in zip(rows, deltas):
            cid = self.class_ids[row]
            self.sums[cid] += d
            self.tp_counts[self.values[cid]] += d


def _tolerations_key(pod) -> str:
    return repr(pod.tolerations)


def kept_domain_counts(cols, constraints, pod, affinity, counter):
    """Per constraint, matching pods per topology value over the nodes holding every key and
    counting under the constraint's policies, in the order the values first appear; and,
    the counts per class of label_classes((key,)), and the critical paths' pairs. Kept
    across cycles (KeptDomains), except where node affinity is honoured."""
    eligible = _eligible(cols, constraints)
    keys = tuple(sorted({c.topology_key for c in constraints}))
    out, per_class, pairs = [], [], []
    for c in constraints:
        mask = policy_mask(cols, c, pod, affinity)
        member = eligible if mask is None else eligible & mask
        counts = cols.pod_counts(("PodTopologySpread", pod.namespace, c.selector_key),
                                 lambda ni, c=c: counter.count(ni, c, pod.namespace))
        if c.node_affinity_policy == "Honor" and affinity is not None:
            kept = KeptDomains(cols, c.topology_key, member, counts)   # no key for affinity
        else:
            memo = ("PodTopologySpread domains", pod.namespace, c.selector_key, c.topology_key,
                    keys, _tolerations_key(pod) if c.node_taints_policy == "Honor" else None)
            kept = cols.derived(memo, partial(KeptDomains, cols, c.topology_key, member, counts))
            kept.refresh(cols, c.topology_key, member, counts)
        out.append(dict(kept.tp_counts))
        per_class.append(kept.sums.copy())
        pairs.append(kept.critical_pair())
    return out, per_class, pairs


def critical_pair(tp_counts: dict[str, int]) -> tuple[str, int, str, int] | None:
    """What CriticalPaths.update leaves after seeing every (value, count) in order: the two
    smallest counts, the earlier value first among equal ones (values are distinct). None
    when a value is "", which update() confuses with an empty slot: then it must run."""
    if "" in tp_counts:
        return None
    if len(tp_counts) > FEW_DOMAINS:
        values = list(tp_counts)
        nums = np.fromiter(tp_counts.values(), np.int64, len(values))
        first, second = np.argsort(nums, kind="stable")[:2].tolist()
        return values[first], int(nums[first]), values[second], int(nums[second])
    v0, n0, v1, n1 = "", MAX_INT32, "", MAX_INT32
    for value, num in tp_counts.items():
        if num < n0:
            v0, n0, v1, n1 = value, num, v0, n0
        elif num < n1:
            v1, n1 = value, num
    return v0, n0, v1, n1


def add_domain_counts(cols, constraints, all_counts, namespace: str, counter,
                      require_all: bool) -> None:
    """PreScore's counting: each constraint's matching pods added to the domains it already
    lists (hostname constraints, with no domains listed, are counted per node in Score)."""
    eligible = np.ones(cols.size, bool)
    if require_all:
        for key in {c.topology_key for c in constraints}:
            eligible &= cols.has_label(key)
    rows = np.flatnonzero(eligible)
    for c, counts in zip(constraints, all_counts):
        if not counts:
            continue
        pods = cols.pod_counts(("PodTopologySpread", namespace, c.selector_key),
                               lambda ni, c=c: counter.count(ni, c, namespace))
        class_ids, classes = cols.label_classes((c.topology_key,))
        sums = np.bincount(class_ids[rows], weights=pods[rows], minlength=len(classes))
        for cid, labels in enumerate(classes):
            value = labels.get(c.topology_key, "")
            if value in counts and sums[cid]:
                counts[value] += int(sums[cid])


def score_vector(s, cols, rows: np.ndarray, counts_of) -> tuple[np.ndarray, np.ndarray | None]:
    """Score's raw scores of `rows` and which of them are ignored (None: none is), with
    Score's float operations in its order and Go's math.Round. counts_of(c): the per-row
    matching-pod counts of a hostname constraint."""
    score = np.zeros(len(rows), np.float64)
    for i, c in enumerate(s.constraints):
        key = c.topology_key
        has = cols.has_label(key)[rows]
        if key == LABEL_HOSTNAME:
            cnt = counts_of(c)[rows]
        else:
            class_ids, _ = cols.label_classes((key,))
            counts = s.topology_value_to_pod_counts[i]
            per_class = np.array([counts.get(v, 0) for v in cols.class_values((key,), key)],
                                 np.int64)
            cnt = per_class[class_ids[rows]]
        term = cnt.astype(np.float64) * s.topology_normalizing_weight[i] + float(c.max_skew - 1)
        score = np.where(has, score + term, score)
    truncated = np.trunc(score)
    rounded = np.where(np.abs(score - truncated) >= 0.5, truncated + np.copysign(1.0, score),
                       truncated).astype(np.int64)
    if not s.ignored_nodes:
        return rounded, None
    names, ignored = cols.names, s.ignored_nodes
    mask = np.fromiter((names[row] in ignored for row in rows.tolist()), bool, len(rows))
    rounded[mask] = 0
    return rounded, mask


def normalize_vector(scores: np.ndarray, ignored: np.ndarray | None) -> np.ndarray:
    """NormalizeScore on arrays: ignored nodes score 0 and take no part in the min and max;
    the others MAX_NODE_SCORE * (max + min - score) // max, or MAX_NODE_SCORE when max is 0."""
    invalid = scores == INVALID_SCORE if ignored is None else ignored | (scores == INVALID_SCORE)
    counted = scores[~ignored] if ignored is not None else scores
    out = np.zeros(len(scores), np.int64)
    if not len(counted):
        return out
    low, high = int(counted.min()), max(int(counted.max()), 0)
    valid = ~invalid
    if high == 0:
        out[valid] = MAX_NODE_SCORE
    else:
        out[valid] = MAX_NODE_SCORE * (high + low - scores[valid]) // high
    return out


def init_pre_score_state(s, cols, rows: np.ndarray, require_all: bool) -> list[int]:
    """initPreScoreState over the filtered nodes' rows: the ignored nodes (lacking a key when
    all are required) and each non-hostname constraint's domains in first-appearance order
    (counted later); returns each constraint's topology size, for its weight."""
    lacking = np.zeros(len(rows), bool)
    if require_all:
        for key in {c.topology_key for c in s.constraints}:
            lacking |= ~cols.has_label(key)[rows]
    kept = rows[~lacking]
    names = cols.names
    s.ignored_nodes = {names[row] for row in rows[lacking].tolist()}
    counts, sizes = [], []
    for c in s.constraints:
        key = c.topology_key
        if key == LABEL_HOSTNAME:
            counts.append({})   # Score counts the node's own pods
            sizes.append(len(kept))
            continue
        class_ids, _ = cols.label_classes((key,))
        values = cols.class_values((key,), key)
        present, first_row = np.unique(class_ids[kept], return_index=True)
        order = present[np.argsort(first_row, kind="stable")].tolist()
        # A node without the key counts under "" (labels.get(key, "")).
        domains = dict.fromkeys((values[cid] if values[cid] is not None else ""
                                 for cid in order), 0)
        counts.append(domains)
        sizes.append(len(domains))
    s.topology_value_to_pod_counts = counts
    return sizes
