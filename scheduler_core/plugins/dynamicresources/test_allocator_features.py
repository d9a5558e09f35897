"""The allocator's features of v1.36/v1.37 (structured/internal/incubating, the allocator every
release uses once one of them is on), ported from allocatortesting/allocator_testing.go:
device taints ("tainted-*"), partitionable devices ("partitionable-devices-*"), consumable
capacity (consumable_capacity.go's rules) and binding conditions. Same names as Go's table:
driver-a, pool-1, class-a, node-1, device-1 ...; each case also runs with its feature off."""
from __future__ import annotations

from decimal import Decimal

import pytest

from .allocated import AllocatedState, allocated_state
from .allocator import AllocationError, Allocator, Features
from .builders import claim, device_class, first_available, node, request, resource_slice

DRIVER, POOL, CLASS = "driver-a", "pool-1", "class-a"
TAINT_NO_SCHEDULE = {"key": "taint-key", "value": "taint-value", "effect": "NoSchedule"}
TAINT_NO_EXECUTE = {"key": "taint-key", "value": "taint-value", "effect": "NoExecute"}
TOLERATE_NO_SCHEDULE = {"key": "taint-key", "operator": "Equal", "value": "taint-value",
                        "effect": "NoSchedule"}
TOLERATE_NO_EXECUTE = {**TOLERATE_NO_SCHEDULE, "effect": "NoExecute"}
OFF = {"device_taints": False, "partitionable_devices": False, "consumable_capacity": False,
       "binding_conditions": False}


def dev(name, *, taints=(), consumes=None, capacity=None, **extra) -> dict:
    out = {"name": name, **extra}
    if taints:
        out["taints"] = list(taints)
    if consumes:
        out["consumesCounters"] = [{"counterSet": cs, "counters": {k: {"value": v}
                                                                   for k, v in c.items()}}
                                   for cs, c in consumes.items()]
        # fromCounters: the device's capacity is what it consumes, for the selectors.
        out["capacity"] = {k: {"value": v} for c in consumes.values() for k, v in c.items()}
    if capacity:
        out["capacity"] = capacity
    return out


def devices_slice(name, *devices, pool=POOL, count=1):
    return resource_slice(name, "node-1", pool, DRIVER, *devices, count=count)


def counters_slice(name, pool=POOL, count=2, **counter_sets):
    out = resource_slice(name, "node-1", pool, DRIVER, count=count)
    del out["spec"]["devices"]
    out["spec"]["sharedCounters"] = [
        {"name": cs, "counters": {k: {"value": v} for k, v in c.items()}}
        for cs, c in counter_sets.items()]
    return out


def tolerating(*tolerations, count=1, name="req-0"):
    req = request(name, CLASS, count)
    req["exactly"]["tolerations"] = list(tolerations)
    return req


def allocate(claims, slices, *, allocated=(), features=None):
    classes = {CLASS: device_class(CLASS, f'device.driver == "{DRIVER}"')}
    state = allocated if isinstance(allocated, AllocatedState) else set(allocated)
    alloc = Allocator(classes=classes, slices=list(slices), allocated=state,
                      features=features or Features())
    return alloc.allocate(node("node-1"), list(claims))


def devices_of(results):
    """(request, pool, device) per result of each claim, None when allocation failed."""
    if results is None:
        return None
    return [[(r["request"], r["pool"], r["device"]) for r in a["devices"]["results"]]
            for a in results]


def feature_cases(cases):
    """Each case as Go runs it, with its feature on and (expecting `off`) with it off."""
    out = []
    for case_id, claims, slices, want, want_off in cases:
        out.append(pytest.param(claims, slices, Features(), want, id=case_id))
        out.append(pytest.param(claims, slices, Features(**OFF), want_off,
                                id=f"{case_id}-disabled"))
    return out


