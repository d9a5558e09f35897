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


def vector_target(state, nodes) -> tuple | None:
    """(the columns, the rows of `nodes`) when the cycle can score them on the columns, else
    None; worked out once per Score point for all its plugins."""
    cols = state.get(COLUMNS_KEY)
    if cols is None or not cols.exact:
        return None
    rows = rows_of(state, cols, nodes)
    return None if rows is None else (cols, rows)


def vector_raw_scores(pl, state, pod, target) -> np.ndarray | None:
    """The plugin's raw scores for the nodes of `target` (vector_target's), or None to score
    them one by one."""
    vector = getattr(pl, "score_vector", None)
    if vector is None or target is None:
        return None
    return vector(state, pod, *target)


def rows_of(state, cols, nodes: list):
    """The row numbers of this cycle's feasible nodes, looked up once for all plugins (None
    when one is not the snapshot's own)."""
    cached = state.get(_ROWS_KEY)
    if cached is not None and cached[0] is nodes:
        return cached[1]
    rows = cols.rows_of(nodes)
    state.write(_ROWS_KEY, (nodes, rows))
    return rows


def vector_normalized(ext, state, pod, raw, on_columns: bool) -> np.ndarray | None:
    """NormalizeScore on the whole array, when the extension has a vectorized one and the
    cycle runs on the columns."""
    vector = getattr(ext, "normalize_vector", None)
    if vector is None or not on_columns or not len(raw):
        return None
    return vector(state, pod, np.asarray(raw, np.int64))
