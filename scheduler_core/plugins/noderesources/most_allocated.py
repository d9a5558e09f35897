"""MostAllocated: favour nodes with more requested capacity, for bin packing (most_allocated.go)."""
from __future__ import annotations

from ...framework.interfaces import MAX_NODE_SCORE


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
    weights = [r["weight"] for r in resources]

    def scorer(requested: list[int], allocatable: list[int]) -> int:
        node_score = weight_sum = 0
        for i, capacity in enumerate(allocatable):
            if capacity == 0:
                continue
            node_score += most_requested_score(requested[i], capacity) * weights[i]
            weight_sum += weights[i]
        return node_score // weight_sum if weight_sum else 0

    return scorer
