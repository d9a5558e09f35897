"""The structured-parameters allocator (dynamic-resource-allocation/structured).

Allocate() is an exhaustive, depth-first search: claim after claim, request after request,
device after device, it takes the first device that is free, matches the class's and the
request's CEL selectors and keeps every matchAttribute constraint; the first full solution wins.
A request with `firstAvailable` tries its subrequests in order (DRAPrioritizedList, beta and on
in v1.34). Pools are gathered per node from the ResourceSlices (newest generation only;
incomplete or invalid pools give no devices). Devices are identified as (driver, pool, device).
"""
from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, field, replace

from . import capacity, counters, device_taints
from .allocated import AllocatedState
from .cel import (
    LIST_KINDS,
    SCALAR_KINDS,
    CELError,
    attribute_value,
    compile_selector,
    device_variables,
)
from .objects import claim_key
from .pools import Pool, SliceIndex, targets

ALLOCATION_RESULTS_MAX_SIZE = 32


class AllocationError(Exception):
    """The claim or class cannot be handled at all: the plugin aborts the cycle with an error."""


class _TooMany(Exception):
    """errAllocationResultMaxSizeExceeded: the requests' device counts alone exceed the claim
    limit, whichever devices are taken, so no other device of an earlier request is tried;
    only another subrequest can help."""


class FailedOnNode(AllocationError):
    """ErrFailedAllocationOnNode: not on this node; Filter rejects the node, other nodes may
    still do."""


@dataclass(frozen=True)
class Features:
    """internal.Features: the optional parts of the allocator, each from its feature gate."""
    admin_access: bool = True            # DRAAdminAccess
    prioritized_list: bool = True        # DRAPrioritizedList
    partitionable_devices: bool = True   # DRAPartitionableDevices
    device_taints: bool = True           # DRADeviceTaints
    binding_conditions: bool = True      # DRADeviceBindingConditions (+ ResourceClaimDeviceStatus)
    consumable_capacity: bool = True     # DRAConsumableCapacity
    list_type_attributes: bool = True    # DRAListTypeAttributes (alpha in v1.36)
    # Not a gate: v1.37's hint after a CEL "no such key" error (cel.EnhanceRuntimeError,
    # PR #136709).
    cel_error_hints: bool = True


ALL_FEATURES = Features()


@dataclass
class _Request:
    """A request, or one subrequest of a firstAvailable request (`parent` names the request)."""
    name: str
    parent: str
    klass: dict
    selectors: list
    mode: str
    admin: bool
    tolerations: list = field(default_factory=list)
    capacity: dict | None = None       # capacity.requests
    num_devices: int = 0
    capacity_key: str = ""             # the requests' text, for the capacity memo
    all_devices: list = field(default_factory=list)  # (id, device, slice, pool) for mode All

    @property
    def full_name(self) -> str:
        """requestName(): "<request>/<subrequest>" for a subrequest."""
        return f"{self.parent}/{self.name}" if self.parent else self.name

    @property
    def base_and_sub(self) -> tuple[str, str]:
        return (self.parent, self.name) if self.parent else (self.name, "")


class _Constraint:
    """A claim constraint over the devices of the requests it names (all when none).

    An attribute's values are a set of (kind, value): one for a scalar, each element for a
    list value (DRAListTypeAttributes; `lists` says whether the run reads them), so that a
    scalar and a list of the same kind compare element by element, as KEP-5491 has it."""

    def __init__(self, attribute: str, requests, lists: bool):
        self.attribute, self.requests, self.lists = attribute, set(requests or []), lists
        # The values of each device taken, in order (a device allowing multiple allocations
        # may be taken twice).
        self.taken: list[tuple[tuple, frozenset]] = []

    def applies(self, base: str, sub: str) -> bool:
        if not self.requests:
            return True
        return base in self.requests or (bool(sub) and f"{base}/{sub}" in self.requests)

    def add(self, base: str, sub: str, device: dict, device_id: tuple) -> bool:
        if not self.applies(base, sub):
            return True
        values = _lookup_attribute(device, device_id[0], self.attribute, self.lists)
        if values is None or not self.allows([v for _, v in self.taken], values):
            return False
        self.taken.append((device_id, values))
        return True

    def remove(self, base: str, sub: str, device_id: tuple) -> None:
        if not self.applies(base, sub):
            return
        last = max(i for i, (taken, _) in enumerate(self.taken) if taken == device_id)
        del self.taken[last]


