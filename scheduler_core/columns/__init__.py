"""Node state as numpy columns, and the vectorized Filter and Score paths built on them.

The per-node object path (each plugin's `filter` and `score` on one NodeInfo) stays the
reference. A plugin that can also offers `filter_vector(state, pod, columns)` and
`score_vector(state, pod, columns, rows)`; when every plugin a cycle runs at a point offers one,
that point runs on the columns for all nodes at once, with the same results. The
SCHEDULER_CORE_PATH environment variable picks the path: "vector" (the default) or "reference".
"""
from __future__ import annotations

import os

from ..framework.cycle_state import COLUMNS_KEY

__all__ = ["COLUMNS_KEY", "PATH_ENV", "REFERENCE", "VECTOR", "vector_path_enabled"]

PATH_ENV = "SCHEDULER_CORE_PATH"
VECTOR, REFERENCE = "vector", "reference"


def vector_path_enabled() -> bool:
    path = os.environ.get(PATH_ENV, VECTOR)
    if path not in (VECTOR, REFERENCE):
        raise ValueError(f"{PATH_ENV} must be {VECTOR!r} or {REFERENCE!r}, got {path!r}")
    return path == VECTOR
