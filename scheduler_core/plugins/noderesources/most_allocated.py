"""MostAllocated: favour nodes with more requested capacity, for bin packing (most_allocated.go)."""
from __future__ import annotations

import numpy as np

from ...framework.interfaces import MAX_NODE_SCORE
from .resource_allocation import safe_capacity, weighted_mean_scorer, weighted_mean_vector_scorer


def most_requested_score(requested: int, capacity: int) -> int:
    """Requested share of capacity on 0..MAX_NODE_SCORE, capped at full.

    requested can exceed capacity because pods without requests count the non-zero defaults.
    """
    if capacity == 0:
        return 0
    requested = min(requested, capacity)
    return requested * MAX_NODE_SCORE // capacity


def most_resource_scorer(resources: list[dict]):
    """Weighted mean of most_requested_score over resources the node has."""
    return weighted_mean_scorer(resources, most_requested_score)


def most_requested_vector_score(requested, capacity):
    return np.minimum(requested, capacity) * MAX_NODE_SCORE // safe_capacity(capacity)


def most_resource_vector_scorer(resources: list[dict]):
    return weighted_mean_vector_scorer(resources, most_requested_vector_score)