class _MatchAttribute(_Constraint):
    """matchAttributeConstraint: the devices of the named requests share the attribute: one
    value common to all of them (with list values, a non-empty intersection of all, not only
    of each pair: allocator_testing.go's "...-with-partially-common-elements")."""

    def allows(self, taken: list[frozenset], values: frozenset) -> bool:
        return bool(values.intersection(*taken))


class _DistinctAttribute(_Constraint):
    """distinctAttributeConstraint (DRAConsumableCapacity): no two devices of the named
    requests share a value of the attribute (with list values, disjoint lists)."""

    def allows(self, taken: list[frozenset], values: frozenset) -> bool:
        return not any(values & other for other in taken)


def _constraint(claim: dict, index: int, spec: dict, lists: bool) -> _Constraint:
    if spec.get("matchAttribute"):
        return _MatchAttribute(spec["matchAttribute"], spec.get("requests"), lists)
    if spec.get("distinctAttribute"):
        return _DistinctAttribute(spec["distinctAttribute"], spec.get("requests"), lists)
    raise AllocationError(f"claim {claim_key(claim)}, constraint #{index}: empty constraint "
                          "(unsupported constraint type?)")


def _lookup_attribute(device: dict, driver: str, name: str, lists: bool):
    """The attribute's values as a set of (kind, value), by its fully qualified name or by id
    in the driver's domain; None without a value the run reads."""
    attributes = device.get("attributes") or {}
    if name in attributes:
        return _typed(attributes[name], lists)
    domain, sep, ident = name.partition("/")
    if not sep or domain != driver or ident not in attributes:
        return None
    return _typed(attributes[ident], lists)


def _typed(attr: dict, lists: bool):
    attr = attr or {}
    kind = next((k for k in SCALAR_KINDS if k in attr), None)
    if kind is not None:
        # Versions compare as written (the allocator's matchAttribute compares the strings).
        return frozenset([(kind, str(attr[kind]) if kind == "version"
                           else attribute_value(attr))])
    key = next((k for k in LIST_KINDS if attr.get(k)), None) if lists else None
    if key is None:
        return None
    kind = LIST_KINDS[key]
    return frozenset((kind, str(v) if kind == "version" else v) for v in attr[key])