TAINT_CASES = [
    ("tainted-two-devices", [claim("claim-0")],
     [devices_slice("slice-1", dev("device-1", taints=[TAINT_NO_SCHEDULE]),
                    dev("device-2", taints=[TAINT_NO_EXECUTE]))],
     None, [[("req-0", POOL, "device-1")]]),
    ("tainted-one-device-two-taints", [claim("claim-0")],
     [devices_slice("slice-1", dev("device-1", taints=[TAINT_NO_SCHEDULE, TAINT_NO_EXECUTE]))],
     None, [[("req-0", POOL, "device-1")]]),
    ("tainted-two-devices-tolerated", [claim("claim-0", tolerating(TOLERATE_NO_EXECUTE))],
     [devices_slice("slice-1", dev("device-1", taints=[TAINT_NO_SCHEDULE]),
                    dev("device-2", taints=[TAINT_NO_EXECUTE]))],
     # Only the second device's taint is tolerated.
     [[("req-0", POOL, "device-2")]], [[("req-0", POOL, "device-1")]]),
    ("tainted-one-device-two-taints-both-tolerated",
     [claim("claim-0", tolerating(TOLERATE_NO_SCHEDULE, TOLERATE_NO_EXECUTE))],
     [devices_slice("slice-1", dev("device-1", taints=[TAINT_NO_SCHEDULE, TAINT_NO_EXECUTE]))],
     [[("req-0", POOL, "device-1")]], [[("req-0", POOL, "device-1")]]),
    ("tainted-prioritized-list",
     [claim("claim-0", first_available("req-0", request("subReq-0", "class-b"),
                                       request("subReq-1", CLASS)))],
     [devices_slice("slice-1", dev("device-1", taints=[TAINT_NO_SCHEDULE]))],
     None, [[("req-0/subReq-1", POOL, "device-1")]]),
    ("tainted-all-devices-single", [claim("claim-0", request("req-0", CLASS, mode="All"))],
     [devices_slice("slice-1", dev("device-1", taints=[TAINT_NO_SCHEDULE]))],
     None, [[("req-0", POOL, "device-1")]]),
    ("a taint with effect None does not prevent allocation", [claim("claim-0")],
     [devices_slice("slice-1", dev("device-1", taints=[{**TAINT_NO_SCHEDULE,
                                                        "effect": "None"}]))],
     [[("req-0", POOL, "device-1")]], [[("req-0", POOL, "device-1")]]),
    ("an Exists toleration without key tolerates every taint",
     [claim("claim-0", tolerating({"operator": "Exists"}))],
     [devices_slice("slice-1", dev("device-1", taints=[TAINT_NO_SCHEDULE, TAINT_NO_EXECUTE]))],
     [[("req-0", POOL, "device-1")]], [[("req-0", POOL, "device-1")]]),
]




@pytest.mark.parametrize(("claims", "slices", "features", "want"), feature_cases(TAINT_CASES))
def test_device_taints(claims, slices, features, want):
    classes_b = {"class-b": device_class("class-b", 'device.driver == "driver-b"')}
    alloc = Allocator(classes={CLASS: device_class(CLASS, f'device.driver == "{DRIVER}"'),
                               **classes_b}, slices=slices, allocated=set(), features=features)
    assert devices_of(alloc.allocate(node("node-1"), claims)) == want


def test_tainted_admin_access_is_refused_too():
    admin = claim("claim-0", request("req-0", CLASS, admin=True))
    slices = [devices_slice("slice-1", dev("device-1", taints=[TAINT_NO_SCHEDULE]))]
    used = {(DRIVER, POOL, "device-1")}
    assert allocate([admin], slices, allocated=used) is None
    assert devices_of(allocate([admin], slices, allocated=used, features=Features(**OFF))) == [
        [("req-0", POOL, "device-1")]]


def test_the_result_carries_the_tolerations_it_used():
    (result,) = allocate([claim("claim-0", tolerating(TOLERATE_NO_SCHEDULE))],
                         [devices_slice("slice-1", dev("device-1", taints=[TAINT_NO_SCHEDULE]))])
    assert result["devices"]["results"][0]["tolerations"] == [TOLERATE_NO_SCHEDULE]


def memory(cs, amount):
    return {cs: {"memory": amount}}


THREE_PARTITIONS = devices_slice("slice-1", dev("device-1", consumes=memory("counter-set-1",
                                                                            "4Gi")),
                                 dev("device-2", consumes=memory("counter-set-1", "6Gi")),
                                 dev("device-3", consumes=memory("counter-set-1", "4Gi")),
                                 count=2)
EIGHT_GI = counters_slice("slice-2", **{"counter-set-1": {"memory": "8Gi"}})
AT_LEAST = 'device.capacity["driver-a"].memory.compareTo(quantity("{}")) >= 0'

