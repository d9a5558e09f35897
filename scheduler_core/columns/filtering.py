"""findNodesThatPassFilters on the columns: Filter plugins decide for all nodes at once.

The framework's semantics are kept exactly: nodes are visited from the rotating start index,
each node's first rejecting plugin is the one reported, and the search stops once enough
feasible nodes are found (numFeasibleNodesToFind); nodes after that point are not reported.

When every running Filter plugin has a vectorized Filter, the whole search is array work. When
some have not (PodTopologySpread, InterPodAffinity), nodes are still visited one by one, but
only those plugins run per node, and only up to the first vectorized plugin that rejects it.
"""
from __future__ import annotations

import numpy as np

from ..errors import SchedulingError
from ..framework.status import Code, Status
from .scoring import remember_rows
from .verdict import Verdict

NO_REJECTION = np.iinfo(np.int32).max


def filter_verdicts(fwk, state, pod, cols) -> list[tuple[str, Verdict | None, object]] | None:
    """(name, verdict or None, plugin) of each running Filter plugin, in order; None when no
    plugin can vectorize (the per-node path is then as fast)."""
    if not cols.exact:
        return None
    skip = state.skip_filter_plugins
    verdicts = []
    for pl in fwk.filter_plugins:
        name = pl.NAME or pl.name()
        if name in skip:
            continue
        vector = getattr(pl, "filter_vector", None)
        verdicts.append((name, vector(state, pod, cols) if vector is not None else None, pl))
    if verdicts and all(v is None for _, v, _ in verdicts):
        return None
    return verdicts


def first_rejections(verdicts, size: int) -> np.ndarray:
    """Per node, the index of the first vectorized plugin that rejects it, or NO_REJECTION."""
    first = np.full(size, NO_REJECTION, np.int32)
    for index in range(len(verdicts) - 1, -1, -1):
        verdict = verdicts[index][1]
        if verdict is not None:
            first[verdict.kinds != 0] = index
    return first


def find_feasible(fwk, state, pod, cols, start: int, to_find: int, diagnosis, rec=None):
    """The feasible node infos, the rejected ones recorded in diagnosis (and each visited
    node's trail shown to `rec`) as the per-node loop records them; None when no plugin has a
    vectorized Filter for this pod."""
    verdicts = filter_verdicts(fwk, state, pod, cols)
    if verdicts is None:
        return None
    size = cols.size
    first = first_rejections(verdicts, size)
    order = np.arange(size)
    if start:
        order = np.concatenate((order[start:], order[:start]))
    if all(v is not None for _, v, _ in verdicts):
        visited, rows, rejected = _search_vectorized(first, order, to_find)
    else:
        visited, rows, rejected = _search_per_node(verdicts, first, order, to_find, state, pod,
                                                   cols)
    statuses = _record(verdicts, rejected, cols, diagnosis)
    infos = cols.node_infos
    if rec is not None:
        stops = np.full(size, len(verdicts), np.int32)
        for row, index, _ in rejected:
            stops[row] = index
        rec.filter_many([name for name, _, _ in verdicts], cols.names, visited,
                        stops[visited].tolist(), statuses)
    feasible = [infos[row] for row in rows.tolist()]
    remember_rows(state, feasible, rows)
    return feasible


def _search_vectorized(first, order, to_find):
    """(feasible rows, [(row, plugin index, per-node status or None)]) in visiting order."""
    in_order = first[order]
    passing = in_order == NO_REJECTION
    feasible_at = np.flatnonzero(passing)
    stop = feasible_at[to_find - 1] + 1 if len(feasible_at) >= to_find else len(order)
    visited = order[:stop]
    rejected = visited[~passing[:stop]]
    return (visited.tolist(), visited[passing[:stop]],
            [(row, first[row], None) for row in rejected.tolist()])


def _search_per_node(verdicts, first, order, to_find, state, pod, cols):
    """The per-node walk, running only the plugins without a vectorized Filter, each only
    where no earlier vectorized plugin has rejected the node already."""
    slow = [(index, name, pl) for index, (name, verdict, pl) in enumerate(verdicts)
            if verdict is None]
    infos, feasible, rejected, visited = cols.node_infos, [], [], []
    for row in order.tolist():
        visited.append(row)
        stop_at = first[row]
        found = None
        for index, name, pl in slow:
            if index > stop_at:
                break
            status = pl.filter(state, pod, infos[row])
            if status is not None and status.code != Code.SUCCESS:
                found = (row, index, _as_filter_status(name, status))
                break
        if found is None and stop_at != NO_REJECTION:
            found = (row, stop_at, None)
        if found is None:
            feasible.append(row)
            if len(feasible) >= to_find:
                break
        else:
            rejected.append(found)
    return visited, np.array(feasible, np.int64), rejected


def _as_filter_status(name: str, status: Status) -> Status:
    """What RunFilterPlugins makes of a plugin's non-success status (an error ends the
    cycle, as the per-node path does)."""
    if not status.is_rejected():
        status = Status(Code.ERROR, f'running "{name}" filter plugin: {status.message()}')
        status.plugin = name
        raise SchedulingError(status)
    status.plugin = name
    return status


def _record(verdicts, rejected, cols, diagnosis) -> dict:
    """Rejected nodes into the diagnosis; their statuses by row."""
    set_status = diagnosis.node_to_status.set
    infos = cols.node_infos
    seen, statuses = set(), {}
    for row, index, status in rejected:
        name, verdict, _ = verdicts[index]
        if status is None:
            status = verdict.status(row, name)
        statuses[row] = status
        set_status(infos[row].name, status)
        # Only the plugin and whether it is Pending count in the diagnosis: once each.
        if (index, status.code) not in seen:
            seen.add((index, status.code))
            diagnosis.add_plugin_status(status)
    return statuses
