"""The scorer shared by NodeResourcesFit and NodeResourcesBalancedAllocation.

resource_allocation.go: for each configured resource, the node's allocatable amount and what
would be requested on it with the pod added; a strategy function turns both lists into a score.
"""
from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import numpy as np

from ...framework.status import Status
from ...framework.types import CPU, EPHEMERAL_STORAGE, MEMORY, NodeInfo, PodInfo
from ...validation import is_qualified_name

DEFAULT_RESOURCES = ({"name": CPU, "weight": 1}, {"name": MEMORY, "weight": 1})


def _is_prefixed_native(name: str) -> bool:
    return "kubernetes.io/" in name


@lru_cache(maxsize=1024)
def is_extended_resource_name(name: str) -> bool:
    """v1helper.IsExtendedResourceName: a domain-prefixed name outside kubernetes.io."""
    if "/" not in name or _is_prefixed_native(name) or name.startswith("requests."):
        return False
    return not is_qualified_name("requests." + name)


@lru_cache(maxsize=1024)
def is_scalar_resource_name(name: str) -> bool:
    """v1helper.IsScalarResourceName: the names framework.Resource keeps in ScalarResources."""
    return (is_extended_resource_name(name) or _is_prefixed_native(name)
            or name.startswith(("hugepages-", "attachable-volumes-")))


# How a configured resource is looked up on a node, decided once per plugin instance.
_CPU, _MEMORY, _EPHEMERAL, _SCALAR, _OTHER = range(5)


def _kind(name: str) -> int:
    if name == CPU:
        return _CPU
    if name == MEMORY:
        return _MEMORY
    if name == EPHEMERAL_STORAGE:
        return _EPHEMERAL
    return _SCALAR if is_scalar_resource_name(name) else _OTHER


def weighted_mean_scorer(resources: list[dict], resource_score: Callable[[int, int], int]):
    """The weighted mean of resource_score(requested, capacity), truncated, over the resources
    the node has: LeastAllocated's and MostAllocated's strategy function."""
    weights = [r["weight"] for r in resources]

    def scorer(requested: list[int], allocatable: list[int]) -> int:
        node_score = weight_sum = 0
        for i, capacity in enumerate(allocatable):
            if capacity == 0:
                continue
            node_score += resource_score(requested[i], capacity) * weights[i]
            weight_sum += weights[i]
        return node_score // weight_sum if weight_sum else 0

    return scorer