PARTITION_CASES = [
    ("partitionable-devices-single-device", [claim("claim-0")],
     [devices_slice("slice-1", dev("device-1", consumes=memory("counter-set-1", "4Gi")),
                    count=2), EIGHT_GI],
     # With the feature off a device that consumes counters is not allocatable.
     [[("req-0", POOL, "device-1")]], None),
    ("partitionable-devices-prioritized-list",
     [claim("claim-0", request("req-0", CLASS),
            first_available("req-1", request("subReq-0", CLASS,
                                             selectors=[AT_LEAST.format("6Gi")]),
                            request("subReq-1", CLASS, selectors=[AT_LEAST.format("4Gi")])))],
     [THREE_PARTITIONS, EIGHT_GI],
     [[("req-0", POOL, "device-1"), ("req-1/subReq-1", POOL, "device-3")]], None),
    ("partitionable-devices-multiple-devices",
     [claim("claim-0", request("req-0", CLASS), request("req-1", CLASS))],
     [THREE_PARTITIONS, EIGHT_GI],
     [[("req-0", POOL, "device-1"), ("req-1", POOL, "device-3")]], None),
    ("partitionable-devices-multiple-capacity-pools",
     [claim("claim-0", request("req-0", CLASS),
            first_available("req-1", request("subReq-0", CLASS,
                                             selectors=[AT_LEAST.format("6Gi")]),
                            request("subReq-1", CLASS, selectors=[AT_LEAST.format("4Gi")])))],
     [devices_slice("slice-1",
                    dev("device-1", consumes={"counter-set-1": {"memory": "4Gi"},
                                              "counter-set-2": {"cpus": "4"}}),
                    dev("device-2", consumes={"counter-set-1": {"memory": "6Gi"},
                                              "counter-set-2": {"cpus": "6"}}),
                    dev("device-3", consumes={"counter-set-1": {"memory": "4Gi"},
                                              "counter-set-2": {"cpus": "4"}}), count=2),
      counters_slice("slice-2", **{"counter-set-1": {"memory": "18Gi"},
                                   "counter-set-2": {"cpus": "8"}})],
     [[("req-0", POOL, "device-1"), ("req-1/subReq-1", POOL, "device-3")]], None),
    ("partitionable-devices-multiple-counters",
     [claim("claim-0", request("req-0", CLASS), request("req-1", CLASS))],
     [devices_slice("slice-1",
                    dev("device-1", consumes={"counter-set-1": {"memory": "4Gi", "cpus": "6"},
                                              "counter-set-2": {"cpus": "4", "memory": "2Gi"}}),
                    dev("device-2", consumes={"counter-set-1": {"memory": "6Gi", "cpus": "4"},
                                              "counter-set-2": {"cpus": "6", "memory": "6Gi"}}),
                    dev("device-3", consumes={"counter-set-1": {"memory": "4Gi", "cpus": "4"},
                                              "counter-set-2": {"cpus": "4", "memory": "4Gi"}}),
                    count=2),
      counters_slice("slice-2", **{"counter-set-1": {"cpus": "8", "memory": "18Gi"},
                                   "counter-set-2": {"cpus": "12", "memory": "18Gi"}})],
     [[("req-0", POOL, "device-2"), ("req-1", POOL, "device-3")]], None),
    ("partitionable-devices-unused-counters-in-counter-set",
     [claim("claim-0", request("req-0", CLASS, count=2))],
     [devices_slice("slice-1", dev("device-1", consumes=memory("counter-set-1", "5Gi")),
                    dev("device-2", consumes=memory("counter-set-1", "4Gi")),
                    dev("device-3", consumes=memory("counter-set-1", "4Gi")), count=2),
      counters_slice("slice-2", **{"counter-set-1": {"memory": "8Gi", "unused": "1Gi"}})],
     [[("req-0", POOL, "device-2"), ("req-0", POOL, "device-3")]], None),
]


@pytest.mark.parametrize(("claims", "slices", "features", "want"),
                         feature_cases(PARTITION_CASES))
def test_partitionable_devices(claims, slices, features, want):
    assert devices_of(allocate(claims, slices, features=features)) == want


