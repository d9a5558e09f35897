"""DynamicResources (framework/plugins/dynamicresources): pods get the devices their
ResourceClaims ask for.

PreEnqueue holds pods whose claims do not exist yet; PreFilter reads the claims and sets up the
structured allocator; Filter allocates per node (cached for Reserve); PostFilter deallocates a
claim that is allocated where the pod cannot go; Reserve marks the chosen allocation in flight;
Unreserve takes it back; PreBind writes the allocation and the reservation to the claim. Like
Go, every "cannot proceed" status is UnschedulableAndUnresolvable (statusUnschedulable).
"""
from __future__ import annotations

import copy

import numpy as np

from ...errors import ConfigError
from ...framework.cycle_state import StateData
from ...framework.interfaces import (
    EnqueueExtensions,
    FilterPlugin,
    PostFilterPlugin,
    PreBindPlugin,
    PreEnqueuePlugin,
    PreFilterPlugin,
    ReservePlugin,
    ScoreExtensions,
    ScorePlugin,
)
from ...framework.status import Code, Status
from ...labels import match_node_selector_terms
from .. import names
from ..helper import default_normalize_score, default_normalize_vector
from . import binding, extended, queueing_hints, taint_rules
from . import objects as obj
from .allocated import AllocatedDevices, AllocatedState, allocated_state
from .allocator import AllocationError, Allocator, FailedOnNode, Features
from .args import validate_args
from .describe import device_details
from .gates import allocator_features, enabled, release_at_least
from .outcomes import NodeOutcomes, signature
from .pools import SliceIndex
from .scoring import ScoreError, compute_score

NAME = names.DYNAMIC_RESOURCES
SCORE_SINCE = (1, 35)
# PR #140222: PostFilter's no-op outcomes keep their reasons out of FailedScheduling.
QUIET_POST_FILTER_SINCE = (1, 37)
STATE_KEY = NAME
# fwk.ErrNotFound: CycleState has no state of ours when an earlier PreFilter ended the cycle;
# PostFilter then fails with it, as in Go (and DefaultPreemption does not run).
NOT_FOUND = "not found"


class _State(StateData):
    """stateData: shared, not copied, by preemption's clones (Clone returns itself in Go)."""

    def __init__(self):
        self.claims: list[dict] = []
        self.available_on: list[dict | None] = []   # allocation node selector per claim
        self.allocation: list[dict | None] = []     # set by Reserve, written by PreBind
        self.allocator: Allocator | None = None
        self.signature: tuple | None = None        # what the claims ask (outcomes.py)
        self.any_allocated = False                 # some claim is allocated already
        self.unavailable: set[int] = set()
        self.node_allocations: dict[str, list[dict]] = {}
        self.events: list[dict] = []                # what this cycle did, for the trace
        # Extended resources backed by DRA: the pod's claim for them (in memory until PreBind),
        # the backed requests, and per node (claim with its requests, allocation, mappings).
        self.extended: dict | None = None
        self.backed: dict[str, int] = {}
        self.node_extended: dict[str, tuple[dict, dict, list[dict]]] = {}
        self.extended_allocation: tuple[dict, dict, list[dict]] | None = None


def _state(cycle_state) -> _State | None:
    return cycle_state.get(STATE_KEY)


def _pod(pod):
    return pod.obj


def _unschedulable(reason: str) -> Status:
    return Status.unresolvable(reason)