def weighted_mean_vector_scorer(resources: list[dict],
                                resource_score: Callable[[np.ndarray, np.ndarray], np.ndarray]):
    """weighted_mean_scorer over matrices (a row per node, a column per resource), where
    resource_score works on columns and may return anything where the capacity is 0."""
    weights = [r["weight"] for r in resources]

    def scorer(requested: np.ndarray, allocatable: np.ndarray) -> np.ndarray:
        node_score = np.zeros(len(requested), np.int64)
        weight_sum = np.zeros(len(requested), np.int64)
        for i, weight in enumerate(weights):
            has = allocatable[:, i] != 0
            node_score += np.where(has, resource_score(requested[:, i], allocatable[:, i]), 0) \
                * weight
            weight_sum += has * weight
        return np.where(weight_sum > 0, node_score // np.maximum(weight_sum, 1), 0)

    return scorer


def safe_capacity(capacity: np.ndarray) -> np.ndarray:
    """The capacity with zeros replaced by ones, for dividing where the result is unused."""
    return np.where(capacity == 0, 1, capacity)


class PreScoreState:
    """The pod's requests in the configured resources' order, computed once at PreScore."""

    __slots__ = ("pod_requests",)

    def __init__(self, pod_requests: list[int]):
        self.pod_requests = pod_requests

    def clone(self) -> PreScoreState:
        return self


class ResourceAllocationScorer:
    """resourceAllocationScorer: `scorer(requested, allocatable)` over the configured resources.

    use_requested picks the node's plain requests and the pod's own requests; otherwise cpu and
    memory use the non-zero defaults (100m, 200Mi) for containers that request nothing.
    """

    def __init__(self, name: str, scorer: Callable[[list[int], list[int]], int],
                 resources: list[dict], use_requested: bool = False, vector_scorer=None):
        self.strategy_name = name
        self.scorer = scorer
        # scorer's twin over matrices, for the columns path (None: score node by node).
        self.vector_scorer = vector_scorer
        self.resources = resources
        self.use_requested = use_requested
        # A resource without a name passes Go's validation and matches nothing.
        self._lookups = [(_kind(r.get("name", "")), r.get("name", "")) for r in resources]

    def pod_requests(self, pod: PodInfo) -> list[int]:
        """calculatePodResourceRequestList, in the order of the configured resources."""
        out = []
        for kind, name in self._lookups:
            if kind == _CPU:
                out.append(pod.requests.milli_cpu if self.use_requested else pod.non_zero_cpu)
            elif kind == _MEMORY:
                out.append(pod.requests.memory if self.use_requested else pod.non_zero_mem)
            else:
                out.append(pod.requests.get(name))
        return out

    @staticmethod
    def is_best_effort(pod_requests: list[int]) -> bool:
        return not any(pod_requests)

    def score(self, node_info: NodeInfo, pod_requests: list[int]) -> tuple[int, Status | None]:
        if not self._lookups:
            return 0, Status.as_error("resources not found")
        alloc = node_info.allocatable
        used = node_info.requested
        cpu_mem = used if self.use_requested else node_info.non_zero_requested
        requested = [0] * len(pod_requests)
        allocatable = [0] * len(pod_requests)
        for i, (kind, name) in enumerate(self._lookups):
            pod_request = pod_requests[i]
            if kind == _CPU:
                a, r = alloc.milli_cpu, cpu_mem.milli_cpu + pod_request
            elif kind == _MEMORY:
                a, r = alloc.memory, cpu_mem.memory + pod_request
            elif kind == _EPHEMERAL:
                a, r = alloc.ephemeral_storage, used.ephemeral_storage + pod_request
            elif kind == _SCALAR and pod_request and name in alloc.scalar:
                a, r = alloc.scalar[name], used.scalar.get(name, 0) + pod_request
            else:
                # An extended resource the pod does not request, or one the node does not
                # have, is left out of the score.
                continue
            if a == 0:
                continue
            allocatable[i] = a
            requested[i] = r
        return self.scorer(requested, allocatable), None

    def score_vector(self, cols, rows: np.ndarray, pod_requests: list[int]) -> np.ndarray | None:
        """score() for the nodes at `rows` of the columns at once."""
        if not self._lookups or self.vector_scorer is None:
            return None
        if any(abs(v) >= 2**56 for v in pod_requests):
            return None
        # A node's score depends on its own row and the pod's requests: kept across cycles.
        infos = cols.node_infos
        scores = cols.kept((self, *pod_requests),
                           lambda some: self._score_rows(cols, some, pod_requests),
                           lambda row: self.score(infos[row], pod_requests)[0])
        return scores[rows]

    def _score_rows(self, cols, rows: np.ndarray, pod_requests: list[int]) -> np.ndarray:
        shape = (len(rows), len(pod_requests))
        requested, allocatable = np.zeros(shape, np.int64), np.zeros(shape, np.int64)
        alloc = cols.allocatable[rows]
        cpu_mem = (cols.requested if self.use_requested else cols.non_zero)[rows]
        for i, (kind, name) in enumerate(self._lookups):
            pod_request = pod_requests[i]
            if kind == _CPU:
                a, r = alloc[:, 0], cpu_mem[:, 0] + pod_request
            elif kind == _MEMORY:
                a, r = alloc[:, 1], cpu_mem[:, 1] + pod_request
            elif kind == _EPHEMERAL:
                a, r = alloc[:, 2], cols.requested[rows, 2] + pod_request
            elif kind == _SCALAR and pod_request:
                # A node without the resource has 0 of it, which leaves it out as score() does.
                scalar_alloc, scalar_used = cols.scalar(name)
                a, r = scalar_alloc[rows], scalar_used[rows] + pod_request
            else:
                continue
            has = a != 0
            allocatable[:, i] = np.where(has, a, 0)
            requested[:, i] = np.where(has, r, 0)
        return self.vector_scorer(requested, allocatable)
