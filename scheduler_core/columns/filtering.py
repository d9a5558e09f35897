"""findNodesThatPassFilters on the columns: Filter plugins decide for all nodes at once.

The framework's semantics are kept exactly: nodes are visited from the rotating start index,
each node's first rejecting plugin is the one reported, and the search stops once enough
feasible nodes are found (numFeasibleNodesToFind); nodes after that point are not reported.

When every running Filter plugin has a vectorized Filter, the whole search is array work. When
some have not (PodTopologySpread, InterPodAffinity), nodes are still visited one by one, but
only those plugins run per node, and only up to the first vectorized plugin that rejects it.

Pods nominated to a node count only there (RunFilterPluginsWithNominatedPods): the nodes where
pods at least as important as this one are nominated run the framework's two-pass Filter one
by one, when the search reaches them; every other node is decided by the columns.
"""
from __future__ import annotations

import numpy as np

from ..framework.runtime import nominated_to_add
from ..framework.status import Code, SchedulingError, Status
from ..framework.vector_scores import remember_rows
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


def first_rejections(verdicts, size: int) -> np.ndarray | None:
    """Per node, the index of the first vectorized plugin that rejects it, or NO_REJECTION;
    None when no vectorized plugin rejects any node."""
    first = None
    for index in range(len(verdicts) - 1, -1, -1):
        verdict = verdicts[index][1]
        if verdict is not None and verdict.rejects_any():
            if first is None:
                first = np.full(size, NO_REJECTION, np.int32)
            first[verdict.kinds != 0] = index
    return first


def find_feasible(fwk, state, pod, cols, start: int, to_find: int, diagnosis, rec=None,
                  nominator=None, nominated_nodes=()):
    """The feasible node infos, the rejected ones recorded in diagnosis (and each visited
    node's trail shown to `rec`) as the per-node loop records them; None when no plugin has a
    vectorized Filter for this pod. `nominator(node name)` lists the pods nominated to a node,
    `nominated_nodes` the nodes that have some."""
    verdicts = filter_verdicts(fwk, state, pod, cols)
    if verdicts is None:
        return None
    size = cols.size
    first = first_rejections(verdicts, size)
    vectorized = all(v is not None for _, v, _ in verdicts)
    two_pass = _two_pass_rows(pod, cols, nominator, nominated_nodes)
    infos = None
    if first is None and vectorized and not two_pass:
        # Every node passes: the search takes the first to_find from the start index.
        end = start + min(to_find, size)
        if end <= size:   # no wrap-around: the snapshot's list sliced, no object indexing
            visited = rows = np.arange(start, end)
            infos = cols.node_infos[start:end]
        else:
            visited = rows = np.arange(start, end) % size
        rejected = RejectedRows.none()
    elif first is None and vectorized:
        # Only the two-pass rows may reject: the others pass, no array over every node.
        run_two_pass = _TwoPass(fwk, state, pod, cols, nominator, verdicts,
                                np.full(size, NO_REJECTION, np.int32))
        visited, rows, rejected = _search_two_pass_only(start, size, to_find, two_pass,
                                                        run_two_pass)
    else:
        if first is None:
            first = np.full(size, NO_REJECTION, np.int32)
        order = np.arange(size)
        if start:
            order = np.concatenate((order[start:], order[:start]))
        run_two_pass = _TwoPass(fwk, state, pod, cols, nominator, verdicts, first)
        if vectorized:
            decided = _decide_two_pass(first, order, start, to_find, two_pass, run_two_pass)
            visited, rows, rejected = _search_vectorized(verdicts, first, order, to_find, decided)
        else:
            visited, rows, rejected = _search_per_node(verdicts, first, order, to_find, state,
                                                       pod, cols, set(two_pass), run_two_pass)
    if len(rejected.rows):
        diagnosis.node_to_status.set_rows(cols.names, cols.node_infos, rejected.rows,
                                          rejected.ids, rejected.statuses, cols.position)
        # Only the plugin and whether it is Pending count in the diagnosis.
        for status in rejected.statuses:
            diagnosis.add_plugin_status(status)
    if rec is not None:
        stops = np.full(size, len(verdicts), np.int32)
        stops[rejected.rows] = rejected.stops
        rec.filter_many([name for name, _, _ in verdicts], cols.names, visited, stops[visited],
                        rejected)
    feasible = FeasibleNodes(cols.info_array[rows].tolist() if infos is None else infos)
    feasible.rows, feasible.names = rows, cols.names
    remember_rows(state, feasible, rows)
    return feasible


def _two_pass_rows(pod, cols, nominator, nominated_nodes) -> list[int]:
    """The rows of the nodes where Filter runs twice for this pod: those where pods at least
    as important are nominated."""
    if nominator is None:
        return []
    position, rows = cols.position, []
    for name in nominated_nodes:
        row = position.get(name)
        if row is not None and nominated_to_add(pod, nominator(name)):
            rows.append(row)
    return rows


