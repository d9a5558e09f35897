"""Builders named after allocatortesting/allocator_testing.go's helpers (test support).

Go builds its table with wrappers (`claim(claim0).withRequests(deviceRequest(...)
.withCapacityRequest(...))`, `device(device1, nil, nil).withAllowMultipleAllocations()`); these
functions build the same resource.k8s.io/v1 objects as plain dicts, so that a case reads like
Go's. run_case() runs one case as Go's RunTestAllocator does: only the features the case names
are on, and the results are compared per claim with the request, device, consumedCapacity and
whether the device is shared (Go replaces each shareID with a fixed one).
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from decimal import Decimal

from ...quantity import parse_quantity
from .allocated import AllocatedState
from .allocator import AllocationError, Allocator, Features
from .builders import local_to

DRIVER_A, DRIVER_B, POOL_1, POOL_2 = "driver-a", "driver-b", "pool-1", "pool-2"
CLASS_A, CLASS_B, NODE_1, NODE_2 = "class-a", "class-b", "node-1", "node-2"
CAPACITY_0, CAPACITY_1 = "capacity-0", "capacity-1"
# Go's Features fields -> the engine's.
FEATURES = {"AdminAccess": "admin_access", "PrioritizedList": "prioritized_list",
            "PartitionableDevices": "partitionable_devices", "DeviceTaints": "device_taints",
            "DeviceBindingAndStatus": "binding_conditions",
            "ConsumableCapacity": "consumable_capacity",
            "ListTypeAttributes": "list_type_attributes"}


def features(*names: str) -> Features:
    """Features{...}: the named ones on, every other one off."""
    return Features(**{field_name: go in names for go, field_name in FEATURES.items()})


def go_class(name: str, driver: str, multi: bool | None = None) -> dict:
    """class(name, driver), or classWithAllowMultipleAllocations(name, driver, multi)."""
    expression = f'device.driver == "{driver}"'
    if multi is not None:
        expression += f" && device.allowMultipleAllocations == {str(multi).lower()}"
    return {"metadata": {"name": name}, "spec": {"selectors": [{"cel": {"expression":
                                                                        expression}}]}}


def cel(expression: str) -> dict:
    return {"cel": {"expression": expression}}


def exact(name: str, klass: str, count: int = 1, *selectors: dict, capacity=None,
          tolerations=(), admin: bool = False) -> dict:
    """deviceRequest / request(name, class, count, selectors...)[.withCapacityRequest(q)]."""
    out = {"deviceClassName": klass, "allocationMode": "ExactCount", "count": count}
    return {"name": name, "exactly": _extras(out, selectors, capacity, tolerations, admin)}


def all_devices(name: str, klass: str, capacity=None, admin: bool = False) -> dict:
    """allDeviceRequest(name, class)[.withCapacityRequest(q)]."""
    return {"name": name, "exactly": _extras({"deviceClassName": klass, "allocationMode": "All"},
                                             (), capacity, (), admin)}


def sub(name: str, klass: str, count: int = 1, *selectors: dict, capacity=None,
        tolerations=(), mode: str = "ExactCount") -> dict:
    """subRequest(name, class, count, fields...)[.withCapacityRequest(q)]
    [.withAllocationMode(mode)]; mode All has no count."""
    out = {"name": name, "deviceClassName": klass, "allocationMode": mode}
    if mode == "ExactCount":
        out["count"] = count
    return _extras(out, selectors, capacity, tolerations, False)


def prioritized(name: str, *subrequests: dict) -> dict:
    """requestWithPrioritizedList(name, subrequests...)."""
    return {"name": name, "firstAvailable": list(subrequests)}


def _extras(out: dict, selectors, capacity, tolerations, admin: bool) -> dict:
    if selectors:
        out["selectors"] = list(selectors)
    if capacity is not None:
        out["capacity"] = {"requests": {CAPACITY_0: capacity}}
    if tolerations:
        out["tolerations"] = list(tolerations)
    if admin:
        out["adminAccess"] = True
    return out


def claim(name: str, *requests: dict, constraints=(), config=()) -> dict:
    """claim(name).withRequests(...).withConstraints(...).withConfigs(...)."""
    devices = {"requests": list(requests)}
    if constraints:
        devices["constraints"] = list(constraints)
    if config:
        devices["config"] = list(config)
    return {"metadata": {"name": name, "namespace": "default"}, "spec": {"devices": devices},
            "status": {}}


def distinct(attribute: str, *requests: str) -> dict:
    return {"distinctAttribute": attribute, **({"requests": list(requests)} if requests else {})}


def match(attribute: str, *requests: str) -> dict:
    return {"matchAttribute": attribute, **({"requests": list(requests)} if requests else {})}


def device(name: str, capacity: dict | None = None, attributes: dict | None = None) -> dict:
    """device(name, capacity, attributes): capacity as {name: quantity}; attributes as
    DeviceAttribute dicts ({"string": ...}, {"bool": ...}, {} for an unknown type)."""
    out = {"name": name}
    if capacity:
        out["capacity"] = {k: {"value": v} for k, v in capacity.items()}
    if attributes is not None:
        out["attributes"] = dict(attributes)
    return out


def multi(d: dict) -> dict:
    """.withAllowMultipleAllocations()"""
    return {**d, "allowMultipleAllocations": True}


def policy_range(d: dict, capacity: dict) -> dict:
    """.withCapacityRequestPolicyRange(capacity): default 2, range min 2, step 2, max 4."""
    caps = dict(d.get("capacity") or {})
    for name, value in capacity.items():
        caps[name] = {"value": value, "requestPolicy": {
            "default": "2", "validRange": {"min": "2", "step": "2", "max": "4"}}}
    return {**d, "capacity": caps}


def consumes(d: dict, *usages: tuple[str, dict], from_counters: bool = False) -> dict:
    """.withDeviceCounterConsumption(deviceCounterConsumption(set, counters)...); with
    fromCounters the device's capacity is what it consumes."""
    out = {**d, "consumesCounters": [
        {"counterSet": cs, "counters": {k: {"value": v} for k, v in (c or {}).items()}}
        for cs, c in usages]}
    if from_counters:
        out["capacity"] = {k: {"value": v} for _, c in usages for k, v in (c or {}).items()}
    return out


