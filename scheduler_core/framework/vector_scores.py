"""A Score plugin's raw scores from its vectorized Score, when it has one and the cycle runs on
the columns (scheduler_core.columns); the framework normalizes and weights them exactly as it
does per node. It lives with the framework, which calls it: the columns build on the framework,
never the other way round."""
from __future__ import annotations

import numpy as np

from .cycle_state import COLUMNS_KEY

_ROWS_KEY = "columns.rows"


def remember_rows(state, nodes: list, rows) -> None:
    """The filter found these nodes at these rows: scoring them needs no lookup."""
    state.write(_ROWS_KEY, (nodes, rows))


def vector_raw_scores(pl, state, pod, nodes) -> np.ndarray | None:
    """The plugin's raw scores for `nodes`, or None to score them one by one."""
    vector = getattr(pl, "score_vector", None)
    if vector is None:
        return None
    cols = state.get(COLUMNS_KEY)
    if cols is None or not cols.exact:
        return None
    rows = rows_of(state, cols, nodes)
    if rows is None:
        return None
    return vector(state, pod, cols, rows)


def rows_of(state, cols, nodes: list):
    """The row numbers of this cycle's feasible nodes, looked up once for all plugins (None
    when one is not the snapshot's own)."""
    cached = state.get(_ROWS_KEY)
    if cached is not None and cached[0] is nodes:
        return cached[1]
    rows = cols.rows_of(nodes)
    state.write(_ROWS_KEY, (nodes, rows))
    return rows


def vector_normalized(ext, state, pod, raw) -> np.ndarray | None:
    """NormalizeScore on the whole array, when the extension has a vectorized one."""
    vector = getattr(ext, "normalize_vector", None)
    if vector is None or state.get(COLUMNS_KEY) is None or not len(raw):
        return None
    return vector(state, pod, np.asarray(raw, np.int64))
