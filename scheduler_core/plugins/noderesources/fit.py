"""NodeResourcesFit: does the node have room for the pod's requests, and how well does it fit.

framework/plugins/noderesources/fit.go. PreFilter sums the pod's requests once; Filter compares
them with the node's allocatable minus what its pods already request; PreScore/Score rank nodes
with the configured scoring strategy (LeastAllocated, MostAllocated, RequestedToCapacityRatio).
"""
from __future__ import annotations

import copy
from typing import NamedTuple

import numpy as np

from ...columns.verdict import Explained, Verdict
from ...errors import ConfigError, child, invalid, is_int, unsupported
from ...framework.cycle_state import CycleState
from ...framework.interfaces import (
    EnqueueExtensions,
    FilterPlugin,
    PreFilterPlugin,
    PreScorePlugin,
    ScorePlugin,
)
from ...framework.status import Code, Status
from ...framework.types import (
    CPU,
    EPHEMERAL_STORAGE,
    MEMORY,
    PODS,
    NodeInfo,
    PodInfo,
    Resource,
)
from ...validation import is_qualified_name
from .. import names
from ..dynamicresources.extended import backed_resources
from ..dynamicresources.gates import enabled
from ..helper import validate_function_shape
from . import queueing_hints
from .least_allocated import least_resource_scorer, least_resource_vector_scorer
from .most_allocated import most_resource_scorer, most_resource_vector_scorer
from .requested_to_capacity_ratio import (
    requested_to_capacity_ratio_scorer,
    requested_to_capacity_ratio_vector_scorer,
)
from .resource_allocation import (
    DEFAULT_RESOURCES,
    PreScoreState,
    ResourceAllocationScorer,
    is_extended_resource_name,
    is_scalar_resource_name,
)

NAME = names.NODE_RESOURCES_FIT
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME

LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"
SUPPORTED_STRATEGIES = (LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO)

REASON_TOO_MANY_PODS = "Too many pods"


def insufficient_reason(resource_name: str) -> str:
    return f"Insufficient {resource_name}"


class InsufficientResource(NamedTuple):
    """What kind of resource limit is hit; unresolvable when even an empty node is too small."""

    resource_name: str
    reason: str
    requested: int
    used: int
    capacity: int
    unresolvable: bool = False


class PodRequest:
    """preFilterState: the pod's requests, with the extended resources to check pre-filtered."""

    __slots__ = ("dra_backed", "ephemeral_storage", "memory", "milli_cpu", "scalars")

    def __init__(self, milli_cpu: int, memory: int, ephemeral_storage: int,
                 scalars: list[tuple[str, int]], dra_backed: frozenset = frozenset()):
        self.milli_cpu = milli_cpu
        self.memory = memory
        self.ephemeral_storage = ephemeral_storage
        self.scalars = scalars
        # Extended resources a DeviceClass backs (DRAExtendedResource): on a node that does
        # not advertise them DynamicResources allocates them, so they are not checked here.
        self.dra_backed = dra_backed

    def clone(self) -> PodRequest:
        return self


def compute_pod_request(pod: PodInfo, ignored_resources=frozenset(),
                        ignored_groups=frozenset(), device_classes=None) -> PodRequest:
    """computePodResourceRequest, dropping what fitsRequest would skip for every node.

    Zero requests and ignored extended resources (by name or by the domain before '/') never
    count; scalars are sorted so that reasons come out in a stable order.
    """
    req = pod.requests
    scalars = []
    for name in sorted(req.scalar):
        quantity = req.scalar[name]
        if quantity == 0 or not is_scalar_resource_name(name):
            continue
        if is_extended_resource_name(name) and (
                name in ignored_resources or name.split("/")[0] in ignored_groups):
            continue
        scalars.append((name, quantity))
    backed = frozenset(backed_resources(device_classes, scalars)) if device_classes else frozenset()
    return PodRequest(req.milli_cpu, req.memory, req.ephemeral_storage, scalars, backed)


def fits_request(pod_request: PodRequest, node_info: NodeInfo) -> list[InsufficientResource]:
    """fitsRequest: every resource the node lacks for the pod, in kube-scheduler's order."""
    return _insufficient(pod_request, node_info.allocatable, node_info.requested,
                         len(node_info.pods))