def with_taints(d: dict, *taints: dict) -> dict:
    return {**d, "taints": [*(d.get("taints") or []), *taints]}


def with_binding_conditions(d: dict, conditions, failure_conditions) -> dict:
    return {**d, "bindingConditions": list(conditions),
            "bindingFailureConditions": list(failure_conditions)}


def go_slice(name: str, node, pool: str, driver: str, *devices: dict, count: int = 1,
             generation: int = 1) -> dict:
    """sliceWithDevices(name, node, resourcePool(pool, count), driver, devices...); node is a
    node name, "all" (nodeSelectionAll) or a node selector."""
    spec = {"driver": driver, "pool": {"name": pool, "generation": generation,
                                       "resourceSliceCount": count},
            "devices": list(devices)}
    if node == PER_DEVICE:
        spec["perDeviceNodeSelection"] = True
    else:
        spec.update(_node_selection(node))
    return {"metadata": {"name": name}, "spec": spec}


PER_DEVICE = "nodeSelectionPerDevice"


def _node_selection(node) -> dict:
    """A node name, "all" (nodeSelectionAll) or a node selector, as the API's fields."""
    if isinstance(node, dict):
        return {"nodeSelector": node}
    if node == "all":
        return {"allNodes": True}
    return {"nodeName": node}


def with_node(d: dict, node) -> dict:
    """.withNodeSelection(node) of a device in a perDeviceNodeSelection slice."""
    return {**d, **_node_selection(node)}