def test_partitionable_devices_multiple_pools_count_what_allocated_devices_consume():
    """partitionable-devices-multiple-pools: pool-1's counters are used up by its allocated
    device-2 and device-3, so both requests come from pool-2."""
    def pool_slices(pool, second, third):
        return [resource_slice(f"{pool}-devices", "node-1", pool, DRIVER,
                               dev("device-1", consumes={"counter-set-1": {"cpus": "6",
                                                                           "memory": "4Gi"}}),
                               dev("device-2", consumes={"counter-set-1": second}),
                               dev("device-3", consumes={"counter-set-1": third}), count=2),
                counters_slice(f"{pool}-counters", pool=pool,
                               **{"counter-set-1": {"cpus": "8", "memory": "18Gi"}})]
    slices = (pool_slices("pool-1", {"cpus": "4", "memory": "6Gi"},
                          {"cpus": "4", "memory": "4Gi"})
              + pool_slices("pool-2", {"cpus": "1", "memory": "7Gi"},
                            {"cpus": "1", "memory": "7Gi"}))
    used = {(DRIVER, "pool-1", "device-2"), (DRIVER, "pool-1", "device-3"),
            (DRIVER, "pool-2", "device-1")}
    results = allocate([claim("claim-0", request("req-0", CLASS), request("req-1", CLASS))],
                       slices, allocated=used)
    assert devices_of(results) == [[("req-0", "pool-2", "device-2"),
                                    ("req-1", "pool-2", "device-3")]]


def test_partitionable_devices_no_capacity_available():
    slices = [devices_slice("slice-1", dev("device-1", consumes=memory("counter-set-1", "4Gi")),
                            dev("device-2", consumes=memory("counter-set-1", "16Gi")), count=2),
              counters_slice("slice-2", **{"counter-set-1": {"memory": "18Gi"}})]
    assert allocate([claim("claim-0")], slices, allocated={(DRIVER, POOL, "device-2")}) is None


def test_a_pool_is_complete_only_with_its_counter_slice():
    """The counter slice counts toward resourceSliceCount: without it the pool is
    incomplete and asking for all devices is an error."""
    slices = [devices_slice("slice-1", dev("device-1", consumes=memory("counter-set-1", "4Gi")),
                            count=2)]
    with pytest.raises(AllocationError, match="resource pool driver-a/pool-1 is currently "
                                              "being updated"):
        allocate([claim("claim-0", request("req-0", CLASS, mode="All"))], slices)


def shared(name, capacity, **extra):
    return dev(name, capacity=capacity, allowMultipleAllocations=True, **extra)


def policy_range(value="8"):
    """withCapacityRequestPolicyRange: default 2, range min 2, step 2, max 4."""
    return {"memory": {"value": value, "requestPolicy": {
        "default": "2", "validRange": {"min": "2", "step": "2", "max": "4"}}}}


def asking(amount, name="req-0", count=1):
    req = request(name, CLASS, count)
    if amount is not None:
        req["exactly"]["capacity"] = {"requests": {"memory": amount}}
    return req


def consumed(results):
    return [[(r["device"], r.get("consumedCapacity")) for r in a["devices"]["results"]]
            for a in results] if results is not None else None


@pytest.mark.parametrize(("claims", "allocated", "want"), [
    pytest.param([claim("claim-0", asking("1"))], {}, [[("device-1", {"memory": "2"})]],
                 id="a request below the range's minimum consumes the minimum"),
    pytest.param([claim("claim-0", asking("3"))], {}, [[("device-1", {"memory": "4"})]],
                 id="a request is rounded up to the next step"),
    pytest.param([claim("claim-0", asking(None))], {}, [[("device-1", {"memory": "2"})]],
                 id="no request consumes the policy's default"),
    pytest.param([claim("claim-0", asking("5"))], {}, None,
                 id="a request above the range's maximum fits no device"),
    pytest.param([claim("claim-0", asking("4")), claim("claim-1", asking("4"))], {},
                 [[("device-1", {"memory": "4"})], [("device-1", {"memory": "4"})]],
                 id="two claims share one device while its capacity lasts"),
    pytest.param([claim("claim-0", asking("4")), claim("claim-1", asking("2"))],
                 {"memory": 4}, None,
                 id="capacity already consumed by allocated claims counts"),
    # The next device of a request is searched after the previous one (startLocation).
    pytest.param([claim("claim-0", asking("2", count=2))], {}, None,
                 id="one request does not take the same shared device twice"),
])
def test_consumable_capacity(claims, allocated, want):
    slices = [devices_slice("slice-1", shared("device-1", policy_range()))]
    state = AllocatedState()
    if allocated:
        state.shared.add((DRIVER, POOL, "device-1"))
        state.capacity[(DRIVER, POOL, "device-1")] = {
            f"{DRIVER}/memory": Decimal(allocated["memory"])}
    assert consumed(allocate(claims, slices, allocated=state)) == want


