"""NodeVolumeLimits' Filter on the columns: attached volumes counted per node and kept.

The per-node Filter (csi.go) lists the volumes of every pod on the node each time. Here what
each node already has is kept per row: its limits (getVolumeLimits), the volumes its pods
attach ("driver/handle" -> limit key) and their count per limit key. A row is worked out again
when the columns rewrite it (a pod came or went), and every row when a volume, claim, class or
CSINode changed (`ClusterObjects.storage_version`). What each of a row's pods attaches is kept
with the row, so a row rewritten because a pod came lists that pod's volumes alone, not those
of the pods already there. A cycle then only lists the new pod's volumes, once per kind of
CSINode (what migration decides), and compares counts on arrays.
"""
from __future__ import annotations

import numpy as np

from ...columns.verdict import Verdict
from ...framework.status import Code
from ..volumebinding import storage as st


def migration_kind(csinode: dict | None):
    """What of a CSINode decides which volumes count (is_csi_migration_on): whether there is
    one, and whether Portworx is listed as migrated."""
    if csinode is None:
        return None
    return st.PORTWORX in st.migrated_plugins(csinode)


class AttachedVolumes:
    """Per row: the migration kind of the node's CSINode, its limits and the volumes its pods
    attach, kept as the columns and the storage objects change. `plugin` is the CSILimits
    plugin (its volume_limits, VolumeError and EXCEEDED reason)."""

    def __init__(self, plugin, cols):
        self.plugin, self.cols = plugin, cols
        self.objects = plugin.handle.objects
        self.seen, self.storage = -1, None
        size = cols.size
        self.kind_of_row: list = [None] * size       # migration kind per row
        self.kinds: dict = {}                        # kind -> a CSINode of that kind (or None)
        self.attached: list[dict] = [{}] * size      # "driver/handle" -> limit key
        self.broken = np.zeros(size, bool)           # an existing pod's volume is an error
        self.limits: dict[str, np.ndarray] = {}      # limit key -> limit per row, -1: none
        self.counts: dict[str, np.ndarray] = {}      # limit key -> attached volumes per row
        self.holders: dict[str, set[int]] = {}       # "driver/handle" -> rows attaching it
        # Per row, what each of its pods attaches, as last listed: id(pod) -> (pod, its spec,
        # "driver/handle" -> limit key). Valid for the row's migration kind and the storage
        # objects of that listing; a pod whose PodInfo or spec is another is listed again.
        self.pod_volumes: list[dict] = [{}] * size

    def sync(self) -> None:
        cols, version = self.cols, self.objects.storage_version()
        if version != self.storage:
            rows = range(cols.size)
            self.kinds = {}
            self.pod_volumes = [{}] * cols.size
        elif self.seen != cols.version:
            rows = cols.changed_since(self.seen).tolist()
        else:
            return
        for row in rows:
            self._row(row)
        self.seen, self.storage = cols.version, version

    def _row(self, row: int) -> None:
        ni = self.cols.node_infos[row]
        csinode = self.objects.csinodes.get(ni.name)
        kind = migration_kind(csinode)
        if kind != self.kind_of_row[row]:
            self.pod_volumes[row] = {}
        self.kind_of_row[row] = kind
        self.kinds.setdefault(kind, csinode)
        for unique in self.attached[row]:
            self.holders[unique].discard(row)
        for column in self.limits.values():
            column[row] = -1
        for column in self.counts.values():
            column[row] = 0
        for key, limit in self.plugin.volume_limits(ni, csinode).items():
            self._column(key)[0][row] = limit
        attached: dict[str, str] = {}
        try:
            self.pod_volumes[row] = self._pods_volumes(ni.pods, self.pod_volumes[row], csinode)
        except self.plugin.VolumeError:   # the per-node Filter words it (an Error status)
            self.broken[row] = True
            self.pod_volumes[row] = {}
        else:
            self.broken[row] = False
            for _, _, volumes in self.pod_volumes[row].values():
                attached.update(volumes)
        self.attached[row] = attached
        for unique, key in attached.items():
            self.holders.setdefault(unique, set()).add(row)
            self._column(key)[1][row] += 1

    def _pods_volumes(self, pods, kept: dict, csinode) -> dict:
        """The pods' entries of pod_volumes, in the node's order, the kept ones reused."""
        listed = {}
        for pod in pods:
            entry = kept.get(id(pod))
            if entry is None or entry[0] is not pod or entry[1] is not pod.spec:
                volumes: dict[str, str] = {}
                self.plugin._attachable_volumes(pod, csinode, False, volumes)
                entry = (pod, pod.spec, volumes)
            listed[id(pod)] = entry
        return listed

    def _column(self, key: str) -> tuple[np.ndarray, np.ndarray]:
        if key not in self.limits:
            self.limits[key] = np.full(self.cols.size, -1, np.int64)
            self.counts[key] = np.zeros(self.cols.size, np.int64)
        return self.limits[key], self.counts[key]

    def exceeded(self, kind, new_volumes: dict[str, str], rows: np.ndarray) -> np.ndarray:
        """Among `rows` (all of this migration kind), those where the new volumes the node
        does not have yet take a limit key past its limit."""
        out = np.zeros(len(rows), bool)
        every_row = len(rows) == self.cols.size    # rows (distinct, sorted) is arange(size)
        for key in set(new_volumes.values()):
            limit, count = self._column(key)
            if not every_row:
                limit, count = limit[rows], count[rows]
            adding = sum(1 for k in new_volumes.values() if k == key)
            held = [self.holders[unique] for unique, k in new_volumes.items()
                    if k == key and self.holders.get(unique)]
            if held:
                adding = np.full(len(rows), adding, np.int64)
                listed = rows.tolist()
                for holders in held:
                    # A volume the node already has costs nothing more.
                    adding -= np.array([row in holders for row in listed], bool)
            # Only a key with a volume still to attach is checked (a node over its limit
            # already takes a pod whose volumes it has).
            out |= (limit >= 0) & (adding > 0) & (count + adding > limit)
        return out


def filter_vector(plugin, pod, cols) -> Verdict | None:
    """The Filter's verdict for every node; None where the per-node Filter must speak (a
    claim of the new pod is missing or broken, or an existing pod's volume is an error)."""
    if not pod.spec.get("volumes"):
        return Verdict.uniform(cols.size, None)
    attached = cols.derived(("NodeVolumeLimits", id(plugin)), lambda: AttachedVolumes(plugin,
                                                                                     cols))
    attached.sync()
    if attached.broken.any():
        return None
    kinds = np.zeros(cols.size, np.int32)
    for kind, csinode in attached.kinds.items():
        new_volumes: dict[str, str] = {}
        try:
            plugin._attachable_volumes(pod, csinode, True, new_volumes)
        except plugin.VolumeError:   # the per-node Filter words it
            return None
        if not new_volumes:
            continue
        rows = np.array([row for row, k in enumerate(attached.kind_of_row) if k == kind],
                        np.int64) if len(attached.kinds) > 1 else np.arange(cols.size)
        kinds[rows[attached.exceeded(kind, new_volumes, rows)]] = 1
    if not kinds.any():
        return Verdict.uniform(cols.size, None)
    return Verdict(kinds, {1: (Code.UNSCHEDULABLE, (plugin.EXCEEDED,))})
