"""The scorer shared by NodeResourcesFit and NodeResourcesBalancedAllocation.

resource_allocation.go: for each configured resource, the node's allocatable amount and what
would be requested on it with the pod added; a strategy function turns both lists into a score.
"""
from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

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
                 resources: list[dict], use_requested: bool = False):
        self.strategy_name = name
        self.scorer = scorer
        self.resources = resources
        self.use_requested = use_requested
        self._lookups = [(_kind(r["name"]), r["name"]) for r in resources]

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
