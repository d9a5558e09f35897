"""SelectVictimsOnNode for many nodes at once, on the columns (DefaultPreemption's dry run).

Where NodeResourcesFit alone can change its mind as pods leave a node and come back (the
Framework's sums_filter: every other running Filter plugin looks at the node only and no
AddPod/RemovePod runs), a node's victims follow from its pods' requests alone. Then the dry
run needs no copy of the node or of the CycleState: per node, every lower-priority pod is
removed from its sums, and pods are reprieved, the most important first (those whose eviction
would violate a PDB before the others), each kept if the preemptor still fits with it. The
nodes are worked as arrays, one reprieve position at a time across all of them.

A node is left to the per-node path (its entry is None) when the answer there is not a
success with the same sums: a pod at least as important as the preemptor is nominated to it
(Filter runs twice there), another running Filter plugin rejects it, it has no lower-priority
pod, or the preemptor does not fit even with every lower-priority pod gone (the per-node path
words those statuses).
"""
from __future__ import annotations

import numpy as np

from ...framework.cycle_state import COLUMNS_KEY
from ...framework.runtime import nominated_to_add
from ...framework.status import Status
from ..noderesources.fit import PRE_FILTER_STATE_KEY
from .preemption import importance_key


class VictimsOnRows:
    """One preemption's vectorized dry run: built once per PostFilter, asked per chunk of
    nodes (in the evaluator's visiting order)."""

    def __init__(self, fwk, handle, state, pod, cols, split_by_pdbs):
        self.handle, self.pod, self.cols = handle, pod, cols
        self.request = state.get(PRE_FILTER_STATE_KEY)
        # pods most important first -> (violating, non-violating); None without PDBs.
        self.split_by_pdbs = split_by_pdbs
        self.rejected = _rejected_by_others(fwk, state, pod, cols)

    @classmethod
    def of(cls, fwk, handle, state, pod, split_by_pdbs) -> VictimsOnRows | None:
        """None when the dry run must go node by node: no columns, no sums_filter, or a
        request the sums below do not follow (extended resources)."""
        cols = state.get(COLUMNS_KEY)
        if cols is None or not cols.exact or fwk.sums_filter(state.skip_filter_plugins) is None:
            return None
        request = state.get(PRE_FILTER_STATE_KEY)
        if request is None or request.scalars:
            return None
        out = cls(fwk, handle, state, pod, cols, split_by_pdbs)
        return None if out.rejected is None else out

    def select(self, node_infos: list) -> list:
        """Per node: (victims most important first, PDB violations, Status) as
        select_victims_on_node gives them, or None where the per-node path must decide."""
        out: list = [None] * len(node_infos)
        slots, rows, pods, node_of = self._gather(node_infos)
        if not slots:
            return out
        priority = np.fromiter((p.priority for p in pods), np.int64, len(pods))
        potential = np.flatnonzero(priority < self.pod.priority)
        e = _Entries(self.cols, rows, node_of[potential], [pods[i] for i in potential.tolist()],
                     priority[potential],
                     self._violating if self.split_by_pdbs is not None else None)
        kept, node_fits = self._reprieve(e)
        gone = ~kept & node_fits[e.node]
        victims: list[list] = [[] for _ in slots]
        for node, p in zip(e.node[gone].tolist(), e.pods_at(np.flatnonzero(gone))):
            victims[node].append(p)
        size = len(slots)
        has = np.bincount(e.node, minlength=size) > 0
        mixed = (np.bincount(e.node[e.violating], minlength=size) > 0) & \
            (np.bincount(e.node[~e.violating], minlength=size) > 0)
        violations = np.bincount(e.node[gone & e.violating], minlength=size).tolist()
        for node, (slot, fits, any_potential, interleaved) in enumerate(zip(
                slots, node_fits.tolist(), has.tolist(), mixed.tolist())):
            # Without lower-priority pods, or without room even when they are all gone: the
            # per-node path words the status.
            if any_potential and fits:
                # Two reprieve passes interleave the importance order; restore it.
                if interleaved:
                    victims[node].sort(key=importance_key)
                out[slot] = (victims[node], violations[node], Status())
        return out

    def _gather(self, node_infos):
        """(the slots of the nodes worked here, their rows, all their pods, each pod's node
        as an index into slots)."""
        pod, position, node_rows = self.pod, self.cols.position, self.cols.node_infos
        nominated, rejected = self.handle.nominated_pods_for_node, self.rejected
        slots, rows, pods, node_of = [], [], [], []
        for slot, ni in enumerate(node_infos):
            row = position.get(ni.name)
            if row is None or node_rows[row] is not ni or rejected[row] \
                    or nominated_to_add(pod, nominated(ni.name)):
                continue
            node_of += [len(rows)] * len(ni.pods)
            pods += ni.pods
            slots.append(slot)
            rows.append(row)
        return slots, rows, pods, np.array(node_of, np.int64)

    def _violating(self, potential) -> set[str]:
        """The uids of the pods whose eviction would violate a PDB, of one node's
        lower-priority pods (filterPodsWithPDBViolation over them most important first)."""
        violating, _ = self.split_by_pdbs(sorted(potential, key=importance_key))
        return {p.uid for p in violating}

    def _reprieve(self, e: _Entries):
        """(per entry: reprieved, per node: the preemptor fits with every victim gone).
        Each reprieve position is tried on every node at once: the k-th pod of each node's
        reprieve order comes back where the preemptor still fits with it."""
        request = self.request
        want = np.array([request.milli_cpu, request.memory, request.ephemeral_storage],
                        np.int64)
        checked = want > 0   # fitsRequest skips a resource the pod does not request
        want = want[checked]

        def fits(used, count, alloc):
            room = (alloc[:, :3] - used)[:, checked]
            return (count + 1 <= alloc[:, 3]) & (room >= want).all(axis=1)

        used, count, alloc = e.used, e.count, e.alloc
        node_fits = fits(used, count, alloc)
        kept = np.zeros(len(e.node), bool)
        trying = node_fits[e.node]
        for k in range(int(e.rank.max(initial=-1)) + 1):
            at = np.flatnonzero((e.rank == k) & trying)
            if not len(at):
                continue
            who = e.node[at]
            trial_used, trial_count = used[who] + e.asks[at], count[who] + 1
            ok = fits(trial_used, trial_count, alloc[who])
            kept[at] = ok
            used[who[ok]] = trial_used[ok]
            count[who[ok]] = trial_count[ok]
        return kept, node_fits


