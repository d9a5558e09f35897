"""What a vectorized Filter returns: a reason code per node, and what each code means."""
from __future__ import annotations

import numpy as np

from ..framework.status import Code, Status


class Explained(dict):
    """Outcomes worked out from the code itself on first lookup: a plugin whose codes are
    kept across cycles never lists which codes occur."""

    def __init__(self, explain):
        super().__init__()
        self._explain = explain

    def __missing__(self, kind: int):
        outcome = self[kind] = self._explain(kind)
        return outcome


class Verdict:
    """kinds[row] == 0: the node passes; otherwise outcomes[kinds[row]] is (Code, reasons).

    Reasons are interned per kind, so a cycle that rejects thousands of nodes for the same
    few reasons holds those few tuples once.
    """

    __slots__ = ("kinds", "outcomes", "rejected")

    def __init__(self, kinds: np.ndarray, outcomes: dict[int, tuple[Code, tuple[str, ...]]],
                 rejected: int | None = None):
        self.kinds = kinds
        self.outcomes = outcomes
        # How many nodes it rejects, when the plugin knows (None: counted when needed).
        self.rejected = rejected

    def rejects_any(self) -> bool:
        if self.rejected is None:
            self.rejected = int(np.count_nonzero(self.kinds))
        return self.rejected > 0

    @classmethod
    def uniform(cls, size: int, outcome: tuple[Code, tuple[str, ...]] | None) -> Verdict:
        """Every node alike: all pass (outcome None) or all rejected with outcome."""
        if outcome is None:
            return cls(_passing(size), {}, 0)
        return cls(np.ones(size, np.int32), {1: outcome})

    @classmethod
    def by_class(cls, class_ids: np.ndarray, class_outcomes: list) -> Verdict:
        """Nodes grouped in classes, each class passing (None) or rejected with an outcome."""
        if all(outcome is None for outcome in class_outcomes):
            return cls(_passing(len(class_ids)), {}, 0)
        kinds_of_class = np.zeros(len(class_outcomes), np.int32)
        outcomes: dict[int, tuple] = {}
        interned: dict[tuple, int] = {}
        for cid, outcome in enumerate(class_outcomes):
            if outcome is not None:
                kind = interned.setdefault(outcome, len(interned) + 1)
                outcomes[kind] = outcome
                kinds_of_class[cid] = kind
        return cls(kinds_of_class[class_ids], outcomes)

    def status(self, row: int, plugin: str) -> Status:
        code, reasons = self.outcomes[int(self.kinds[row])]
        return Status(code, *reasons, plugin=plugin)


_PASSING: dict[int, np.ndarray] = {}


def _passing(size: int) -> np.ndarray:
    """Zeros for `size` nodes, shared and read-only: most verdicts let every node pass."""
    kinds = _PASSING.get(size)
    if kinds is None:
        kinds = _PASSING[size] = np.zeros(size, np.int32)
        kinds.flags.writeable = False
    return kinds