def test_valid_values_round_up_to_the_next_listed_value():
    cap = {"bandwidth": {"value": "10G", "requestPolicy": {"validValues": ["1G", "5G", "10G"]}}}
    req = request("req-0", CLASS)
    req["exactly"]["capacity"] = {"requests": {"bandwidth": "2G"}}
    results = allocate([claim("claim-0", req)],
                       [devices_slice("slice-1", shared("nic-1", cap))])
    assert consumed(results) == [[("nic-1", {"bandwidth": "5000000000"})]]


def test_a_shared_result_has_a_share_id_and_is_counted_as_shared_capacity():
    slices = [devices_slice("slice-1", shared("device-1", policy_range()))]
    (result,) = allocate([claim("claim-0", asking("2"))], slices)
    entry = result["devices"]["results"][0]
    assert len(entry["shareID"]) == 36
    state = allocated_state([{"status": {"allocation": result}}])
    assert state.devices == set() and state.shared == {(DRIVER, POOL, "device-1")}
    assert state.capacity == {(DRIVER, POOL, "device-1"): {f"{DRIVER}/memory": 2}}


def test_a_capacity_request_needs_the_feature():
    with pytest.raises(AllocationError, match="claim default/claim-0, request req-0: has "
                                              "capacity requests, but the "
                                              "DRAConsumableCapacity feature is disabled"):
        allocate([claim("claim-0", asking("2"))],
                 [devices_slice("slice-1", shared("device-1", policy_range()))],
                 features=Features(consumable_capacity=False))


def test_a_request_larger_than_an_exclusive_device_does_not_fit():
    slices = [devices_slice("slice-1", dev("device-1", capacity={"memory": {"value": "4"}}),
                            dev("device-2", capacity={"memory": {"value": "8"}}))]
    assert consumed(allocate([claim("claim-0", asking("6"))], slices)) == [[("device-2", None)]]


def test_distinct_attribute_takes_devices_with_different_values():
    slices = [devices_slice("slice-1",
                            dev("device-1", attributes={"numa": {"int": 0}}),
                            dev("device-2", attributes={"numa": {"int": 0}}),
                            dev("device-3", attributes={"numa": {"int": 1}}))]
    c = claim("claim-0", request("req-0", CLASS, count=2))
    c["spec"]["devices"]["constraints"] = [{"distinctAttribute": f"{DRIVER}/numa"}]
    assert devices_of(allocate([c], slices)) == [[("req-0", POOL, "device-1"),
                                                  ("req-0", POOL, "device-3")]]


BOUND = {"bindingConditions": ["attached"], "bindingFailureConditions": ["failed"],
         "bindsToNode": True}


def test_binding_conditions_are_copied_into_the_result():
    (result,) = allocate([claim("claim-0")], [devices_slice("slice-1", dev("device-1", **BOUND))])
    entry = result["devices"]["results"][0]
    assert (entry["bindingConditions"], entry["bindingFailureConditions"]) == (["attached"],
                                                                               ["failed"])
    assert result["nodeSelector"]["nodeSelectorTerms"][0]["matchFields"][0]["values"] == \
        ["node-1"]


def test_a_device_with_binding_conditions_is_not_allocatable_without_the_feature():
    slices = [devices_slice("slice-1", dev("device-1", **BOUND), dev("device-2"))]
    results = allocate([claim("claim-0")], slices,
                       features=Features(binding_conditions=False))
    assert devices_of(results) == [[("req-0", POOL, "device-2")]]


# --- allocator_testing.go's consumable-capacity-* cases (structured, v1.37), Go's names.
# capacity0 is "memory"; withCapacityRequestPolicyRange is policy_range (default 2, min 2,
# step 2, max 4); classWithAllowMultipleAllocations(classA, driverA, x) selects devices whose
# allowMultipleAllocations is x. Results: per claim, (request, device, consumedCapacity).
MULTI = 'device.allowMultipleAllocations == true'
DEDICATED = 'device.allowMultipleAllocations == false'


def plain(value):
    return {"memory": {"value": value}}


def valid_values(default, value, *more):
    return {"memory": {"value": value, "requestPolicy": {
        "default": default, "validValues": [default, *more]}}}


def all_of(name="req-0", amount=None):
    req = request(name, CLASS, mode="All")
    if amount is not None:
        req["exactly"]["capacity"] = {"requests": {"memory": amount}}
    return req