class _TwoPass:
    """RunFilterPluginsWithNominatedPods on one row: (the index of the plugin that rejected
    the node, its status), or None when it passes. An error ends the cycle, as in the
    per-node loop. `first` holds each row's first rejection by a vectorized plugin."""

    def __init__(self, fwk, state, pod, cols, nominator, verdicts, first):
        self.fwk, self.state, self.pod, self.cols = fwk, state, pod, cols
        self.nominator, self.verdicts, self.first = nominator, verdicts, first
        self.index = {name: index for index, (name, _, _) in enumerate(verdicts)}
        self.slow = [(index, name, pl) for index, (name, verdict, pl) in enumerate(verdicts)
                     if verdict is None]
        self.sums = fwk.sums_filter(state.skip_filter_plugins)

    def __call__(self, row: int):
        node_info = self.cols.node_infos[row]
        room = self.sums.room(self.state, node_info) if self.sums is not None else None
        if room is not None:
            return self._on_sums(row, node_info, room)
        status = self.fwk.run_filter_plugins_with_nominated_pods(
            self.state, self.pod, node_info, self.nominator)
        if status.code == Code.SUCCESS:
            return None
        if status.code == Code.ERROR:
            raise SchedulingError(status)
        return self.index[status.plugin], status

    def _on_sums(self, row: int, node_info, room):
        """Both passes when one plugin alone looks at the node's pods, by their sums: with
        the nominated pods, the others' verdicts are the node's own and that plugin's is on
        the sums they add up to; then, if the node passed, the plain Filter."""
        for nominated in nominated_to_add(self.pod, self.nominator(node_info.name)):
            room.add(nominated)
        for index, (name, verdict, pl) in enumerate(self.verdicts):
            if pl is self.sums:
                status = room.status()
            elif verdict is not None:
                status = verdict.status(row, name) if verdict.kinds[row] else None
            else:
                status = pl.filter(self.state, self.pod, node_info)
            if status is not None and status.code != Code.SUCCESS:
                return index, _as_filter_status(name, status)
        return _first_stop(self.verdicts, self.slow, self.first[row], row, self.state,
                           self.pod, node_info)


def _decide_two_pass(first, order, start, to_find, rows, run_two_pass) -> dict:
    """Runs the two-pass rows the search reaches, in visiting order, and writes their outcome
    into `first`; {row: (stop, status)} of those it rejected. A row is reached while fewer
    than to_find nodes before it are feasible."""
    if not rows:
        return {}
    size = len(order)
    positions = sorted(((row - start) % size, row) for row in rows)
    passing = first[order] == NO_REJECTION
    for position, _ in positions:
        passing[position] = False   # undecided yet
    feasible_before = np.concatenate(([0], np.cumsum(passing)))
    decided, found = {}, 0
    for position, row in positions:
        if feasible_before[position] + found >= to_find:
            break
        outcome = run_two_pass(row)
        if outcome is None:
            first[row] = NO_REJECTION
            found += 1
        else:
            first[row] = outcome[0]
            decided[row] = outcome
    return decided


def _search_two_pass_only(start, size, to_find, rows, run_two_pass):
    """_decide_two_pass and _search_vectorized where every other row passes: a two-pass row
    is reached while fewer than to_find nodes before it are feasible, that is while its
    position, less the rejected rows before it, is under to_find."""
    reached, at, statuses, stops = [], [], [], []
    for position, row in sorted(((row - start) % size, row) for row in rows):
        if position - len(reached) >= to_find:
            break
        outcome = run_two_pass(row)
        if outcome is not None:
            reached.append(row)
            at.append(position)
            stops.append(outcome[0])
            statuses.append(outcome[1])
    visited = np.arange(start, start + min(size, to_find + len(reached))) % size
    keep = np.ones(len(visited), bool)
    keep[at] = False
    feasible = visited[keep]
    return visited, feasible, RejectedRows(np.array(reached, np.int64), np.array(stops, np.int32),
                                           np.arange(len(statuses)), statuses)


class FeasibleNodes(list):
    """The feasible node infos, knowing their rows (and the columns' names by row): a
    recorder reads the nodes' interned names by row instead of node by node."""

    __slots__ = ("names", "rows")