def label_selector(key: str, *values: str) -> dict:
    """nodeLabelSelector(key, values...)."""
    return {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": key, "operator": "In", "values": list(values)}]}]}


def counter_slice(name: str, node: str, pool: str, driver: str, *counter_sets, count: int = 1):
    """sliceWithCounterSets(name, node, resourcePool(pool, count), driver, counterSet...)."""
    out = go_slice(name, node, pool, driver, count=count)
    del out["spec"]["devices"]
    out["spec"]["sharedCounters"] = [
        {"name": cs, "counters": {k: {"value": v} for k, v in (c or {}).items()}}
        for cs, c in counter_sets]
    return out


def go_node(name: str = NODE_1, region: str = "region-1") -> dict:
    return {"metadata": {"name": name, "labels": {"region": region, "planet": "earth"}}}


@dataclass
class Case:
    """One AllocatorTestCase: want is one list of results per claim (None: no allocation),
    each result (request, pool, device[, consumedCapacity or SHARED when the share has none]);
    error is a substring of the expected error."""
    features: Features
    claims: list
    classes: list
    slices: list
    want: list | None = None
    error: str | None = None
    allocated: set = field(default_factory=set)
    capacity: dict = field(default_factory=dict)   # device name -> {capacity: quantity}
    node: dict = field(default_factory=go_node)
    driver: str = DRIVER_A
    selector: str | dict | None = "local"   # the nodeSelector: localNodeSelector(node) or this
    config: list | None = None       # per claim, Devices.Config (Go's matcher: nil otherwise)


SHARED = "shared"   # a result with a shareID and no consumedCapacity


def state_of(case: Case) -> AllocatedState:
    state = AllocatedState(devices={(case.driver, POOL_1, d) if isinstance(d, str) else d
                                    for d in case.allocated})
    for device_name, consumed in case.capacity.items():
        device_id = (case.driver, POOL_1, device_name)
        state.shared.add(device_id)
        state.capacity[device_id] = {f"{case.driver}/{k}": Decimal(v)
                                     for k, v in consumed.items()}
    return state


def run_case(case: Case) -> None:
    claims = copy.deepcopy(case.claims)
    alloc = Allocator(classes={c["metadata"]["name"]: c for c in case.classes},
                      slices=copy.deepcopy(case.slices), allocated=state_of(case),
                      features=case.features)
    if case.error is not None:
        try:
            alloc.allocate(case.node, claims)
        except AllocationError as exc:
            assert case.error in str(exc)
            return
        raise AssertionError(f"expected an error containing {case.error!r}")
    results = alloc.allocate(case.node, claims)
    assert claims == case.claims, "the allocator must not modify the claims"
    if not case.want:
        assert not results
        return
    assert results is not None, "expected an allocation"
    assert [sorted(_summary(r) for r in a["devices"]["results"]) for a in results] == \
        [sorted(_normal(tuple(w)) for w in want) for want in case.want]
    assert [a["devices"].get("config") for a in results] == (case.config or
                                                               [None] * len(results))
    selector = local_to(case.node["metadata"]["name"]) if case.selector == "local" \
        else case.selector
    assert all(a.get("nodeSelector") == selector for a in results)


def _normal(summary: tuple) -> tuple:
    """Quantities compared by value (Go's Quantity equality), maps made sortable."""
    return tuple(tuple(sorted((k, parse_quantity(v)) for k, v in x.items()))
                 if isinstance(x, dict) else x for x in summary)


def _summary(result: dict) -> tuple:
    out = (result["request"], result["pool"], result["device"])
    if result.get("driver") != DRIVER_A:
        out = (*out, result["driver"])
    if "shareID" in result:
        return _normal((*out, result.get("consumedCapacity") or SHARED))
    if result.get("adminAccess"):
        out = (*out, "admin")
    for key in ("bindingConditions", "bindingFailureConditions"):
        if key in result:
            out = (*out, tuple(result[key]))
    if result.get("tolerations"):
        out = (*out, tuple(t.get("key", "") + "/" + t.get("effect", "")
                           for t in result["tolerations"]))
    return out


def opaque(driver: str, attribute: str) -> dict:
    """deviceConfiguration(driver, attribute): {attribute: attribute + "Value"}."""
    return {"opaque": {"driver": driver, "parameters": {attribute: attribute + "Value"}}}


def with_config(klass: dict, driver: str, attribute: str) -> dict:
    """classWithConfig(name, driver, attribute)."""
    return {**klass, "spec": {**klass["spec"], "config": [opaque(driver, attribute)]}}
