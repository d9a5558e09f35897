"""The scorer shared by NodeResourcesFit and NodeResourcesBalancedAllocation.

resource_allocation.go: for each configured resource, the node's allocatable amount and what
would be requested on it with the pod added; a strategy function turns both lists into a score.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from ...framework.status import Status
from ...framework.types import CPU, EPHEMERAL_STORAGE, MEMORY, NodeInfo, PodInfo

DEFAULT_RESOURCES = ({"name": CPU, "weight": 1}, {"name": MEMORY, "weight": 1})

_QUALIFIED_NAME_MAX_LENGTH = 63
_QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_QUALIFIED_NAME = re.compile(f"^{_QUALIFIED_NAME_FMT}$")
_QUALIFIED_NAME_MSG = ("must consist of alphanumeric characters, '-', '_' or '.', and must start "
                       "and end with an alphanumeric character")
_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT = f"{_DNS1123_LABEL_FMT}(\\.{_DNS1123_LABEL_FMT})*"
_DNS1123_SUBDOMAIN = re.compile(f"^{_DNS1123_SUBDOMAIN_FMT}$")
_DNS1123_SUBDOMAIN_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                          "characters, '-' or '.', and must start and end with an alphanumeric "
                          "character")


def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    """validation.RegexError, spacing quirks included."""
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    msg += " (e.g. "
    for i, example in enumerate(examples):
        if i > 0:
            msg += " or "
        msg += f"'{example}', "
    return msg + f"regex used for validation is '{fmt}')"


def qualified_name_errors(value: str) -> list[str]:
    """validation.IsQualifiedName: an optional DNS subdomain prefix, '/', and a short name."""
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            if len(prefix) > 253:
                errs.append("prefix part must be no more than 253 characters")
            if not _DNS1123_SUBDOMAIN.match(prefix):
                errs.append("prefix part " + _regex_error(
                    _DNS1123_SUBDOMAIN_MSG, _DNS1123_SUBDOMAIN_FMT, "example.com"))
    else:
        return ["a qualified name " + _regex_error(
            _QUALIFIED_NAME_MSG, _QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
    if not name:
        errs.append("name part must be non-empty")
    elif len(name) > _QUALIFIED_NAME_MAX_LENGTH:
        errs.append(f"name part must be no more than {_QUALIFIED_NAME_MAX_LENGTH} characters")
    if not _QUALIFIED_NAME.match(name):
        errs.append("name part " + _regex_error(
            _QUALIFIED_NAME_MSG, _QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc"))
    return errs


def _is_prefixed_native(name: str) -> bool:
    return "kubernetes.io/" in name


@lru_cache(maxsize=1024)
def is_extended_resource_name(name: str) -> bool:
    """v1helper.IsExtendedResourceName: a domain-prefixed name outside kubernetes.io."""
    if "/" not in name or _is_prefixed_native(name) or name.startswith("requests."):
        return False
    return not qualified_name_errors("requests." + name)


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