class RejectedRows:
    """The nodes a search rejected, in visiting order: their rows, the index of the plugin
    that stopped each, and each one's status as an index into `statuses` (one Status per
    plugin and reason code, shared by the nodes it rejected). Read as {row: Status} by
    recorders that look nodes up one by one."""

    __slots__ = ("_by_row", "ids", "rows", "statuses", "stops")

    def __init__(self, rows: np.ndarray, stops: np.ndarray, ids: np.ndarray, statuses: list):
        self.rows, self.stops, self.ids, self.statuses = rows, stops, ids, statuses
        self._by_row = None

    @classmethod
    def none(cls) -> RejectedRows:
        nothing = np.empty(0, np.int64)
        return cls(nothing, nothing, nothing, [])

    def _map(self) -> dict:
        if self._by_row is None:
            self._by_row = dict(zip(self.rows.tolist(),
                                    map(self.statuses.__getitem__, self.ids.tolist())))
        return self._by_row

    def __bool__(self) -> bool:
        return bool(len(self.rows))

    def __contains__(self, row) -> bool:
        return row in self._map()

    def __getitem__(self, row) -> Status:
        return self._map()[row]

    def get(self, row, default=None):
        return self._map().get(row, default)


def _search_vectorized(verdicts, first, order, to_find, decided):
    """(visited rows, feasible rows, RejectedRows), all in visiting order; `decided` holds
    the (stop, status) of rows the two-pass Filter rejected."""
    in_order = first[order]
    passing = in_order == NO_REJECTION
    feasible_at = np.flatnonzero(passing)
    stop = feasible_at[to_find - 1] + 1 if len(feasible_at) >= to_find else len(order)
    visited = order[:stop]
    rejected = visited[~passing[:stop]]
    if not len(rejected):
        # A copy: the feasible rows outlive the cycle's arrays in a trace.
        return visited, visited.copy(), RejectedRows.none()
    stops = first[rejected]
    own = np.isin(rejected, list(decided)) if decided else np.zeros(len(rejected), bool)
    kinds = np.empty(len(rejected), np.int64)
    for index in np.flatnonzero(np.bincount(stops[~own])).tolist():
        at = (stops == index) & ~own
        kinds[at] = verdicts[index][1].kinds[rejected[at]]
    # One status per (plugin, code): the kinds are small non-negative codes.
    ids = np.empty(len(rejected), np.int64)
    keys, ids[~own] = np.unique(kinds[~own] * len(verdicts) + stops[~own], return_inverse=True)
    statuses = []
    for key in keys.tolist():
        index = key % len(verdicts)
        name, verdict, _ = verdicts[index]
        code, reasons = verdict.outcomes[key // len(verdicts)]
        statuses.append(Status(code, *reasons, plugin=name))
    # The two-pass rows' statuses are their own.
    for at in np.flatnonzero(own).tolist():
        ids[at] = len(statuses)
        statuses.append(decided[int(rejected[at])][1])
    return visited, visited[passing[:stop]], RejectedRows(rejected, stops, ids, statuses)


def _search_per_node(verdicts, first, order, to_find, state, pod, cols, two_pass, run_two_pass):
    """The per-node walk, running only the plugins without a vectorized Filter, each only
    where no earlier vectorized plugin has rejected the node already; the two-pass rows run
    every plugin per node."""
    slow = [(index, name, pl) for index, (name, verdict, pl) in enumerate(verdicts)
            if verdict is None]
    infos, feasible, visited = cols.node_infos, [], []
    rejected, stops, statuses = [], [], []
    for row in order.tolist():
        visited.append(row)
        found = run_two_pass(row) if row in two_pass else _first_stop(
            verdicts, slow, first[row], row, state, pod, infos[row])
        if found is None:
            feasible.append(row)
            if len(feasible) >= to_find:
                break
        else:
            rejected.append(row)
            stops.append(found[0])
            statuses.append(found[1])
    return (np.array(visited, np.int64), np.array(feasible, np.int64),
            RejectedRows(np.array(rejected, np.int64), np.array(stops, np.int32),
                         np.arange(len(statuses)), statuses))


def _first_stop(verdicts, slow, stop_at, row, state, pod, node_info):
    """(index of the plugin that rejects the node, its status), or None when it passes: the
    slow plugins run up to the first vectorized plugin that rejects it."""
    for index, name, pl in slow:
        if index > stop_at:
            break
        status = pl.filter(state, pod, node_info)
        if status is not None and status.code != Code.SUCCESS:
            return index, _as_filter_status(name, status)
    if stop_at != NO_REJECTION:
        name, verdict, _ = verdicts[stop_at]
        return stop_at, verdict.status(row, name)
    return None


def _as_filter_status(name: str, status: Status) -> Status:
    """What RunFilterPlugins makes of a plugin's non-success status (an error ends the
    cycle, as the per-node path does)."""
    if not status.is_rejected():
        status = Status(Code.ERROR, f'running "{name}" filter plugin: {status.message()}')
        status.plugin = name
        raise SchedulingError(status)
    status.plugin = name
    return status
