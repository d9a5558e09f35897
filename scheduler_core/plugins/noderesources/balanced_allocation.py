"""NodeResourcesBalancedAllocation: favour nodes whose resource usage stays balanced.

framework/plugins/noderesources/balanced_allocation.go. The score is (1 - std) * 100 where std
is the standard deviation of the requested/allocatable fractions of the configured resources,
counting the pod's real requests (not the non-zero defaults).
"""
from __future__ import annotations

import copy
import math

import numpy as np

from ...errors import ConfigError, child, duplicate, invalid
from ...framework.cycle_state import CycleState
from ...framework.interfaces import MAX_NODE_SCORE, PreScorePlugin, ScorePlugin
from ...framework.status import Status
from ...framework.types import NodeInfo, PodInfo
from .. import names
from .resource_allocation import DEFAULT_RESOURCES, PreScoreState, ResourceAllocationScorer

NAME = names.NODE_RESOURCES_BALANCED_ALLOCATION
PRE_SCORE_STATE_KEY = "PreScore" + NAME


def balanced_resource_scorer(requested: list[int], allocatable: list[int]) -> int:
    fractions = []
    total = 0.0
    for i, capacity in enumerate(allocatable):
        if capacity == 0:
            continue
        fraction = min(float(requested[i]) / float(capacity), 1.0)
        total += fraction
        fractions.append(fraction)
    std = 0.0
    # With two resources the deviation is simply half their difference.
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = total / len(fractions)
        acc = 0.0
        for fraction in fractions:
            acc = acc + (fraction - mean) * (fraction - mean)
        std = math.sqrt(acc / len(fractions))
    return int((1 - std) * float(MAX_NODE_SCORE))


def balanced_resource_vector_scorer(requested: np.ndarray, allocatable: np.ndarray) -> np.ndarray:
    """balanced_resource_scorer over matrices, with the same float operations in the same order.

    Nodes are grouped by which resources they have (a column of allocatable 0 is left out), so
    each group computes the deviation over exactly the fractions the scalar scorer sees.
    """
    has = allocatable != 0
    fractions = np.minimum(requested.astype(np.float64)
                           / np.where(has, allocatable, 1).astype(np.float64), 1.0)
    patterns = has @ (1 << np.arange(has.shape[1], dtype=np.int64))
    out = np.empty(len(requested), np.int64)
    for pattern in np.unique(patterns).tolist():
        rows = patterns == pattern
        f = fractions[rows][:, [i for i in range(has.shape[1]) if pattern >> i & 1]]
        count = f.shape[1]
        std = np.zeros(len(f))
        if count == 2:
            std = np.abs((f[:, 0] - f[:, 1]) / 2)
        elif count > 2:
            total = np.zeros(len(f))
            for i in range(count):
                total = total + f[:, i]
            mean = total / count
            acc = np.zeros(len(f))
            for i in range(count):
                acc = acc + (f[:, i] - mean) * (f[:, i] - mean)
            std = np.sqrt(acc / count)
        out[rows] = ((1 - std) * float(MAX_NODE_SCORE)).astype(np.int64)
    return out


class BalancedAllocation(PreScorePlugin, ScorePlugin):
    NAME = NAME

    def __init__(self, args: dict):
        self.scorer = ResourceAllocationScorer(NAME, balanced_resource_scorer,
                                               args["resources"], use_requested=True,
                                               vector_scorer=balanced_resource_vector_scorer)

    # PreScore / Score -------------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: PodInfo, nodes) -> Status | None:
        pod_requests = self.scorer.pod_requests(pod)
        # Best-effort pods would all pile onto the same "balanced" node (kubernetes#129138).
        if self.scorer.is_best_effort(pod_requests):
            return Status.skip()
        state.write(PRE_SCORE_STATE_KEY, PreScoreState(pod_requests))
        return None

    def score(self, state: CycleState, pod: PodInfo, node_info: NodeInfo):
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is not None:
            pod_requests = s.pod_requests
        else:
            pod_requests = self.scorer.pod_requests(pod)
            if self.scorer.is_best_effort(pod_requests):
                return 0, None
        return self.scorer.score(node_info, pod_requests)

    def score_vector(self, state: CycleState, pod: PodInfo, cols, rows):
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return None
        return self.scorer.score_vector(cols, rows, s.pod_requests)


# Args ---------------------------------------------------------------------------------------
def default_args(args: dict) -> dict:
    """SetDefaults_NodeResourcesBalancedAllocationArgs: cpu and memory, weights 1."""
    out = copy.deepcopy(dict(args or {}))
    if not out.get("resources"):
        out["resources"] = [dict(r) for r in DEFAULT_RESOURCES]
    for resource in out["resources"]:
        if not resource.get("weight"):
            resource["weight"] = 1
    return out


def validate_args(args: dict, path: str) -> list[str]:
    """ValidateNodeResourcesBalancedAllocationArgs: unique names, every weight exactly 1."""
    errs = []
    seen = set()
    base = child(path, "resources")
    for i, resource in enumerate(args.get("resources") or []):
        name = resource.get("name", "")
        if name in seen:
            errs.append(duplicate(f"{base}[{i}].name", name))
        else:
            seen.add(name)
        weight = resource.get("weight", 0)
        if weight != 1:
            errs.append(invalid(f"{base}[{i}].weight", weight, "must be 1"))
    return errs


def new(args: dict, handle) -> BalancedAllocation:
    errs = validate_args(args, "")
    if errs:
        raise ConfigError(errs)
    return BalancedAllocation(args)