class DynamicResources(PreEnqueuePlugin, PreFilterPlugin, FilterPlugin, PostFilterPlugin,
                       ReservePlugin, PreBindPlugin, EnqueueExtensions):
    NAME = NAME

    def __init__(self, handle, features: Features, extended_resources: bool = True,
                 binding_timeout: float = binding.DEFAULT_TIMEOUT_SECONDS):
        self.handle = handle
        self.binding_timeout = binding_timeout
        self.features = features
        self.extended_resources = extended_resources   # DRAExtendedResource
        self.quiet_post_filter = release_at_least(handle, QUIET_POST_FILTER_SINCE)
        # inFlightAllocations: claim uid -> the claim as Reserve assumed it allocated.
        self.in_flight: dict[str, dict] = {}
        self.allocated = AllocatedDevices()
        self.outcomes = NodeOutcomes()
        # The slices indexed: as the tracker lists them, and as stored (for the trace).
        self._indexed: tuple[tuple, SliceIndex | None, SliceIndex | None] = ((), None, None)

    def _slices(self) -> SliceIndex:
        """The ResourceSlices as the tracker lists them: with the DeviceTaintRules' taints
        (the loader keeps rules only while their gates are on), patched and indexed again
        when either list changes."""
        slices = self._objects.resource_slices
        rules = self._objects.extra.get(taint_rules.KIND) or []
        key = (id(slices), len(slices), *map(id, rules))   # a rule updated is a new object
        if self._indexed[0] != key:
            patched = taint_rules.apply_rules(slices, rules)
            index = SliceIndex(patched, self.features.partitionable_devices)
            stored = index if patched is slices else SliceIndex(slices)
            self._indexed = (key, index, stored)
        return self._indexed[1]

    def _stored_slices(self) -> SliceIndex:
        self._slices()
        return self._indexed[2]

    @property
    def _objects(self):
        return self.handle.objects

    # --- PreEnqueue ------------------------------------------------------------------------
    def pre_enqueue(self, pod) -> Status | None:
        # The resourceclaim controller creates a template's claim as soon as a pod appears,
        # before the scheduler sees it: here, on the scheduler's own copy of the pod.
        obj.create_template_claims(self._objects, _pod(pod))
        try:
            obj.pod_claims(self._objects, _pod(pod))
        except obj.ClaimError as exc:
            return _unschedulable(str(exc))
        return None

    # --- PreFilter -------------------------------------------------------------------------
    def pre_filter(self, state, pod, nodes):
        s = _State()
        state.write(STATE_KEY, s)
        try:
            claims = obj.pod_claims(self._objects, _pod(pod))
        except obj.ClaimError as exc:
            return None, _unschedulable(str(exc))
        self._pre_filter_extended(s, pod)
        if not claims and s.extended is None:
            return None, Status.skip()
        for claim in claims:
            status = self._pre_filter_claim(s, pod, claim)
            if status is not None:
                return None, status
        pending = self._to_allocate_of(claims)
        if pending or s.extended is not None:
            classes = self._objects.device_classes
            s.allocator = Allocator(classes=classes, slices=self._slices(),
                                    allocated=self._allocated_state(), features=self.features)
            if s.extended is None:
                s.signature = signature(s.allocator.index, pending, classes)
        s.claims = claims
        s.any_allocated = len(pending) < len(claims)
        return None, None

    def _pre_filter_claim(self, s: _State, pod, claim: dict) -> Status | None:
        """An allocated claim must be reservable (its node selector goes to Filter); one to
        allocate must not be in flight for another pod, and its classes must exist."""
        allocation = (claim.get("status") or {}).get("allocation")
        if allocation is not None and not obj.can_be_reserved(claim) \
                and not obj.is_reserved_for_pod(pod.uid, claim):
            return _unschedulable("resourceclaim in use")
        s.available_on.append((allocation or {}).get("nodeSelector"))
        s.allocation.append(None)
        if allocation is not None:
            return None
        if obj.claim_uid(claim) in self.in_flight:
            return _unschedulable(f"resource claim {obj.claim_key(claim)} is in the process "
                                  "of being allocated")
        return self._check_classes(claim)

    def _pre_filter_extended(self, s: _State, pod) -> None:
        """preFilterExtendedResources: the pod's extended resources a device class backs get a
        claim, the one made in an earlier cycle or a new one kept in memory."""
        if not self.extended_resources:
            return
        s.backed = extended.backed_resources(self._objects.device_classes,
                                             pod.requests.scalar.items())
        if not s.backed:
            return
        meta = _pod(pod).get("metadata") or {}
        s.extended = (extended.find_claim(self._objects.resource_claims.values(), meta, pod.uid)
                      or extended.in_memory_claim(meta, pod.uid))

    def _check_classes(self, claim: dict) -> Status | None:
        """validateDeviceClass for every request and subrequest: a missing class waits for a
        DeviceClass event; subrequests need DRAPrioritizedList."""
        for request in claim["spec"]["devices"].get("requests") or []:
            if "exactly" in request:
                wanted = [(request["name"], request["exactly"]["deviceClassName"])]
            elif not self.features.prioritized_list:
                return _unschedulable(f"claim {obj.claim_key(claim)}, request "
                                      f"{request['name']}: has subrequests, but the "
                                      "DRAPrioritizedList feature is disabled")
            else:
                wanted = [(f"{request['name']}/{sub['name']}", sub["deviceClassName"])
                          for sub in request["firstAvailable"]]
            for name, class_name in wanted:
                if class_name not in self._objects.device_classes:
                    return _unschedulable(f"request {name}: device class {class_name} does "
                                          "not exist")
        return None

    def _allocated_state(self) -> AllocatedState:
        """GatherAllocatedState: allocated claims (the tracker's), plus allocations still in
        flight, which replace their claims."""
        if not self.in_flight:
            return self.allocated.state(self._objects)
        claims = [c for c in self._objects.resource_claims.values()
                  if obj.claim_uid(c) not in self.in_flight]
        return allocated_state(claims + list(self.in_flight.values()))

    def pre_filter_extensions(self):
        return None

    # --- Filter ----------------------------------------------------------------------------
    def filter(self, state, pod, node_info) -> Status | None:
        s = _state(state)
        if s is None:
            return Status.as_error(NOT_FOUND)
        if not s.claims and s.extended is None:
            return None
        node = node_info.node
        unavailable = self._unavailable(s, node_info) if s.any_allocated else []
        node_claim, mappings = None, []
        if s.extended is not None:
            status, node_claim, mappings = self._filter_extended(s, pod, node_info)
            if status is not None:
                return status
        allocations = None
        if s.allocator is not None:
            pending = self._to_allocate_of(s.claims) + ([node_claim] if node_claim else [])
            try:
                allocations = self.outcomes.allocate(
                    s.allocator, self.allocated, node, pending,
                    s.signature if node_claim is None else None) if pending else []
            except FailedOnNode as exc:
                return _unschedulable(str(exc))
            except AllocationError as exc:
                return Status.as_error(str(exc))
            if allocations is None or len(allocations) != len(pending):
                return _unschedulable("cannot allocate all claims")
        if unavailable:
            s.unavailable.update(unavailable)
            return _unschedulable("resourceclaim not available on the node")
        if allocations is not None:
            if node_claim is not None:
                s.node_extended[node_info.name] = (node_claim, allocations.pop(), mappings)
            s.node_allocations[node_info.name] = allocations
        return None

    def _unavailable(self, s: _State, node_info) -> list[int]:
        """The allocated claims that cannot be used on the node: their allocation's node
        selector does not match it, or their binding conditions failed."""
        unavailable = [i for i, selector in enumerate(s.available_on)
                       if selector is not None and not match_node_selector_terms(
                           selector, node_info.labels, node_info.name)]
        return unavailable + self._binding_unavailable(s, unavailable)

    def _binding_unavailable(self, s: _State, skipped: list[int]) -> list[int]:
        """The allocated claims whose binding conditions failed or timed out: PostFilter
        deallocates one so that other devices can be tried (Filter in dynamicresources.go)."""
        if not self.features.binding_conditions:
            return []
        now = binding.wall_clock(self.handle)
        return [i for i, claim in enumerate(s.claims)
                if i not in skipped and (claim.get("status") or {}).get("allocation") is not None
                and not binding.available(claim, self.binding_timeout, now)]

    def _filter_extended(self, s: _State, pod, node_info):
        """filterExtendedResources: (status, the node's claim for what DRA must provide there
        or None, the pod status' request mappings)."""
        if s.extended["spec"].get("devices", {}).get("requests"):
            # Made in an earlier cycle that did not bind: PostFilter deletes it, then retry.
            return _unschedulable("cannot schedule extended resource claim"), None, []
        needs, missing = extended.node_needs(s.backed, pod.requests.scalar.items(),
                                             node_info.allocatable.scalar)
        if missing is not None:
            return _unschedulable("cannot fit resource"), None, []
        if not needs or (s.extended.get("status") or {}).get("allocation") is not None:
            return None, None, []
        node_claim = copy.deepcopy(s.extended)
        requests, mappings = extended.requests_and_mappings(
            _pod(pod), needs, self._objects.device_classes)
        node_claim["spec"] = {"devices": {"requests": requests}}
        return None, node_claim, mappings

    @staticmethod
    def _to_allocate_of(claims: list[dict]) -> list[dict]:
        return [c for c in claims if (c.get("status") or {}).get("allocation") is None]

    # --- PostFilter ------------------------------------------------------------------------
    def post_filter(self, state, pod, node_to_status):
        s = _state(state)
        if s is None:
            return None, Status.as_error(NOT_FOUND)
        if not s.claims and s.extended is None:
            return None, self._no_op("no new claims to deallocate")
        # Go picks one at random (map order); the lowest index keeps runs reproducible.
        for index in sorted(s.unavailable):
            claim = s.claims[index]
            reserved = (claim.get("status") or {}).get("reservedFor") or []
            if not reserved or (len(reserved) == 1 and reserved[0].get("uid") == pod.uid):
                old = copy.deepcopy(claim)
                with self.allocated.editing(self._objects, obj.claim_key(claim)):
                    status = claim.setdefault("status", {})
                    for key in ("reservedFor", "allocation", "devices"):
                        status.pop(key, None)
                s.events.append({"claim": obj.claim_key(claim), "deallocated": True})
                self._claim_updated(old, claim)
                return None, Status.unschedulable("deallocation of ResourceClaim completed")
        if s.extended is not None and s.extended["metadata"]["name"] != extended.IN_MEMORY_NAME:
            # The extended resource claim of an earlier cycle is deleted, to start anew.
            self._objects.resource_claims.pop(obj.claim_key(s.extended), None)
            s.events.append({"claim": obj.claim_key(s.extended), "deleted": True})
            return None, Status.unschedulable("deletion of ResourceClaim completed")
        return None, self._no_op("still not schedulable")

    def _no_op(self, reason: str) -> Status:
        """A PostFilter that did nothing: Unschedulable, with its reason in the
        FailedScheduling message before v1.37 and without it from v1.37 (PR #140222)."""
        return Status.unschedulable() if self.quiet_post_filter else Status.unschedulable(reason)

    # --- Reserve / Unreserve ---------------------------------------------------------------
    def reserve(self, state, pod, node_name) -> Status | None:
        s = _state(state)
        if s is None:
            return Status.as_error(NOT_FOUND)
        taken = s.node_extended.get(node_name)
        if taken is not None:
            s.extended_allocation = taken
            s.events.append(self._allocation_event(taken[0], taken[1]))
            assumed = copy.deepcopy(taken[0])
            assumed["status"] = {"allocation": taken[1]}
            self.in_flight[obj.claim_uid(assumed)] = assumed
        pending = self._to_allocate_of(s.claims) if s.claims else []
        if not pending:
            return None
        allocations = s.node_allocations.get(node_name)
        if not allocations:
            return Status.as_error("claim allocation not found for node")
        if len(allocations) != len(pending):
            return Status.as_error(f"internal error, have {len(allocations)} allocations, "
                                   f"{len(pending)} claims to allocate, want "
                                   f"{len(pending)} claims")
        results = iter(allocations)
        for index, claim in enumerate(s.claims):
            if (claim.get("status") or {}).get("allocation") is not None:
                continue
            # A copy: Filter's outcomes are kept for later cycles (outcomes.py).
            allocation = copy.deepcopy(next(results))
            s.allocation[index] = allocation
            assumed = copy.deepcopy(claim)
            finalizers = assumed["metadata"].setdefault("finalizers", [])
            if obj.FINALIZER not in finalizers:
                finalizers.append(obj.FINALIZER)
            assumed.setdefault("status", {})["allocation"] = allocation
            self.in_flight[obj.claim_uid(claim)] = assumed
            s.events.append(self._allocation_event(claim, allocation))
        return None

    def unreserve(self, state, pod, node_name) -> None:
        s = _state(state)
        if s is None:
            return
        if s.extended is not None:
            self._unreserve_extended(s)
        for claim in s.claims:
            if self.in_flight.pop(obj.claim_uid(claim), None) is not None:
                s.events.append({"claim": obj.claim_key(claim), "allocationReverted": True})
            status = claim.get("status") or {}
            if status.get("allocation") is not None and obj.is_reserved_for_pod(pod.uid, claim):
                old = copy.deepcopy(claim)
                status["reservedFor"] = [r for r in status["reservedFor"]
                                         if r.get("uid") != pod.uid]
                self._objects.claims_changed()
                s.events.append({"claim": obj.claim_key(claim), "unreserved": pod.key})
                self._claim_updated(old, claim)

    def _unreserve_extended(self, s: _State) -> None:
        """unreserveExtendedResourceClaim: no longer in flight, and deleted once PreBind (or an
        earlier cycle) created it, so that no claim is left orphaned."""
        self.in_flight.pop(obj.claim_uid(s.extended), None)
        if s.extended["metadata"]["name"] == extended.IN_MEMORY_NAME:
            return
        key = obj.claim_key(s.extended)
        if self._objects.resource_claims.pop(key, None) is not None:
            s.events.append({"claim": key, "deleted": True})

    # --- PreBind ---------------------------------------------------------------------------
    def pre_bind(self, state, pod, node_name) -> Status | None:
        s = _state(state)
        if s is None:
            return Status.as_error(NOT_FOUND)
        for index, claim in enumerate(s.claims):
            if obj.is_reserved_for_pod(pod.uid, claim):
                continue
            error = self._bind_claim(s, index, pod)
            if error:
                return Status.as_error(error)
        if s.extended_allocation is not None:
            self._bind_extended_claim(s, pod)
        if self.features.binding_conditions:
            return self._wait_for_binding_conditions(s, pod)
        return None

    def pre_bind_pre_flight(self, state, pod, node_name) -> Status | None:
        """Skip for a pod without claims (its extended resource claim counts as one)."""
        s = _state(state)
        if s is None:
            return Status.as_error(NOT_FOUND)
        if not s.claims and s.extended is None:
            return Status.skip()
        return None

    def _wait_for_binding_conditions(self, s: _State, pod) -> Status | None:
        """PreBind's poll (wait.PollUntilContextTimeout, first check at once): ready, a
        failure, or Wait while the devices' binding conditions are pending (binding.py)."""
        if not self._waiting_claims(s):
            return None
        return self._check_binding_conditions(s)

    def _waiting_claims(self, s: _State) -> list[dict]:
        """The claims with binding conditions, as the API holds them now (a timeline step may
        have reported the conditions since)."""
        claims = s.claims + ([s.extended] if s.extended is not None else [])
        live = self._objects.resource_claims
        return [live.get(obj.claim_key(c), c) for c in claims if binding.waits_on(c)]

    def _check_binding_conditions(self, s: _State) -> Status | None:
        try:
            if binding.pod_ready(self._waiting_claims(s), self.binding_timeout,
                                 binding.wall_clock(self.handle)):
                return None
        except binding.BindingFailed as exc:
            return Status.as_error(str(exc))
        return Status(Code.WAIT, "waiting for binding conditions")

    def pre_bind_poll_delay(self, waited: float) -> float:
        return min(binding.POLL_SECONDS, self.binding_timeout - waited)

    def pre_bind_poll(self, state, pod, node_name, waited: float) -> Status | None:
        """Asked every 5 virtual seconds; at bindingTimeout the context's deadline ends the
        poll before another check ("device binding timeout")."""
        s = _state(state)
        if waited < self.binding_timeout:
            return self._check_binding_conditions(s)
        for claim in self._waiting_claims(s):
            if not binding.ready(claim):
                s.events.append({"claim": obj.claim_key(claim), "bindingConditionsPending":
                                 binding.waits_on(claim), "timeoutSeconds": self.binding_timeout})
        return Status.as_error("device binding timeout")

    def _bind_extended_claim(self, s: _State, pod) -> None:
        """Creates the extended resource claim, allocated and reserved for the pod, and records
        it in the pod's status.extendedResourceClaimStatus."""
        node_claim, allocation, mappings = s.extended_allocation
        self.in_flight.pop(obj.claim_uid(node_claim), None)
        meta = node_claim["metadata"]
        name = obj.generated_name(meta["generateName"], f"{pod.key}/extended-resources")
        claim = copy.deepcopy(node_claim)
        claim["metadata"] = {**{k: v for k, v in meta.items()
                                if k not in ("generateName", "uid")},
                             "name": name, "finalizers": [obj.FINALIZER]}
        claim["status"] = {"allocation": allocation, "reservedFor": [
            {"resource": "pods", "name": pod.name, "uid": pod.uid}]}
        self._objects.resource_claims[obj.claim_key(claim)] = claim
        _pod(pod).setdefault("status", {})["extendedResourceClaimStatus"] = {
            "requestMappings": mappings, "resourceClaimName": name}
        s.extended, s.extended_allocation = claim, None
        s.events.append({"claim": obj.claim_key(claim), "created": True,
                         "allocation": allocation, "reservedFor": pod.key})

    def _bind_claim(self, s: _State, index: int, pod) -> str | None:
        """Writes the allocation from Reserve (if any) and the pod's reservation."""
        claim, allocation = s.claims[index], s.allocation[index]
        old = copy.deepcopy(claim)
        try:
            key = obj.claim_key(claim)
            if (claim.get("metadata") or {}).get("deletionTimestamp"):
                return f"claim {key} got deleted in the meantime"
            status = claim.setdefault("status", {})
            if allocation is not None and status.get("allocation") is not None:
                return f"claim {key} got allocated elsewhere in the meantime"
            with self.allocated.editing(self._objects, key):
                if allocation is not None:
                    finalizers = claim["metadata"].setdefault("finalizers", [])
                    if obj.FINALIZER not in finalizers:
                        finalizers.append(obj.FINALIZER)
                    status["allocation"] = allocation
                status.setdefault("reservedFor", []).append(
                    {"resource": "pods", "name": pod.name, "uid": pod.uid})
                if self.features.binding_conditions and \
                        not status["allocation"].get("allocationTimestamp"):
                    # A copy: Reserve's allocation (the trace's) stays as the allocator gave it.
                    status["allocation"] = {**status["allocation"], "allocationTimestamp":
                                            binding.timestamp(binding.wall_clock(self.handle))}
            s.events.append({"claim": key, "reservedFor": pod.key,
                             **({"allocation": allocation} if allocation is not None else {})})
            self._claim_updated(old, claim)
            return None
        finally:
            if allocation is not None:
                self.in_flight.pop(obj.claim_uid(claim), None)

    # --- the trace -------------------------------------------------------------------------
    def _allocation_event(self, claim: dict, allocation: dict) -> dict:
        """Reserve's event: the allocation, and the taints, counters and capacities of the
        devices it took (describe.py)."""
        event = {"claim": obj.claim_key(claim), "allocation": allocation}
        details = device_details(self._stored_slices(), allocation)
        if details:
            event["devices"] = details
        return event

    def describe(self, state) -> dict | None:
        """What the call just made allocated, reserved or gave back, for its trace entry.

        The runtime asks right after each Reserve, Unreserve and PreBind call, so the events
        are handed over once: each entry shows its own call's work."""
        s = _state(state)
        if s is None or not s.events:
            return None
        events, s.events = s.events, []
        return {"claims": events}

    def _claim_updated(self, old: dict, new: dict) -> None:
        """The API update this stands for reaches the scheduler's informer as an event."""
        self.handle.cluster_event("ResourceClaimUpdate", old=old, new=new)

    # --- EnqueueExtensions -----------------------------------------------------------------
    def events_to_register(self) -> set[str]:
        return set(self.queueing_hints())

    def queueing_hints(self) -> dict:
        return queueing_hints.for_dynamic_resources(self)

    def is_schedulable_after_claim_change(self, pod, old, new) -> str:
        return queueing_hints.after_claim_change(self._objects, pod, old, new)

    def is_schedulable_after_pod_change(self, pod, old, new) -> str:
        return queueing_hints.after_pod_change(self._objects, pod, old, new)