def _insufficient(pod_request: PodRequest, alloc: Resource, used: Resource,
                  pod_count: int) -> list[InsufficientResource]:
    """fitsRequest on a node's allocatable, what its pods request and how many they are."""
    out: list[InsufficientResource] = []
    if pod_count + 1 > alloc.allowed_pod_number:
        out.append(InsufficientResource(PODS, REASON_TOO_MANY_PODS, 1, pod_count,
                                        alloc.allowed_pod_number))
    want = pod_request.milli_cpu
    if want > 0 and want > alloc.milli_cpu - used.milli_cpu:
        out.append(InsufficientResource(CPU, "Insufficient cpu", want, used.milli_cpu,
                                        alloc.milli_cpu, want > alloc.milli_cpu))
    want = pod_request.memory
    if want > 0 and want > alloc.memory - used.memory:
        out.append(InsufficientResource(MEMORY, "Insufficient memory", want, used.memory,
                                        alloc.memory, want > alloc.memory))
    want = pod_request.ephemeral_storage
    if want > 0 and want > alloc.ephemeral_storage - used.ephemeral_storage:
        out.append(InsufficientResource(
            EPHEMERAL_STORAGE, "Insufficient ephemeral-storage", want, used.ephemeral_storage,
            alloc.ephemeral_storage, want > alloc.ephemeral_storage))
    for name, want in pod_request.scalars:
        capacity = alloc.scalar.get(name, 0)
        if capacity == 0 and name in pod_request.dra_backed:
            continue
        in_use = used.scalar.get(name, 0)
        if want > capacity - in_use:
            out.append(InsufficientResource(name, insufficient_reason(name), want, in_use,
                                            capacity, want > capacity))
    return out


def fits(pod: PodInfo, node_info: NodeInfo) -> list[InsufficientResource]:
    """Fits: the insufficient resources of a pod on a node, ignoring nothing."""
    return fits_request(compute_pod_request(pod), node_info)


class Room:
    """What fitsRequest sees of a node while pods come to it (preemption's reprieves, the pods
    nominated there): its allocatable, what its pods request and how many they are, kept as
    sums instead of adding each pod to a copy of the node and filtering it again."""

    __slots__ = ("alloc", "count", "pod_request", "used")

    def __init__(self, pod_request: PodRequest, node_info: NodeInfo):
        self.pod_request = pod_request
        self.alloc, self.used = node_info.allocatable, node_info.requested.clone()
        self.count = len(node_info.pods)

    def add(self, pod: PodInfo) -> None:
        """`pod` joins the node's pods (NodeInfo.AddPod accounts its requests so)."""
        self.used.add(pod.requests)
        self.count += 1

    def drop(self, pod: PodInfo) -> None:
        """`pod` leaves the node (NodeInfo.RemovePod)."""
        self.used.add(pod.requests, -1)
        self.count -= 1

    def take(self, pod: PodInfo) -> bool:
        """Puts `pod` back on the node if the incoming pod still fits with it there; whether
        it did."""
        self.add(pod)
        if not _insufficient(self.pod_request, self.alloc, self.used, self.count):
            return True
        self.drop(pod)
        return False

    def status(self) -> Status | None:
        """Filter's verdict on the node as the room holds it."""
        return _filter_status(_insufficient(self.pod_request, self.alloc, self.used,
                                            self.count))


def _filter_status(insufficient: list[InsufficientResource]) -> Status | None:
    """Filter's verdict from what the node lacks."""
    if not insufficient:
        return None
    # A request larger than the whole node cannot be helped by preempting pods there.
    code = Code.UNSCHEDULABLE
    if any(r.unresolvable for r in insufficient):
        code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    return Status(code, *(r.reason for r in insufficient))


# Bits of a node's reason code in filter_vector: which resources are short, in fitsRequest's
# order (pods, cpu, memory, ephemeral-storage, then the pod's scalars), and whether any is
# larger than the whole node.
_NATIVE_SHORTAGES = ((1, REASON_TOO_MANY_PODS), (2, "Insufficient cpu"),
                     (4, "Insufficient memory"), (8, "Insufficient ephemeral-storage"))
_NATIVE_BITS = {PODS: 1, CPU: 2, MEMORY: 4, EPHEMERAL_STORAGE: 8}
_FIRST_SCALAR_BIT = 16
_UNRESOLVABLE_BIT = 1 << 30
_MAX_SCALARS = 25


def fits_request_vector(pod_request: PodRequest, cols) -> Verdict | None:
    """fits_request for every node of the columns: a reason code per node."""
    wants = [pod_request.milli_cpu, pod_request.memory, pod_request.ephemeral_storage]
    wants += [want for _, want in pod_request.scalars]
    if len(pod_request.scalars) > _MAX_SCALARS or any(abs(w) >= 2**56 for w in wants):
        return None
    # A node's code depends on its own row and the request only: kept across cycles.
    key = (NAME, *wants[:3], tuple(pod_request.scalars), pod_request.dra_backed)
    infos = cols.node_infos
    kinds, rejected = cols.kept_nonzero(
        key, lambda rows: _fit_kinds(pod_request, cols, rows),
        lambda row: _fit_kind(pod_request, fits_request(pod_request, infos[row])))
    return Verdict(kinds, Explained(lambda kind: _fit_outcome(kind, pod_request)), rejected)