class Allocator:
    """One per scheduling cycle (NewAllocator in PreFilter, Allocate per node in Filter): the
    classes, the slices, what is in use, the features on.

    slices: a list, or the SliceIndex the plugin keeps while the slices do not change (its
    pools per node and its per-device memo then serve every cycle)."""

    def __init__(self, *, classes: dict[str, dict], slices: list[dict] | SliceIndex,
                 allocated: set[tuple] | AllocatedState, features: Features = ALL_FEATURES):
        self.classes, self.features = classes, features
        self.index = slices if isinstance(slices, SliceIndex) \
            else SliceIndex(slices, features.partitionable_devices)
        self.state = allocated if isinstance(allocated, AllocatedState) \
            else AllocatedState(devices=set(allocated))
        # Per pool: the counters left after the allocated devices (the same for every node).
        self.counters: dict[tuple, counters.Counters] = {}
        # Per claim (by identity, the claim kept alive): its requests' checks that do not
        # depend on the node, done once for every node Filter visits.
        self._prepared: dict[int, tuple[dict, list]] = {}

    def allocate(self, node: dict, claims: list[dict]) -> list[dict] | None:
        """One AllocationResult per claim, None when the node cannot satisfy them all."""
        return _Run(self, node, claims).run()

    def counters_left(self, pool: Pool) -> counters.Counters:
        key = (pool.driver, pool.name)
        if key not in self.counters:
            self.counters[key] = counters.available(
                pool.all_slices,
                lambda name: self.state.is_allocated((pool.driver, pool.name, name)))
        return self.counters[key]

    def prepared(self, claim: dict) -> list:
        """Per request: its alternatives, each a _Request or the error (type, message) its
        checks give; or the request's own error. In the order Go checks them."""
        entry = self._prepared.get(id(claim))
        if entry is None:
            entry = self._prepared[id(claim)] = (claim, self._prepare(claim))
        return entry[1]

    def _prepare(self, claim: dict) -> list:
        out = []
        for request in (claim["spec"].get("devices") or {}).get("requests") or []:
            if not request.get("firstAvailable"):
                out.append([self._request(claim, request["exactly"], request["name"])])
            elif not self.features.prioritized_list:
                out.append((AllocationError, f"claim {claim_key(claim)}, request "
                            f"{request['name']}: has subrequests, but the DRAPrioritizedList "
                            "feature is disabled"))
            else:
                out.append([self._request(claim, sub, sub["name"], request["name"])
                            for sub in request["firstAvailable"]])
        return out

    def _request(self, claim: dict, exact: dict, name: str, parent: str = ""):
        """validateDeviceRequest's node-independent part: a _Request, or (error type, message)."""
        full = f"{parent}/{name}" if parent else name
        if exact.get("capacity") and not self.features.consumable_capacity:
            what = "subrequest" if parent else "request"
            return (AllocationError, f"claim {claim_key(claim)}, {what} {name}: has capacity "
                    "requests, but the DRAConsumableCapacity feature is disabled")
        if exact.get("adminAccess") and not self.features.admin_access:
            return (FailedOnNode, f"claim {claim_key(claim)}, request {full}: admin access is "
                    "requested, but the feature is disabled")
        klass = self.classes.get(exact["deviceClassName"])
        if klass is None:
            return (AllocationError,
                    f"claim {claim_key(claim)}, request {full}: could not retrieve device class "
                    f'{exact["deviceClassName"]}: deviceclass.resource.k8s.io '
                    f'"{exact["deviceClassName"]}" not found')
        data = _Request(name, parent, klass, exact.get("selectors") or [],
                        exact["allocationMode"], bool(exact.get("adminAccess")),
                        exact.get("tolerations") or [],
                        (exact.get("capacity") or {}).get("requests"))
        data.capacity_key = repr(data.capacity)
        if data.mode == "ExactCount":
            data.num_devices = exact["count"]
        return data


def _raise_if_error(entry):
    if isinstance(entry, tuple):
        error, message = entry
        raise error(message)
    return entry


