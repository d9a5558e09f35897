"""PodTopologySpread's hard constraints on the columns: PreFilter's per-domain counts summed from
per-node counts the columns keep up to date (instead of rescanning every node's pods each
cycle), and Filter decided once per topology domain.

Used only where it gives what the per-node code gives: every node of the snapshot, and no
constraint whose inclusion policies could leave a node out for this pod.
"""
from __future__ import annotations

import numpy as np

from ...columns.verdict import Verdict
from ...framework.status import Code
from .common import ERR_REASON_CONSTRAINTS_NOT_MATCH, ERR_REASON_NODE_LABEL_NOT_MATCH


def domain_counts(cols, constraints, namespace: str, counter) -> list[dict[str, int]] | None:
    """Per constraint, matching pods per topology value over the nodes holding every
    constraint's key, in the order the values first appear in the node list."""
    keys = tuple(sorted({c.topology_key for c in constraints}))
    _, classes, rows, row_classes, order = cols.domains(keys)
    out = []
    for c in constraints:
        counts = cols.pod_counts(("PodTopologySpread", namespace, c.selector_key),
                                 lambda ni, c=c: counter.count(ni, c, namespace))
        sums = np.bincount(row_classes, weights=counts[rows], minlength=len(classes)).tolist()
        # Domains (classes of nodes alike under the keys) in first-appearance order.
        tp_counts: dict[str, int] = {}
        for cid in order:
            value = classes[cid][c.topology_key]
            tp_counts[value] = tp_counts.get(value, 0) + int(sums[cid])
        out.append(tp_counts)
    return out


def filter_verdict(s, cols) -> Verdict:
    """Filter for every node: decided once per class of nodes alike under the keys."""
    keys = tuple(sorted({c.topology_key for c in s.constraints}))
    class_ids, classes = cols.label_classes(keys)
    outcomes = []
    for labels in classes:
        outcomes.append(_class_outcome(s, labels))
    return Verdict.by_class(class_ids, outcomes)


def _class_outcome(s, labels: dict):
    for i, c in enumerate(s.constraints):
        key = c.topology_key
        if key not in labels:
            return Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_NODE_LABEL_NOT_MATCH,)
        skew = (s.tp_value_to_match_num[i].get(labels[key], 0) + s.self_match[i]
                - s.min_match_num(i, c.min_domains))
        if skew > c.max_skew:
            return Code.UNSCHEDULABLE, (ERR_REASON_CONSTRAINTS_NOT_MATCH,)
    return None


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