def _fit_kind(pod_request: PodRequest, insufficient: list[InsufficientResource]) -> int:
    """The reason code of one node from what fits_request found it lacks."""
    bits = {name: _FIRST_SCALAR_BIT << i for i, (name, _) in enumerate(pod_request.scalars)}
    bits.update(_NATIVE_BITS)
    kind = 0
    for r in insufficient:
        kind |= bits[r.resource_name] | (_UNRESOLVABLE_BIT if r.unresolvable else 0)
    return kind


def _fit_kinds(pod_request: PodRequest, cols, rows: np.ndarray) -> np.ndarray:
    """The reason codes of the nodes at `rows`."""
    alloc, used = cols.allocatable[rows], cols.requested[rows]
    kinds = np.where(cols.pod_count[rows] + 1 > alloc[:, 3], 1, 0).astype(np.int64)
    checks = [(pod_request.milli_cpu, alloc[:, 0], used[:, 0], 2),
              (pod_request.memory, alloc[:, 1], used[:, 1], 4),
              (pod_request.ephemeral_storage, alloc[:, 2], used[:, 2], 8)]
    for i, (name, want) in enumerate(pod_request.scalars):
        capacity, in_use = cols.scalar(name)
        checks.append((want, capacity[rows], in_use[rows], _FIRST_SCALAR_BIT << i,
                       name in pod_request.dra_backed))
    for want, capacity, in_use, bit, *backed in checks:
        # Native resources are checked only when requested; scalars always (pre-filtered > 0).
        if bit < _FIRST_SCALAR_BIT and want <= 0:
            continue
        short = want > capacity - in_use
        if backed and backed[0]:
            short &= capacity != 0   # DynamicResources provides it where the node has none
        kinds |= short * bit
        kinds |= (short & (want > capacity)) * _UNRESOLVABLE_BIT
    return kinds


def _fit_outcome(kind: int, pod_request: PodRequest) -> tuple[Code, tuple[str, ...]]:
    reasons = [reason for bit, reason in _NATIVE_SHORTAGES if kind & bit]
    reasons += [insufficient_reason(name) for i, (name, _) in enumerate(pod_request.scalars)
                if kind & (_FIRST_SCALAR_BIT << i)]
    code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE if kind & _UNRESOLVABLE_BIT \
        else Code.UNSCHEDULABLE
    return code, tuple(reasons)


def _scorer_for(strategy: dict) -> ResourceAllocationScorer:
    kind = strategy["type"]
    resources = strategy["resources"]
    if kind == LEAST_ALLOCATED:
        fn, vector = least_resource_scorer(resources), least_resource_vector_scorer(resources)
    elif kind == MOST_ALLOCATED:
        fn, vector = most_resource_scorer(resources), most_resource_vector_scorer(resources)
    else:
        shape = (strategy.get("requestedToCapacityRatio") or {}).get("shape") or []
        fn = requested_to_capacity_ratio_scorer(resources, shape)
        vector = requested_to_capacity_ratio_vector_scorer(resources, shape)
    return ResourceAllocationScorer(kind, fn, resources, vector_scorer=vector)


