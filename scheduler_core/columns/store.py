"""NodeColumns: the snapshot's nodes as numpy arrays, one row per node in snapshot order.

Rows are rewritten when the snapshot swaps in a node's fresh copy (after assume, forget, bind or
delete changed it), so a cycle reads columns that match its snapshot. Columns that only some
pods need (extended resources, labels under given keys, image sizes) are built on first use
and kept up to date from then on.
"""
from __future__ import annotations

import numpy as np

from ..framework.types import NodeInfo

# Integer columns stay exact in int64 only while products with 100 (the score range) fit.
SAFE_LIMIT = 2**56
CPU, MEMORY, EPHEMERAL, PODS = range(4)
# Counts of matching pods kept per (namespace, selector); each costs a recount per changed row.
MAX_POD_COUNTS = 64
# Per-row values kept for the plugins (a pod's request, its tolerations...); each keyed set
# costs a recomputation of the rows changed since it was last read.
MAX_KEPT = 64
# Columns of scalar resources kept (each is rewritten on every row update).
MAX_SCALARS = 16
# Up to this many changed rows are recomputed one by one rather than as arrays.
FEW_ROWS = 8
# Row updates remembered in order, so that the rows changed since a recent version are read
# from the log instead of comparing every row's version (a cycle changes a row or two).
UPDATE_LOG = 4096


def _taint_signature(taints: list) -> tuple:
    return tuple(tuple(sorted((k, str(v)) for k, v in t.items())) for t in taints)


