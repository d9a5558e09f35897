"""LeastAllocated: favour nodes with more unrequested capacity (least_allocated.go)."""
from __future__ import annotations

from ...framework.interfaces import MAX_NODE_SCORE


def least_requested_score(requested: int, capacity: int) -> int:
    """Unrequested share of capacity on 0..MAX_NODE_SCORE; 0 once the request exceeds it."""
    if capacity == 0 or requested > capacity:
        return 0
    return (capacity - requested) * MAX_NODE_SCORE // capacity


def least_resource_scorer(resources: list[dict]):
    """Weighted mean of least_requested_score over resources the node has."""
    weights = [r["weight"] for r in resources]

    def scorer(requested: list[int], allocatable: list[int]) -> int:
        node_score = weight_sum = 0
        for i, capacity in enumerate(allocatable):
            if capacity == 0:
                continue
            node_score += least_requested_score(requested[i], capacity) * weights[i]
            weight_sum += weights[i]
        return node_score // weight_sum if weight_sum else 0

    return scorer
