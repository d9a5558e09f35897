"""LeastAllocated: favour nodes with more unrequested capacity (least_allocated.go)."""
from __future__ import annotations

from ...framework.interfaces import MAX_NODE_SCORE
from .resource_allocation import weighted_mean_scorer


def least_requested_score(requested: int, capacity: int) -> int:
    """Unrequested share of capacity on 0..MAX_NODE_SCORE; 0 once the request exceeds it."""
    if capacity == 0 or requested > capacity:
        return 0
    return (capacity - requested) * MAX_NODE_SCORE // capacity


def least_resource_scorer(resources: list[dict]):
    """Weighted mean of least_requested_score over resources the node has."""
    return weighted_mean_scorer(resources, least_requested_score)