class _Run:
    """One Allocate call: the search state for one node."""

    def __init__(self, alloc: Allocator, node: dict, claims: list[dict]):
        self.a, self.node, self.claims = alloc, node, claims
        self.features = alloc.features
        self.pools = alloc.index.pools(node)
        # Per claim, per request: its alternatives (one, or the firstAvailable subrequests),
        # and the alternative the solution took.
        self.requests: list[list[list[_Request]]] = []
        self.selected: list[list[int]] = []
        self.constraints: list[list] = []
        self.allocating: dict[tuple, set[int]] = {}
        self.allocating_capacity: dict[tuple, capacity.Consumed] = {}
        self.taking: dict[tuple, counters.Counters] = {}   # counters being consumed, per pool
        self.results: list[list[tuple]] = [[] for _ in claims]
        self.matches: dict[tuple, bool] = {}

    def run(self) -> list[dict] | None:
        for index, claim in enumerate(self.claims):
            self._prepare(index, claim)
        try:
            found = self._allocate_one(0, 0, 0)
        except _TooMany:
            found = False
        if not found:
            if any(p.invalid for p in self.pools):
                raise AllocationError("invalid resource pools were encountered")
            return None
        return [self._result(i, claim) for i, claim in enumerate(self.claims)]

    # --- preparation ---------------------------------------------------------------------
    def _prepare(self, index: int, claim: dict) -> None:
        """The claim's requests for this node: the prepared checks in order, and for mode All
        the node's devices."""
        requests, minimum = [], 0
        for entry in self.a.prepared(claim):
            alternatives = [self._for_node(index, claim, _raise_if_error(data))
                            for data in _raise_if_error(entry)]
            requests.append(alternatives)
            # Only a lower bound for subrequests: which one is taken is not known yet.
            minimum += min(a.num_devices for a in alternatives)
        if minimum > ALLOCATION_RESULTS_MAX_SIZE:
            raise AllocationError(f"claim {claim_key(claim)}: number of requested devices "
                                  f"{minimum} exceeds the claim limit of "
                                  f"{ALLOCATION_RESULTS_MAX_SIZE}")
        self.requests.append(requests)
        self.selected.append([0] * len(requests))
        devices = claim["spec"].get("devices") or {}
        self.constraints.append([_constraint(claim, i, c, self.features.list_type_attributes)
                                 for i, c in enumerate(devices.get("constraints") or [])])

    def _for_node(self, index: int, claim: dict, template: _Request) -> _Request:
        """An ExactCount request as prepared; an All one with the node's matching devices."""
        if template.mode == "ExactCount":
            return template
        data = replace(template, all_devices=[])
        for pool in self.pools:
            state = "being updated" if pool.incomplete else "invalid" if pool.invalid else ""
            if state:
                raise AllocationError(
                    f"claim {claim_key(claim)}, request {data.name}: asks for all devices, but "
                    f"resource pool {pool.pool_id} is currently {state}")
            for s in pool.slices:
                for device in s["spec"].get("devices") or []:
                    device_id = (pool.driver, pool.name, device["name"])
                    if self._selectable(index, data, s, device, device_id, claim) and \
                            self._capacity_fits(data, device, device_id) is not None:
                        data.all_devices.append((device_id, device, s, pool))
        data.num_devices = len(data.all_devices)
        return data

    # --- selection -----------------------------------------------------------------------
    def _selectable(self, index: int, data: _Request, s: dict, device: dict, device_id: tuple,
                    claim: dict) -> bool:
        if not self.features.binding_conditions and device.get("bindingConditions"):
            return False   # devices with binding conditions need the feature
        key = (device_id, index, data.full_name)
        if key in self.matches:
            return self.matches[key]
        match = (self._node_allows(s, device)
                 and self._selectors_match(data.klass.get("spec", {}).get("selectors") or [],
                                           device_id, device,
                                           f"class {data.klass['metadata']['name']}")
                 and self._selectors_match(data.selectors, device_id, device,
                                           f"claim {claim_key(claim)}"))
        self.matches[key] = match
        return match

    def _node_allows(self, s: dict, device: dict) -> bool:
        """A device of a perDeviceNodeSelection slice must itself be reachable from the node."""
        return not s["spec"].get("perDeviceNodeSelection") or targets(self.node, device)

    def _selectors_match(self, selectors, device_id, device: dict, owner: str) -> bool:
        for i, selector in enumerate(selectors):
            expression = selector["cel"]["expression"]
            try:
                compiled = compile_selector(expression)
            except CELError as exc:
                raise AllocationError(f"{owner}: selector #{i}: CEL compile error: {exc}") from exc
            outcome = self._evaluate(compiled, device_id[0], device)
            if isinstance(outcome, CELError):
                raise AllocationError(f"{owner}: selector #{i}: CEL runtime error: "
                                      f"{self._runtime_error(outcome)}") from outcome
            if not outcome:
                return False
        return True

    def _evaluate(self, compiled, driver: str, device: dict):
        """The selector on the device: True, False or the CELError it gives. Pure in the
        expression and the device (and whether list values are read), so kept in the slice
        index's memo for later nodes and cycles (Go keeps the compiled programs; the outcome is
        the same)."""
        lists = self.features.list_type_attributes
        key = ("cel", compiled.expression, id(device), lists)
        memo = self.a.index.memo
        if key in memo:
            return memo[key]
        try:
            outcome = compiled.matches(driver, *device_variables(device, driver, lists),
                                       bool(device.get("allowMultipleAllocations")))
        except CELError as exc:
            outcome = exc
        memo[key] = outcome
        return outcome

    def _runtime_error(self, exc: CELError) -> str:
        """The selector's runtime error as the release words it (cel/errors.go from v1.37)."""
        text = str(exc)
        if self.features.cel_error_hints and text.startswith("no such key:"):
            return (f"{text}. Consider using CEL optional chaining (?), has() macro, or "
                    "orValue() for optional fields")
        return text

    def _capacity_fits(self, data: _Request, device: dict, device_id: tuple):
        """CmpRequestOverCapacity when the feature is on: what the request would consume
        (an empty map when the feature is off), None when the device cannot give it. While
        nothing consumes the device's capacity the outcome is pure in the request and the
        device: kept in the slice index's memo."""
        if not self.features.consumable_capacity:
            return {}
        allocated = self.a.state.capacity.get(device_id, {})
        allocating = self.allocating_capacity.get(device_id, {})
        memo, key = self.a.index.memo, None
        if not allocated and not allocating:
            key = ("capacity", id(device), data.capacity_key)
        if key in memo:
            outcome = memo[key]
        else:
            try:
                outcome = capacity.fits(data.capacity, device, device_id[0], allocated,
                                        allocating)
            except capacity.CapacityError as exc:
                outcome = exc
            if key is not None:
                memo[key] = outcome
        if isinstance(outcome, capacity.CapacityError):
            raise AllocationError(f"request {data.full_name}: {outcome}") from outcome
        return outcome

    def _multiple(self, device: dict) -> bool:
        return self.features.consumable_capacity and bool(device.get("allowMultipleAllocations"))

    def _in_use(self, device_id: tuple, claim_index: int, admin: bool) -> bool:
        if admin:
            return claim_index in self.allocating.get(device_id, ())
        return device_id in self.a.state.devices or bool(self.allocating.get(device_id))

    # --- the search ----------------------------------------------------------------------
    def _allocate_one(self, c: int, r: int, d: int, alt: int | None = None,
                      start: tuple = (0, 0, 0)) -> bool:
        if c >= len(self.claims):
            return True
        if r >= len(self.requests[c]):
            return self._allocate_one(c + 1, 0, 0)
        alternatives = self.requests[c][r]
        if alt is None:
            # The first alternative (subrequest) that leads to a full solution wins.
            too_many = 0
            for i in range(len(alternatives)):
                try:
                    if self._allocate_one(c, r, d, i):
                        self.selected[c][r] = i
                        return True
                except _TooMany:
                    too_many += 1
            if too_many == len(alternatives):
                raise _TooMany
            return False
        data = alternatives[alt]
        if data.mode == "All" and not data.all_devices:
            return False
        if d >= data.num_devices:
            return self._allocate_one(c, r + 1, 0)
        if len(self.results[c]) + data.num_devices - d > ALLOCATION_RESULTS_MAX_SIZE:
            raise _TooMany
        if data.mode == "All":
            # Every one of them is needed, in any order: only the next one is tried.
            device_id, device, s, pool = data.all_devices[d]
            return self._try(c, r, d, alt, data, device_id, device, s, pool, must=True)
        # The next device of the same request comes after this one (startLocation): the
        # combinations of devices are tried, not their permutations.
        for location, (device_id, device, s, pool) in self._candidates(c, data, start):
            if self._try(c, r, d, alt, data, device_id, device, s, pool, must=False,
                         after=location):
                return True
        return False

    def _candidates(self, c: int, data: _Request, start: tuple):
        """Free devices of the usable pools, from `start` on, that match the request's
        selectors and have the capacity it asks for, lazily."""
        for p in range(start[0], len(self.pools)):
            pool = self.pools[p]
            if pool.incomplete or pool.invalid:
                continue
            first_slice = start[1] if p == start[0] else 0
            for i in range(first_slice, len(pool.slices)):
                s = pool.slices[i]
                devices = s["spec"].get("devices") or []
                first = start[2] if (p, i) == start[:2] else 0
                for j in range(first, len(devices)):
                    device = devices[j]
                    device_id = (pool.driver, pool.name, device["name"])
                    if self._in_use(device_id, c, data.admin) or not self._selectable(
                            c, data, s, device, device_id, self.claims[c]):
                        continue
                    if self._capacity_fits(data, device, device_id) is None:
                        continue
                    yield (p, i, j + 1), (device_id, device, s, pool)

    def _try(self, c, r, d, alt, data, device_id, device, s, pool, must: bool,
             after: tuple = (0, 0, 0)) -> bool:
        """Take the device and go on with the next one; on a dead end, give it back."""
        undo = self._allocate_device(c, data, device_id, device, s, pool, must=must)
        if undo is None:
            return False
        try:
            if self._allocate_one(c, r, d + 1, alt, after if not must else (0, 0, 0)):
                return True
        except _TooMany:
            undo()
            raise
        undo()
        return False

    def _allocate_device(self, c: int, data: _Request, device_id, device, s, pool, must: bool):
        """allocateDevice: take the device if free, its counters and capacity suffice, its
        taints are tolerated and every constraint allows it; the undo function, or None."""
        multiple = self._multiple(device)
        if data.admin and not multiple and c in self.allocating.get(device_id, ()):
            return None
        if not data.admin and self._in_use(device_id, c, False):
            return None
        consumes = bool(device.get("consumesCounters"))
        if consumes and not self.features.partitionable_devices:
            return None
        shared_in_use = multiple and (device_id in self.a.state.capacity
                                      or device_id in self.allocating_capacity)
        check_counters = consumes and not shared_in_use
        taking = self.taking.setdefault((pool.driver, pool.name), {})
        if check_counters and not counters.fits(self.a.counters_left(pool), taking, device):
            return None
        if self.features.device_taints and device_taints.prevents_allocation(
                device, data.tolerations):
            return None
        consumed = self._capacity_fits(data, device, device_id)
        if consumed is None:
            return None
        constraints = self.constraints[c]
        base, sub = data.base_and_sub
        for i, constraint in enumerate(constraints):
            if not constraint.add(base, sub, device, device_id):
                if must:
                    raise AllocationError(
                        f"claim {claim_key(self.claims[c])}, request {data.name}: cannot add "
                        f"device {'/'.join(device_id)} because a claim constraint would not be "
                        "satisfied")
                for previous in constraints[:i]:
                    previous.remove(base, sub, device_id)
                return None
        if check_counters:
            counters.take(taking, device)
        if not multiple:
            self.allocating.setdefault(device_id, set()).add(c)
        else:
            capacity.add(self.allocating_capacity.setdefault(device_id, {}), consumed)
        self.results[c].append((self._device_result(c, data, device_id, device, consumed,
                                                    multiple), s, device))
        size = len(self.results[c]) - 1

        def undo():
            for constraint in constraints:
                constraint.remove(base, sub, device_id)
            if multiple:
                capacity.add(self.allocating_capacity[device_id], consumed, -1)
                if not self.allocating_capacity[device_id]:
                    del self.allocating_capacity[device_id]
            else:
                self.allocating[device_id].discard(c)
            if check_counters:
                counters.take(taking, device, -1)
            del self.results[c][size:]
        return undo

    def _device_result(self, c: int, data: _Request, device_id, device, consumed,
                       multiple: bool) -> dict:
        result = {"request": data.full_name, "driver": device_id[0], "pool": device_id[1],
                  "device": device_id[2]}
        if data.admin:
            result["adminAccess"] = True
        if data.tolerations:
            result["tolerations"] = data.tolerations
        if multiple:
            result["shareID"] = share_id(self.claims[c], data.full_name, device_id,
                                         len(self.results[c]))
            used = capacity.status_names(consumed, device, device_id[0])
            if used:   # a device without capacities consumes none: Go leaves the field nil
                result["consumedCapacity"] = used
        if self.features.binding_conditions:
            for key in ("bindingConditions", "bindingFailureConditions"):
                if device.get(key):
                    result[key] = list(device[key])
        return result

    # --- results -------------------------------------------------------------------------
    def _result(self, index: int, claim: dict) -> dict:
        devices = {"results": [r for r, _, _ in self.results[index]]}
        config = self._config(index, claim)
        if config:
            devices["config"] = config
        out = {"devices": devices}
        selector = _node_selector([(s, d) for _, s, d in self.results[index]],
                                  (self.node.get("metadata") or {}).get("name", ""))
        if selector is not None:
            out["nodeSelector"] = selector
        return out

    def _config(self, index: int, claim: dict) -> list[dict]:
        """Class configs once per class (FromClass) naming every request that took the class,
        then the claim's own (FromClaim), each claim config once per request it names (or once
        when it names none), as Go adds them (allocator_incubating.go; Requests is not emptied
        when a class serves every request)."""
        requests = claim["spec"]["devices"].get("requests") or []
        taken = [alts[i] for alts, i in zip(self.requests[index], self.selected[index])]
        config, by_class = [], {}
        for data in taken:
            name = data.klass["metadata"]["name"]
            if name in by_class:
                for entry in by_class[name]:
                    entry["requests"].append(data.full_name)
                continue
            entries = [{"source": "FromClass", "requests": [data.full_name], **_opaque(c)}
                       for c in data.klass.get("spec", {}).get("config") or []]
            by_class[name] = entries
            config += entries
        for c in claim["spec"]["devices"].get("config") or []:
            wanted = c.get("requests") or []
            named = [r for r, data in zip(requests, taken)
                     if r["name"] in wanted or (data.parent and data.full_name in wanted)]
            for _ in named if wanted else [None]:
                config.append({"source": "FromClaim", "requests": list(wanted), **_opaque(c)})
        return [{k: v for k, v in e.items() if v != []} for e in config]


