"""RequestedToCapacityRatio: score utilization through a broken-linear shape.

requested_to_capacity_ratio.go; the shape function is plugins/helper's (helper/shape_score.go).
"""
from __future__ import annotations

import math

from ...framework.interfaces import MAX_NODE_SCORE
from ..helper import (
    MAX_CUSTOM_PRIORITY_SCORE,
    MAX_UTILIZATION,
    build_broken_linear_function,
)


def _round_half_away(x: float) -> int:
    """math.Round: halves round away from zero (Python's round() would round to even)."""
    magnitude = abs(x)
    whole = math.floor(magnitude)
    if magnitude - whole >= 0.5:
        whole += 1
    return int(whole) if x >= 0 else -int(whole)


def requested_to_capacity_ratio_scorer(resources: list[dict], shape: list[dict]):
    scale = MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE
    points = [(int(p.get("utilization", 0)), int(p.get("score", 0)) * scale) for p in shape]
    raw = build_broken_linear_function(points)
    weights = [r["weight"] for r in resources]

    def resource_score(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return raw(MAX_UTILIZATION)
        return raw(requested * MAX_UTILIZATION // capacity)

    def scorer(requested: list[int], allocatable: list[int]) -> int:
        node_score = weight_sum = 0
        for i, capacity in enumerate(allocatable):
            if capacity == 0:
                continue
            score = resource_score(requested[i], capacity)
            # Resources scoring zero do not count towards the mean at all.
            if score > 0:
                node_score += score * weights[i]
                weight_sum += weights[i]
        if weight_sum == 0:
            return 0
        return _round_half_away(float(node_score) / float(weight_sum))

    return scorer