def subrequests(name, *subs):
    out = first_available(name, *[request(n, CLASS) for n, _ in subs])
    for sub, (_, amount) in zip(out["firstAvailable"], subs):
        if amount is not None:
            sub["capacity"] = {"requests": {"memory": amount}}
    return out


def capacity_results(results):
    if results is None:
        return None
    return [[(r["request"], r["device"], r.get("consumedCapacity"))
             for r in a["devices"]["results"]] for a in results]


def allocate_with_class(claims, devices, selector=None, used=None):
    classes = {CLASS: device_class(CLASS, f'device.driver == "{DRIVER}"',
                                   *([selector] if selector else []))}
    state = AllocatedState()
    for device_name, amount in (used or {}).items():
        state.shared.add((DRIVER, POOL, device_name))
        state.capacity[(DRIVER, POOL, device_name)] = {f"{DRIVER}/memory": Decimal(amount)}
    alloc = Allocator(classes=classes, slices=[devices_slice("slice-1", *devices)],
                      allocated=state, features=Features())
    return capacity_results(alloc.allocate(node("node-1"), list(claims)))


M = {"memory": "1"}
CONSUMABLE_CASES = [
    ("consumable-capacity-multi-allocatable-device-with-missing-capacity-request",
     [claim("claim-0", asking("1"))], [shared("device-1", {"capacity-1": {"value": "1"}})],
     None, None, None),
    ("consumable-capacity-multi-allocatable-device-allocation-mode-all-with-missing-capacity-"
     "request", [claim("claim-0", all_of(amount="1"))],
     [shared("device-1", {"capacity-1": {"value": "1"}})], MULTI, None, None),
    ("consumable-capacity-multi-allocatable-device-without-capacity-without-capacity-request",
     [claim("claim-0", asking(None)), claim("claim-1", asking(None))],
     [dev("device-1", allowMultipleAllocations=True)], MULTI, None,
     [[("req-0", "device-1", None)], [("req-0", "device-1", None)]]),
    ("consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request",
     [claim("claim-0", asking(None)), claim("claim-1", asking(None))],
     [shared("device-1", plain("1")), shared("device-2", plain("1"))], MULTI, None,
     [[("req-0", "device-1", M)], [("req-0", "device-2", M)]]),
    ("consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request-"
     "block", [claim("claim-0", asking(None)), claim("claim-1", asking(None))],
     [shared("device-1", plain("2"))], MULTI, None, None),
    ("consumable-capacity-multi-allocatable-device-without-policy-with-capacity-request",
     [claim("claim-0", asking("1")), claim("claim-1", asking("1"))],
     [shared("device-1", plain("2"))], MULTI, None,
     [[("req-0", "device-1", M)], [("req-0", "device-1", M)]]),
    ("consumable-capacity-multi-allocatable-device-with-policy-without-capacity-request",
     [claim("claim-0", asking(None)), claim("claim-1", asking(None))],
     [shared("device-1", policy_range("4"))], MULTI, None,
     [[("req-0", "device-1", {"memory": "2"})], [("req-0", "device-1", {"memory": "2"})]]),
    ("consumable-capacity-multi-allocatable-device-with-zero-request-policy",
     [claim("claim-0", asking(None)), claim("claim-1", asking(None))],
     [shared("device-1", valid_values("0", "1"))], MULTI, None,
     [[("req-0", "device-1", {"memory": "0"})], [("req-0", "device-1", {"memory": "0"})]]),
    ("consumable-capacity-multi-allocatable-device-violates-zero-request-policy",
     [claim("claim-0", asking("1"))], [shared("device-1", valid_values("0", "1"))], MULTI,
     None, None),
    ("consumable-capacity-multi-allocatable-device-with-range-policy-with-capacity-request",
     [claim("claim-0", asking("1")), claim("claim-1", asking("1"))],
     [shared("device-1", policy_range("4"))], MULTI, None,
     [[("req-0", "device-1", {"memory": "2"})], [("req-0", "device-1", {"memory": "2"})]]),
    ("consumable-capacity-multi-allocatable-device-with-range-policy-step",
     [claim("claim-0", asking("3"))], [shared("device-1", policy_range("4"))], MULTI, None,
     [[("req-0", "device-1", {"memory": "4"})]]),
    ("consumable-capacity-multi-allocatable-device-with-valid-values-policy",
     [claim("claim-0", asking("2"))], [shared("device-1", valid_values("1", "4", "2"))],
     MULTI, None, [[("req-0", "device-1", {"memory": "2"})]]),
    ("consumable-capacity-multi-allocatable-device-with-valid-values-policy-round-up",
     [claim("claim-0", asking("2"))], [shared("device-1", valid_values("1", "3", "3"))],
     MULTI, None, [[("req-0", "device-1", {"memory": "3"})]]),
    ("consumable-capacity-multi-allocatable-device-with-exceeded-consumable-capacity-request",
     [claim("claim-0", asking("1")), claim("claim-1", asking("2"))],
     [shared("device-1", policy_range("2"))], MULTI, None, None),
    ("consumable-capacity-multi-allocatable-device-with-request-over-max-sharing-policy",
     [claim("claim-0", asking("6"))], [shared("device-1", policy_range("10"))], MULTI, None,
     None),
    ("consumable-capacity-multi-allocatable-device-with-allocated-capacity-use-remaining",
     [claim("claim-0", asking("2"))], [shared("device-1", policy_range("4"))], MULTI,
     {"device-1": "2"}, [[("req-0", "device-1", {"memory": "2"})]]),
    ("consumable-capacity-multi-allocatable-device-with-allocated-capacity-next-device",
     [claim("claim-0", asking("2"))],
     [shared("device-1", policy_range("2")), shared("device-2", policy_range("2"))], MULTI,
     {"device-1": "2"}, [[("req-0", "device-2", {"memory": "2"})]]),
    ("consumable-capacity-multi-allocatable-device-with-subrequest",
     [claim("claim-0", subrequests("req-0", ("subReq-0", "4"), ("subReq-1", "2"),
                                   ("subReq-1", None)))],
     [shared("device-1", policy_range("2"))], MULTI, None,
     [[("req-0/subReq-1", "device-1", {"memory": "2"})]]),
    ("consumable-capacity-multi-allocatable-device-with-no-available-consumable-capacity",
     [claim("claim-0", asking("2"))], [shared("device-1", policy_range("2"))], MULTI,
     {"device-1": "2"}, None),
    ("consumable-capacity-multi-allocatable-device-allocation-mode-all-filter-out-no-capacity",
     [claim("claim-0", all_of(amount="2"))],
     [shared("device-1", plain("2")), dev("device-2", allowMultipleAllocations=True)], MULTI,
     None, [[("req-0", "device-1", {"memory": "2"})]]),
    ("consumable-capacity-multi-allocatable-device-allocation-mode-all-filter-out-"
     "insufficient-capacity", [claim("claim-0", all_of(amount="2"))],
     [shared("device-1", plain("2")), shared("device-2", plain("1"))], MULTI, None,
     [[("req-0", "device-1", {"memory": "2"})]]),
    ("consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-sufficient",
     [claim("claim-0", asking("1"), all_of("req-1", "1"))],
     [shared("device-1", plain("2")), shared("device-2", plain("1"))], None, None,
     [[("req-0", "device-1", M), ("req-1", "device-1", M), ("req-1", "device-2", M)]]),
    ("consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-sufficient",
     [claim("claim-0", all_of(amount="1"))],
     [shared("device-1", plain("2")), shared("device-2", plain("1"))], None,
     {"device-1": "1"}, [[("req-0", "device-1", M), ("req-0", "device-2", M)]]),
    ("consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-insufficient",
     [claim("claim-0", asking("1"), all_of("req-1", "1"))],
     [shared("device-1", plain("1")), shared("device-2", plain("1"))], None, None, None),
    ("consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-insufficient",
     [claim("claim-0", all_of(amount="1"))],
     [shared("device-1", plain("1")), shared("device-2", plain("1"))], None,
     {"device-1": "1"}, [[("req-0", "device-2", M)]]),
    ("consumable-capacity-dedicated-device-with-consumable-capacity-request",
     [claim("claim-0", asking("1"))], [dev("device-1", capacity=plain("1"))], DEDICATED,
     None, [[("req-0", "device-1", None)]]),
]


@pytest.mark.parametrize("claims, devices, selector, used, want",
                         [pytest.param(*case[1:], id=case[0]) for case in CONSUMABLE_CASES])
def test_consumable_capacity_cases(claims, devices, selector, used, want):
    assert allocate_with_class(claims, devices, selector, used) == want
