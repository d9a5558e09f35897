"""RequestedToCapacityRatio: score utilization through a broken-linear shape.

requested_to_capacity_ratio.go; the shape function is plugins/helper's (helper/shape_score.go).
"""
from __future__ import annotations

import math

import numpy as np

from ...framework.interfaces import MAX_NODE_SCORE
from ..helper import (
    MAX_CUSTOM_PRIORITY_SCORE,
    MAX_UTILIZATION,
    build_broken_linear_function,
)
from .resource_allocation import safe_capacity


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


def requested_to_capacity_ratio_vector_scorer(resources: list[dict], shape: list[dict]):
    """The scorer above over matrices: the shape is tabulated on the integer utilizations."""
    scale = MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE
    points = [(int(p.get("utilization", 0)), int(p.get("score", 0)) * scale) for p in shape]
    raw = build_broken_linear_function(points)
    table = np.array([raw(u) for u in range(MAX_UTILIZATION + 1)], np.int64)
    weights = [r["weight"] for r in resources]

    def scorer(requested: np.ndarray, allocatable: np.ndarray) -> np.ndarray:
        node_score = np.zeros(len(requested), np.int64)
        weight_sum = np.zeros(len(requested), np.int64)
        for i, weight in enumerate(weights):
            capacity, wanted = allocatable[:, i], requested[:, i]
            over = wanted > capacity
            utilization = np.where(over, MAX_UTILIZATION,
                                   wanted * MAX_UTILIZATION // safe_capacity(capacity))
            score = np.where(capacity != 0, table[utilization], 0)
            node_score += score * weight
            weight_sum += (score > 0) * weight
        mean = node_score.astype(np.float64) / np.maximum(weight_sum, 1).astype(np.float64)
        whole = np.floor(mean)
        rounded = (whole + (mean - whole >= 0.5)).astype(np.int64)
        return np.where(weight_sum > 0, rounded, 0)

    return scorer