class _Entries:
    """The nodes' potential victims, one node's after another, each node's in reprieve order
    (those whose eviction would violate a PDB first, then by importance: higher priority,
    then earlier start, then their order on the node), and the nodes' sums once they are
    all gone."""

    def __init__(self, cols, rows, node, pods, priority, violating_of):
        """node: each pod's index into rows, in node order; violating_of(one node's pods)
        -> the uids of those whose eviction would violate a PDB (None: no PDB)."""
        n = len(pods)
        violating = np.zeros(n, bool)
        bounds = np.flatnonzero(np.r_[True, node[1:] != node[:-1], True]).tolist() \
            if violating_of is not None and n else []
        for start, stop in zip(bounds, bounds[1:]):
            uids = violating_of(pods[start:stop])
            if uids:
                violating[start:stop] = [p.uid in uids for p in pods[start:stop]]
        start_time = np.fromiter((p.start_time for p in pods), np.float64, n)
        order = np.lexsort((np.arange(n), start_time, -priority, ~violating, node))
        self._pods, self._order = pods, order
        self.node, self.violating = node[order], violating[order]
        self.asks = np.fromiter((v for p in pods for v in (
            p.requests.milli_cpu, p.requests.memory, p.requests.ephemeral_storage)),
            np.int64, 3 * n).reshape(n, 3)[order]
        starts = np.flatnonzero(np.r_[True, self.node[1:] != self.node[:-1]]) if n else \
            np.zeros(0, np.int64)
        self.rank = np.arange(n) - np.repeat(starts, np.diff(np.r_[starts, n]))
        rows = np.array(rows, np.int64)
        self.alloc = cols.allocatable[rows]
        self.used = cols.requested[rows].copy()
        np.subtract.at(self.used, self.node, self.asks)
        self.count = cols.pod_count[rows] - np.bincount(self.node, minlength=len(rows))

    def pods_at(self, entries: np.ndarray) -> list:
        """The pods of these entries (positions in reprieve order)."""
        return [self._pods[i] for i in self._order[entries].tolist()]


def _rejected_by_others(fwk, state, pod, cols) -> np.ndarray | None:
    """Per row, whether a running Filter plugin other than the sums_filter rejects the node
    (its verdict does not change as pods leave); None when one of them has no vector form."""
    sums = fwk.sums_filter(state.skip_filter_plugins)
    skip = state.skip_filter_plugins
    rejected = np.zeros(cols.size, bool)
    for pl in fwk.filter_plugins:
        if pl is sums or (pl.NAME or pl.name()) in skip:
            continue
        vector = getattr(pl, "filter_vector", None)
        verdict = vector(state, pod, cols) if vector is not None else None
        if verdict is None:
            return None
        rejected |= verdict.kinds != 0
    return rejected