class Fit(PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions):
    NAME = NAME

    def __init__(self, args: dict, device_classes: dict | None = None):
        # The cluster's DeviceClasses when DRAExtendedResource is on (None: off).
        self.device_classes = device_classes
        self.ignored_resources = frozenset(args.get("ignoredResources") or ())
        self.ignored_resource_groups = frozenset(args.get("ignoredResourceGroups") or ())
        self.scorer = _scorer_for(args["scoringStrategy"])

    # PreFilter --------------------------------------------------------------------------
    def pre_filter(self, state: CycleState, pod: PodInfo, nodes):
        state.write(PRE_FILTER_STATE_KEY, compute_pod_request(
            pod, self.ignored_resources, self.ignored_resource_groups, self.device_classes))
        return None, None

    # Filter -----------------------------------------------------------------------------
    def filter(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> Status | None:
        pod_request = state.get(PRE_FILTER_STATE_KEY)
        if pod_request is None:
            return Status.as_error(
                f'error reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        return _filter_status(fits_request(pod_request, node_info))

    def room(self, state: CycleState, node_info: NodeInfo) -> Room | None:
        """The node's Room for the pod this cycle's PreFilter measured (None without it)."""
        pod_request = state.get(PRE_FILTER_STATE_KEY)
        return None if pod_request is None else Room(pod_request, node_info)

    def filter_vector(self, state: CycleState, pod: PodInfo, cols) -> Verdict | None:
        pod_request = state.get(PRE_FILTER_STATE_KEY)
        return None if pod_request is None else fits_request_vector(pod_request, cols)

    # PreScore / Score -------------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: PodInfo, nodes) -> Status | None:
        state.write(PRE_SCORE_STATE_KEY, PreScoreState(self.scorer.pod_requests(pod)))
        return None

    def score(self, state: CycleState, pod: PodInfo, node_info: NodeInfo):
        s = state.get(PRE_SCORE_STATE_KEY)
        pod_requests = s.pod_requests if s is not None else self.scorer.pod_requests(pod)
        return self.scorer.score(node_info, pod_requests)

    def score_vector(self, state: CycleState, pod: PodInfo, cols, rows):
        s = state.get(PRE_SCORE_STATE_KEY)
        pod_requests = s.pod_requests if s is not None else self.scorer.pod_requests(pod)
        return self.scorer.score_vector(cols, rows, pod_requests)

    # EnqueueExtensions ------------------------------------------------------------------
    def events_to_register(self) -> set[str]:
        # Freed resources (a pod deleted) or a new / grown node (allocatable changed).
        return {"AssignedPodDelete", "NodeAdd", "NodeUpdate"}

    def queueing_hints(self) -> dict:
        return queueing_hints.for_fit(fits)


# Args ---------------------------------------------------------------------------------------
def _int_field(value, what: str) -> int:
    if not is_int(value):
        raise TypeError(f"{what} must be an integer, got {value!r}")
    return value


def default_resources() -> list[dict]:
    return [dict(r) for r in DEFAULT_RESOURCES]


def default_args(args: dict) -> dict:
    """SetDefaults_NodeResourcesFitArgs: LeastAllocated over cpu and memory, weights 1."""
    out = copy.deepcopy(dict(args or {}))
    strategy = out.get("scoringStrategy")
    if strategy is None:
        strategy = out["scoringStrategy"] = {"type": LEAST_ALLOCATED}
    if not strategy.get("resources"):
        strategy["resources"] = default_resources()
    for resource in strategy["resources"]:
        if not resource.get("weight"):
            resource["weight"] = 1
        _int_field(resource["weight"], "weight")
    ratio = strategy.get("requestedToCapacityRatio")
    for point in (ratio or {}).get("shape") or []:
        _int_field(point.get("utilization", 0), "utilization")
        _int_field(point.get("score", 0), "score")
    return out


def validate_resources(resources: list[dict], path: str) -> list[str]:
    errs = []
    for i, resource in enumerate(resources or []):
        weight = resource.get("weight", 0)
        if weight <= 0 or weight > 100:
            errs.append(invalid(f"{path}[{i}].weight", weight,
                                f"resource weight of {resource.get('name', '')} "
                                f"not in valid range (0, 100]"))
    return errs


def validate_args(args: dict, path: str) -> list[str]:
    """ValidateNodeResourcesFitArgs."""
    errs = []
    for i, res in enumerate(args.get("ignoredResources") or []):
        p = f"{child(path, 'ignoredResources')}[{i}]"
        errs += [invalid(p, res, msg) for msg in is_qualified_name(res)]
    for i, group in enumerate(args.get("ignoredResourceGroups") or []):
        p = f"{child(path, 'ignoredResourceGroups')}[{i}]"
        if "/" in group:
            errs.append(invalid(p, group, "resource group name can't contain '/'"))
        errs += [invalid(p, group, msg) for msg in is_qualified_name(group)]
    strategy = args.get("scoringStrategy")
    if strategy is not None:
        sp = child(path, "scoringStrategy")
        kind = strategy.get("type", "")
        if kind not in SUPPORTED_STRATEGIES:
            errs.append(unsupported(f"{sp}.type", kind, sorted(SUPPORTED_STRATEGIES)))
        errs += validate_resources(strategy.get("resources"), f"{sp}.resources")
        ratio = strategy.get("requestedToCapacityRatio")
        # kube-scheduler would dereference a missing requestedToCapacityRatio and crash; an
        # error about the missing shape is the closest faithful answer.
        if ratio is not None or kind == REQUESTED_TO_CAPACITY_RATIO:
            errs += validate_function_shape((ratio or {}).get("shape"), f"{sp}.shape")
    return errs


def new(args: dict, handle) -> Fit:
    errs = validate_args(args, "")
    if errs:
        raise ConfigError(errs)
    if args.get("scoringStrategy") is None:
        raise ConfigError("scoring strategy not specified")
    objects = getattr(handle, "objects", None)
    classes = objects.device_classes if objects is not None and enabled(
        handle, "DRAExtendedResource") else None
    return Fit(args, classes)