def _opaque(config: dict) -> dict:
    return {"opaque": config["opaque"]} if "opaque" in config else {}


def _node_selector(taken: list[tuple[dict, dict]], node_name: str) -> dict | None:
    """createNodeSelector: a device local to a node (or one that bindsToNode) pins the claim to
    the node; selectors add up. taken: (slice, device) per allocated device."""
    fields, expressions = [], []
    for s, device in taken:
        placement = device if s["spec"].get("perDeviceNodeSelection") else s["spec"]
        if placement.get("nodeName") or device.get("bindsToNode"):
            return {"nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": [node_name]}]}]}
        terms = (placement.get("nodeSelector") or {}).get("nodeSelectorTerms") or []
        if len(terms) == 1:
            _add_new(terms[0].get("matchFields") or [], fields)
            _add_new(terms[0].get("matchExpressions") or [], expressions)
        elif len(terms) > 1:
            raise AllocationError(f"create NodeSelector: unsupported ResourceSlice.NodeSelector "
                                  f"with {len(terms)} terms")
    if not fields and not expressions:
        return None
    term = {}
    if fields:
        term["matchFields"] = fields
    if expressions:
        term["matchExpressions"] = expressions
    return {"nodeSelectorTerms": [term]}


def _add_new(requirements: list[dict], into: list[dict]) -> None:
    for req in requirements:
        if not any(e.get("key") == req.get("key") and e.get("operator") == req.get("operator")
                   and set(e.get("values") or []) == set(req.get("values") or []) for e in into):
            into.append(req)


def share_id(claim: dict, request: str, device_id: tuple, index: int) -> str:
    """A share's UID: random in Go, derived from what it shares here so that runs repeat."""
    digest = hashlib.sha256("/".join((claim_key(claim), request, *device_id, str(index)))
                            .encode()).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))
