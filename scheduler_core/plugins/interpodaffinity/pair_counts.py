"""Counts per topology pair (key, value) held as arrays over the columns' classes of nodes.

PreFilter's counts on the columns are sums over nodes alike under a topology key: one array
per key, indexed by class. `PairCounts` offers them as the per-node code's dict (a pair at zero
is absent), and keeps AddPod/RemovePod's changes beside the arrays: a copy (each preemption
candidate's CycleState clone) shares the arrays and copies only the changes.
"""
from __future__ import annotations

import weakref

import numpy as np


class ValueIndex:
    """Per topology key: the columns' class ids, topology value -> class id, and the classes."""

    def __init__(self):
        self._cache: dict[str, tuple] = {}

    def of(self, cols, key: str) -> tuple[np.ndarray, dict, list[dict]]:
        class_ids, classes = cols.label_classes((key,))
        cached = self._cache.get(key)
        if cached is None or cached[0] is not class_ids:
            values = {labels[key]: cid for cid, labels in enumerate(classes) if key in labels}
            cached = self._cache[key] = (class_ids, values, classes)
        return cached

    def per_node(self, cols, key: str, value_counts) -> np.ndarray:
        """Per node, value_counts[value of the node's key label] (0 without the label)."""
        class_ids, values, classes = self.of(cols, key)
        per_class = np.zeros(len(classes), np.int64)
        for value, count in value_counts:
            cid = values.get(value)
            if cid is not None:
                per_class[cid] += count
        return per_class[class_ids]


_VALUES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def value_index(cols) -> ValueIndex:
    index = _VALUES.get(cols)
    if index is None:
        index = _VALUES[cols] = ValueIndex()
    return index


def class_sums(cols, key: str, per_node: np.ndarray) -> np.ndarray:
    """Per class of nodes alike under `key`, the sum over its nodes carrying the key."""
    class_ids, classes = cols.label_classes((key,))
    sums = np.bincount(class_ids, weights=per_node * cols.has_label(key), minlength=len(classes))
    return sums.astype(np.int64)


class PairCounts:
    """{(topology key, value): count} with a dict's get, set, del, truth and equality."""

    __slots__ = ("base", "cols", "delta", "nonzero")

    def __init__(self, cols, base: dict | None = None, delta: dict | None = None,
                 nonzero: int = 0):
        self.cols = cols
        self.base = base if base is not None else {}   # key -> (class ids, values, classes, sums)
        self.delta = delta if delta is not None else {}  # pair -> change since the arrays
        self.nonzero = nonzero                          # pairs whose count is not zero

    # --- building (before any change) ----------------------------------------------------------
    def add(self, key: str, per_node: np.ndarray) -> None:
        """Add per-node values to the pairs of the nodes carrying `key`."""
        sums = class_sums(self.cols, key, per_node)
        entry = self.base.get(key)
        if entry is None:
            class_ids, values, classes = value_index(self.cols).of(self.cols, key)
            self.base[key] = (class_ids, values, classes, sums)
        else:
            np.add(entry[3], sums, out=entry[3])
        self.nonzero = sum(int(np.count_nonzero(e[3])) for e in self.base.values())

    # --- the dict's interface ------------------------------------------------------------------
    def _base(self, pair) -> int:
        entry = self.base.get(pair[0])
        if entry is None:
            return 0
        cid = entry[1].get(pair[1])
        return 0 if cid is None else int(entry[3][cid])

    def get(self, pair, default=None):
        total = self._base(pair) + self.delta.get(pair, 0)
        return total if total else default

    def __setitem__(self, pair, count: int) -> None:
        before = self.get(pair, 0)
        self.delta[pair] = count - self._base(pair)
        self.nonzero += (count != 0) - (before != 0)

    def __delitem__(self, pair) -> None:
        self[pair] = 0

    def __bool__(self) -> bool:
        return self.nonzero > 0

    def as_dict(self) -> dict:
        out = {}
        for key, (_, _, classes, sums) in self.base.items():
            for cid in np.flatnonzero(sums).tolist():
                out[(key, classes[cid][key])] = int(sums[cid])
        for pair, change in self.delta.items():
            total = out.get(pair, 0) + change
            if total:
                out[pair] = total
            else:
                out.pop(pair, None)
        return out

    def __eq__(self, other) -> bool:
        return self.as_dict() == (other.as_dict() if isinstance(other, PairCounts) else other)

    __hash__ = None

    def copy(self) -> PairCounts:
        return PairCounts(self.cols, self.base, dict(self.delta), self.nonzero)

    # --- the columns' view ---------------------------------------------------------------------
    def topology_keys(self) -> set[str]:
        """The keys some pair with a non-zero count may have."""
        return set(self.base) | {key for key, _ in self.delta}

    def per_node(self, key: str) -> np.ndarray:
        """Per node, the count of the pair (key, the node's value)."""
        entry = self.base.get(key)
        changes = [(value, c) for (k, value), c in self.delta.items() if k == key and c]
        if entry is None:
            return value_index(self.cols).per_node(self.cols, key, changes)
        class_ids, values, _, sums = entry
        if changes:
            sums = sums.copy()
            for value, change in changes:
                cid = values.get(value)
                if cid is not None:
                    sums[cid] += change
        return sums[class_ids]
