"""findNodesThatPassFilters on the columns: every Filter plugin decides for all nodes at once.

The framework's semantics are kept exactly: nodes are visited from the rotating start index,
each node's first rejecting plugin is the one reported, and the search stops once enough
feasible nodes are found (numFeasibleNodesToFind); nodes after that point are not reported.
"""
from __future__ import annotations

import numpy as np

from .scoring import remember_rows
from .verdict import Verdict


def filter_verdicts(fwk, state, pod, cols) -> list[tuple[str, Verdict]] | None:
    """Each running Filter plugin's verdict, in order; None when one cannot vectorize."""
    if not cols.exact:
        return None
    skip = state.skip_filter_plugins
    verdicts = []
    for pl in fwk.filter_plugins:
        name = pl.NAME or pl.name()
        if name in skip:
            continue
        vector = getattr(pl, "filter_vector", None)
        verdict = vector(state, pod, cols) if vector is not None else None
        if verdict is None:
            return None
        verdicts.append((name, verdict))
    return verdicts


def first_rejections(verdicts: list[tuple[str, Verdict]], size: int) -> np.ndarray:
    """Per node, the index of the first plugin that rejects it, or -1."""
    first = np.full(size, -1, np.int32)
    for index in range(len(verdicts) - 1, -1, -1):
        first[verdicts[index][1].kinds != 0] = index
    return first


def find_feasible(fwk, state, pod, cols, start: int, to_find: int, diagnosis):
    """The feasible node infos, the rejected ones recorded in diagnosis as the per-node loop
    records them; None when some plugin has no vectorized Filter for this pod."""
    verdicts = filter_verdicts(fwk, state, pod, cols)
    if verdicts is None:
        return None
    size = cols.size
    first = first_rejections(verdicts, size)
    order = np.arange(size)
    if start:
        order = np.concatenate((order[start:], order[:start]))
    in_order = first[order]
    feasible_at = np.flatnonzero(in_order < 0)
    stop = feasible_at[to_find - 1] + 1 if len(feasible_at) >= to_find else size
    visited = order[:stop]
    rejected = visited[in_order[:stop] >= 0]
    if len(rejected):
        set_status = diagnosis.node_to_status.set
        infos = cols.node_infos
        for row in rejected.tolist():
            name, verdict = verdicts[first[row]]
            set_status(infos[row].name, verdict.status(row, name))
        for index in np.unique(first[rejected]).tolist():
            name, verdict = verdicts[index]
            diagnosis.add_plugin_status(verdict.status(int(rejected[first[rejected] == index][0]),
                                                       name))
    infos = cols.node_infos
    rows = visited[in_order[:stop] < 0]
    feasible = [infos[row] for row in rows.tolist()]
    remember_rows(state, feasible, rows)
    return feasible