class ScoringDynamicResources(DynamicResources, ScorePlugin, ScoreExtensions):
    """DynamicResources from v1.35 (PR #134711): Score prefers the node where a
    firstAvailable request gets an earlier subrequest. It has no PreScore, so it scores every
    pod; a pod without claims scores 0 everywhere."""

    def score(self, state, pod, node_info):
        s = _state(state)
        if s is None:
            return 0, Status.as_error(NOT_FOUND)
        if not s.claims:
            return 0, None
        allocations = s.node_allocations.get(node_info.name)
        if allocations is None:
            return 0, None
        try:
            return compute_score(s.claims, allocations), None
        except ScoreError as exc:
            return 0, Status.as_error(str(exc))

    def score_vector(self, state, pod, cols, rows):
        """All zeros when no claim has a firstAvailable request (computeScore adds nothing
        then: Filter gave every feasible node its allocations); None scores node by node."""
        s = _state(state)
        if s is not None and not any(request.get("firstAvailable") for claim in s.claims
                                     for request in claim["spec"]["devices"].get("requests")
                                     or []):
            return np.zeros(len(rows), np.int64)
        return None

    def score_extensions(self):
        return self

    def normalize_score(self, state, pod, scores) -> Status | None:
        default_normalize_score(scores)
        return None

    def normalize_vector(self, state, pod, scores):
        return default_normalize_vector(scores)


def new(args: dict, handle) -> DynamicResources:
    errors = validate_args(args or {}, "", handle.features)
    if errors:
        raise ConfigError(errors)
    cls = ScoringDynamicResources if release_at_least(handle, SCORE_SINCE) else DynamicResources
    return cls(handle, allocator_features(handle), enabled(handle, "DRAExtendedResource"),
               binding.timeout_seconds(args))
