"""LeastAllocated: favour nodes with more unrequested capacity (least_allocated.go)."""
from __future__ import annotations

from ...framework.interfaces import MAX_NODE_SCORE
from .resource_allocation import safe_capacity, weighted_mean_scorer, weighted_mean_vector_scorer


def least_requested_score(requested: int, capacity: int) -> int:
    """Unrequested share of capacity on 0..MAX_NODE_SCORE; 0 once the request exceeds it."""
    if capacity == 0 or requested > capacity:
        return 0
    return (capacity - requested) * MAX_NODE_SCORE // capacity


def least_resource_scorer(resources: list[dict]):
    """Weighted mean of least_requested_score over resources the node has."""
    return weighted_mean_scorer(resources, least_requested_score)


def least_requested_vector_score(requested, capacity):
    fits = requested <= capacity
    return (capacity - requested) * MAX_NODE_SCORE // safe_capacity(capacity) * fits


def least_resource_vector_scorer(resources: list[dict]):
    return weighted_mean_vector_scorer(resources, least_requested_vector_score)