class NodeColumns:
    def __init__(self, node_infos: list[NodeInfo], position: dict[str, int]):
        self.node_infos = node_infos          # the snapshot's own list, kept in step
        self.position = position
        self.names = [ni.name for ni in node_infos]   # a row's node keeps its name
        n = self.size = len(node_infos)
        # The node infos again, as an array: many rows' infos are taken at once by indexing.
        self.info_array = np.empty(n, object)
        self.allocatable = np.zeros((n, 4), np.int64)   # cpu, memory, ephemeral, pods
        self.requested = np.zeros((n, 3), np.int64)     # cpu, memory, ephemeral
        self.non_zero = np.zeros((n, 2), np.int64)      # cpu, memory with non-zero defaults
        self.pod_count = np.zeros(n, np.int64)
        self.unschedulable = np.zeros(n, bool)
        self.taint_group = np.zeros(n, np.int32)
        self.taint_groups: list[list] = []              # group id -> the taints themselves
        self._taint_ids: dict[tuple, int] = {}
        self.exact = True                               # False once a value passes SAFE_LIMIT
        self._scalars: dict[str, tuple[np.ndarray, np.ndarray]] = {}   # least recent first
        self._scalar_rows: dict[str, set[int]] | None = None
        self._label_classes: dict[tuple, tuple[np.ndarray, list[dict]]] = {}
        self._images: dict[str, tuple[np.ndarray, int]] = {}
        self._pod_counts: dict[tuple, tuple[np.ndarray, object]] = {}
        # Which rows changed since a kept value was computed: a counter bumped per update.
        self.version = 0
        self.row_version = np.zeros(n, np.int64)
        self._log: list[int] = []     # the row of each update after version _log_base
        self._log_base = n            # the rows' first updates below are not logged
        self._kept: dict[object, list] = {}
        self._derived: dict[object, object] = {}
        for row, ni in enumerate(node_infos):
            self.update_row(row, ni, ni)

    # --- rows --------------------------------------------------------------------------------
    def update_row(self, row: int, ni: NodeInfo, old: NodeInfo) -> None:
        """Row `row` now holds `ni`, a fresh copy of `old`."""
        self.info_array[row] = ni
        alloc, req, nz = ni.allocatable, ni.requested, ni.non_zero_requested
        values = (alloc.milli_cpu, alloc.memory, alloc.ephemeral_storage,
                  alloc.allowed_pod_number, req.milli_cpu, req.memory, req.ephemeral_storage,
                  nz.milli_cpu, nz.memory)
        if max(values) >= SAFE_LIMIT or min(values) <= -SAFE_LIMIT:
            self.exact = False
            return
        self.version += 1
        self.row_version[row] = self.version
        if self.version > self._log_base:
            log = self._log
            log.append(row)
            if len(log) > 2 * UPDATE_LOG:
                del log[:UPDATE_LOG]
                self._log_base += UPDATE_LOG
        self.allocatable[row] = values[:4]
        self.requested[row] = values[4:7]
        self.non_zero[row] = values[7:]
        self.pod_count[row] = len(ni.pods)
        self.unschedulable[row] = ni.unschedulable
        self.taint_group[row] = self._taint_id(ni.taints)
        if self._scalar_rows is not None and (ni.allocatable.scalar or ni.requested.scalar):
            self._index_scalars(row, ni)
        for name, (alloc_col, used_col) in self._scalars.items():
            alloc_col[row], used_col[row] = self._scalar_values(ni, name)
        for counts, count in self._pod_counts.values():
            counts[row] = count(ni)
        if old.labels is not ni.labels and old.labels != ni.labels:
            self._label_classes.clear()
        if old.image_states is not ni.image_states:
            self._images.clear()

    def changed_since(self, version: int) -> np.ndarray:
        """The rows updated after `version`, in row order (as flatnonzero(row_version >
        version)): from the update log when it reaches back that far."""
        if version < self._log_base:
            return np.flatnonzero(self.row_version > version)
        rows = self._log[version - self._log_base:]
        if len(rows) > 1:
            rows = sorted(set(rows))
        return np.array(rows, np.int64)

    def _taint_id(self, taints: list) -> int:
        key = _taint_signature(taints)
        tid = self._taint_ids.get(key)
        if tid is None:
            tid = self._taint_ids[key] = len(self.taint_groups)
            self.taint_groups.append(list(taints))
        return tid

    # --- columns built on demand -------------------------------------------------------------
    @staticmethod
    def _scalar_values(ni: NodeInfo, name: str) -> tuple[int, int]:
        return ni.allocatable.scalar.get(name, 0), ni.requested.scalar.get(name, 0)

    def scalar(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """(allocatable, requested) of an extended or other scalar resource.

        Built from the rows that hold the resource at all (an index of scalar names to rows,
        made in one pass on first use), so that a cluster with a distinct resource per node
        does not walk every node per name; the MAX_SCALARS most recently read are kept."""
        cols = self._scalars.pop(name, None)
        if cols is None:
            if len(self._scalars) >= MAX_SCALARS:
                del self._scalars[next(iter(self._scalars))]   # the least recently read
            alloc = np.zeros(self.size, np.int64)
            used = np.zeros(self.size, np.int64)
            for row in self._scalar_index().get(name, ()):
                a, u = self._scalar_values(self.node_infos[row], name)
                if abs(a) >= SAFE_LIMIT or abs(u) >= SAFE_LIMIT:
                    self.exact = False
                    continue
                alloc[row], used[row] = a, u
            cols = (alloc, used)
        self._scalars[name] = cols
        return cols

    def _scalar_index(self) -> dict[str, set[int]]:
        """The rows whose nodes have each scalar resource allocatable or requested (a row may
        stay listed after it lost the resource: its value is then 0)."""
        if self._scalar_rows is None:
            self._scalar_rows = {}
            for row, ni in enumerate(self.node_infos):
                self._index_scalars(row, ni)
        return self._scalar_rows

    def _index_scalars(self, row: int, ni: NodeInfo) -> None:
        index = self._scalar_rows
        for name in (*ni.allocatable.scalar, *ni.requested.scalar):
            rows = index.get(name)
            if rows is None:
                rows = index[name] = set()
            rows.add(row)

    def has_label(self, key: str) -> np.ndarray:
        """Whether each node has the label key at all."""
        cached = self._label_classes.get(("has", key))
        if cached is None:
            mask = np.array([key in ni.labels for ni in self.node_infos], bool)
            cached = self._label_classes[("has", key)] = (mask.reshape(self.size), [])
        return cached[0]

    def label_classes(self, keys: tuple[str, ...]) -> tuple[np.ndarray, list[dict]]:
        """Nodes grouped by their labels under `keys`: (class id per row, labels per class).

        A plugin whose verdict depends only on those labels decides once per class.
        """
        cached = self._label_classes.get(keys)
        if cached is None:
            ids: dict[tuple, int] = {}
            reps: list[dict] = []
            out = np.empty(self.size, np.int32)
            for row, ni in enumerate(self.node_infos):
                labels = ni.labels
                key = tuple(labels.get(k) if k in labels else None for k in keys)
                cid = ids.get(key)
                if cid is None:
                    cid = ids[key] = len(reps)
                    reps.append({k: labels[k] for k in keys if k in labels})
                out[row] = cid
            cached = self._label_classes[keys] = (out, reps)
        return cached

    def class_values(self, keys: tuple[str, ...], key: str) -> list:
        """Each class's value of `key` (None where its nodes lack it), label_classes(keys)'s."""
        cached = self._label_classes.get(("values", keys, key))
        if cached is None:
            _, classes = self.label_classes(keys)
            cached = self._label_classes[("values", keys, key)] = (
                None, [labels.get(key) for labels in classes])
        return cached[1]

    def class_lacks(self, keys: tuple[str, ...], key: str) -> np.ndarray:
        """Whether each class of label_classes(keys) lacks `key`."""
        cached = self._label_classes.get(("lacks", keys, key))
        if cached is None:
            values = self.class_values(keys, key)
            cached = self._label_classes[("lacks", keys, key)] = (
                np.array([v is None for v in values], bool).reshape(len(values)), [])
        return cached[0]

    def pod_counts(self, key: tuple, count) -> np.ndarray:
        """count(node_info) for every row, kept up to date as rows change: for the counts of
        matching pods PodTopologySpread sums per domain. `key` names what count counts."""
        cached = self._pod_counts.get(key)
        if cached is None:
            if len(self._pod_counts) >= MAX_POD_COUNTS:
                self._pod_counts.clear()
            counts = np.array([count(ni) for ni in self.node_infos], np.int64).reshape(self.size)
            cached = self._pod_counts[key] = (counts, count)
        return cached[0]

    def kept(self, key, compute, compute_row=None) -> np.ndarray:
        """compute(rows) for every row, kept up to date: only the rows changed since the last
        read are computed again, one by one with compute_row(row) when they are few (a cycle
        changes a row or two, where numpy's fixed cost per call would dominate). For values
        where a row depends on that row's columns alone (and on what `key` names: the pod's
        request, its tolerations...)."""
        return self._kept_entry(key, compute, compute_row)[0]

    def kept_nonzero(self, key, compute, compute_row=None) -> tuple[np.ndarray, int]:
        """kept(...) and how many of its values are not zero (for a verdict: the nodes it
        rejects), counted once and then kept up to date with the changed rows."""
        entry = self._kept_entry(key, compute, compute_row)
        if entry[2] is None:
            entry[2] = int(np.count_nonzero(entry[0]))
        return entry[0], entry[2]

    def _kept_entry(self, key, compute, compute_row) -> list:
        """[values, version read at, nonzero count or None (not counted yet)]."""
        entry = self._kept.get(key)
        if entry is None:
            if len(self._kept) >= MAX_KEPT:
                self._kept.clear()
            entry = self._kept[key] = [compute(np.arange(self.size)), self.version, None]
        elif entry[1] != self.version:
            changed = self.changed_since(entry[1])
            values = entry[0]
            counted = entry[2] is not None
            if counted:
                entry[2] -= int(np.count_nonzero(values[changed]))
            if compute_row is not None and len(changed) <= FEW_ROWS:
                for row in changed.tolist():
                    values[row] = compute_row(row)
            else:
                values[changed] = compute(changed)
            if counted:
                entry[2] += int(np.count_nonzero(values[changed]))
            entry[1] = self.version
        return entry

    def derived(self, key, build):
        """An object built from the columns once and kept (it brings itself up to date from
        row_version when read): build() makes it on first use; bounded like kept()."""
        value = self._derived.get(key)
        if value is None:
            if len(self._derived) >= MAX_KEPT:
                self._derived.clear()
            value = self._derived[key] = build()
        return value

    def image(self, name: str) -> tuple[np.ndarray, int]:
        """(size of the image on each node or 0, how many nodes hold it)."""
        cached = self._images.get(name)
        if cached is None:
            sizes = np.zeros(self.size, np.int64)
            num_nodes = 0
            for row, ni in enumerate(self.node_infos):
                state = ni.image_states.get(name)
                if state is not None:
                    sizes[row] = state.size
                    num_nodes = state.num_nodes
            cached = self._images[name] = (sizes, num_nodes)
        return cached

    def rows_of(self, node_infos) -> np.ndarray | None:
        """Row numbers of the given node infos, or None when one is not the snapshot's own
        (a what-if copy with pods added or removed)."""
        position, own = self.position, self.node_infos
        rows = np.empty(len(node_infos), np.int64)
        for i, ni in enumerate(node_infos):
            row = position.get(ni.name)
            if row is None or own[row] is not ni:
                return None
            rows[i] = row
        return rows


def columns_of(snapshot) -> NodeColumns:
    """The snapshot's columns, built and attached on first use."""
    if snapshot.columns is None:
        snapshot.columns = NodeColumns(snapshot.node_info_list, snapshot.position)
    return snapshot.columns
