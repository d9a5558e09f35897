"""More of allocatortesting/allocator_testing.go's TestAllocator table (k8s.io/dynamic-resource-
allocation/structured/internal/allocatortesting, newest stored source, the v1.37 line), case by
case under Go's names, with Go's builders (gotable.py). The earlier groups live in
test_allocator.py and test_allocator_features.py (consumable-capacity-* up to
"consumable-capacity-dedicated-device-with-consumable-capacity-request").

Cases the engine cannot run are listed in SKIPPED with the reason, and reported as skipped.
"""
from __future__ import annotations

import pytest

from .gotable import (
    CAPACITY_0,
    CAPACITY_1,
    CLASS_A,
    DRIVER_A,
    NODE_1,
    PER_DEVICE,
    POOL_1,
    SHARED,
    Case,
    all_devices,
    cel,
    claim,
    consumes,
    counter_slice,
    device,
    distinct,
    exact,
    features,
    go_class,
    go_slice,
    label_selector,
    match,
    multi,
    opaque,
    policy_range,
    prioritized,
    run_case,
    sub,
    with_binding_conditions,
    with_config,
    with_node,
    with_taints,
)

REQ0, REQ1, REQ2, REQ3 = "req-0", "req-1", "req-2", "req-3"
STRING_ATTR, BOOL_ATTR = f"{DRIVER_A}/stringAttribute", f"{DRIVER_A}/boolAttribute"
VERSION_ATTR, INT_ATTR = f"{DRIVER_A}/driverVersion", f"{DRIVER_A}/numa"
CC = features("ConsumableCapacity")
CLASS = go_class(CLASS_A, DRIVER_A)
MULTI_CLASS, DEDICATED_CLASS = go_class(CLASS_A, DRIVER_A, True), go_class(CLASS_A, DRIVER_A, False)


def string_attr(value: str) -> dict:
    return {"stringAttribute": {"string": value}}


def at_least(name: str, amount: str) -> dict:
    return cel(f'device.capacity["{DRIVER_A}"]["{name}"].compareTo(quantity("{amount}")) >= 0')


def one_slice(*devices, count=1, name="slice-1"):
    return go_slice(name, NODE_1, POOL_1, DRIVER_A, *devices, count=count)


CONSUMABLE_CAPACITY = {
    "consumable-capacity-with-multi-allocatable-device-backtrack": Case(
        CC,
        [claim("claim-0", exact(REQ0, CLASS_A, capacity="2"), exact(REQ1, CLASS_A, capacity="2"),
               constraints=[match(STRING_ATTR)]),
         claim("claim-1", exact(REQ0, CLASS_A, capacity="2"))],
        [CLASS],
        [one_slice(policy_range(multi(device("device-2", None, string_attr(
            "stringAttributeValue1"))), {CAPACITY_0: "2"}),
            policy_range(multi(device("device-1", None, string_attr("stringAttributeValue2"))),
                         {CAPACITY_0: "4"}))],
        want=[[(REQ0, POOL_1, "device-1", {CAPACITY_0: "2"}),
               (REQ1, POOL_1, "device-1", {CAPACITY_0: "2"})],
              [(REQ0, POOL_1, "device-2", {CAPACITY_0: "2"})]]),
    "allow-multiple-allocations-exclude-multi-allocatable-device-by-class-selector": Case(
        CC, [claim("claim-0", exact(REQ0, CLASS_A, capacity="1"))], [DEDICATED_CLASS],
        [one_slice(multi(device("device-1", {CAPACITY_0: "1"})))]),
    "allow-multiple-allocations-not-allocate-multi-allocatable-device-which-already-dedicated":
        Case(CC, [claim("claim-0", exact(REQ0, CLASS_A, capacity="1"))], [MULTI_CLASS],
             [one_slice(policy_range(multi(device("device-1")), {CAPACITY_0: "2"}))],
             allocated={"device-1"}),
    "allow-multiple-allocations-not-allocate-dedicated-device-which-change-from-multi-"
    "allocatable": Case(
        CC, [claim("claim-0", exact(REQ0, CLASS_A, capacity="1"))], [MULTI_CLASS],
        [one_slice(policy_range(device("device-1"), {CAPACITY_0: "2"}))],
        capacity={"device-1": {CAPACITY_0: "1"}}),
    "allow-multiple-allocations-with-partitionable-device": Case(
        features("PrioritizedList", "PartitionableDevices", "ConsumableCapacity"),
        [claim("claim-0", exact(REQ0, CLASS_A),
               prioritized(REQ1, sub("subReq-0", CLASS_A, 1, at_least("memory", "6Gi")),
                           sub("subReq-1", CLASS_A, 1, at_least("memory", "4Gi"))))],
        [MULTI_CLASS],
        [one_slice(*(multi(consumes(device(name), ("counter-set-1", {"memory": amount}),
                                    from_counters=True))
                     for name, amount in (("device-1", "4Gi"), ("device-2", "6Gi"),
                                          ("device-3", "4Gi"))), count=2),
         counter_slice("slice-2", NODE_1, POOL_1, DRIVER_A, ("counter-set-1", {"memory": "8Gi"}),
                       count=2)],
        want=[[(REQ0, POOL_1, "device-1", {"memory": "4Gi"}),
               ("req-1/subReq-1", POOL_1, "device-3", {"memory": "4Gi"})]]),
    "consumable-capacity-with-partitionable-device-multiple-capacity-pools": Case(
        features("PrioritizedList", "PartitionableDevices", "ConsumableCapacity"),
        [claim("claim-0", exact(REQ0, CLASS_A, capacity="1"), exact(REQ2, CLASS_A, capacity="2"),
               prioritized(REQ1, sub("subReq-0", CLASS_A, 1, at_least(CAPACITY_0, "4"),
                                     capacity="1"),
                           sub("subReq-1", CLASS_A, 1, at_least(CAPACITY_0, "2"),
                               capacity="1")))],
        [CLASS],
        [one_slice(*(policy_range(multi(consumes(device(name), ("counter-set-1",
                                                                {CAPACITY_0: first}),
                                                 ("counter-set-2", {CAPACITY_1: "4"}),
                                                 from_counters=True)), {CAPACITY_1: "4"})
                     for name, first in (("device-1", "2"), ("device-2", "4"),
                                         ("device-3", "2"))), count=2),
         counter_slice("slice-2", NODE_1, POOL_1, DRIVER_A, ("counter-set-1", {CAPACITY_0: "4"}),
                       ("counter-set-2", {CAPACITY_1: "8"}), count=2)],
        want=[[(REQ0, POOL_1, "device-1", {CAPACITY_0: "1", CAPACITY_1: "2"}),
               (REQ2, POOL_1, "device-3", {CAPACITY_0: "2", CAPACITY_1: "2"}),
               ("req-1/subReq-1", POOL_1, "device-1", {CAPACITY_0: "1", CAPACITY_1: "2"})]]),
    "with-distinct-constraints": Case(
        CC,
        [claim("claim-0", *(exact(r, CLASS_A) for r in (REQ0, REQ1, REQ2, REQ3)),
               constraints=[distinct(BOOL_ATTR, REQ0, REQ1),
                            distinct(VERSION_ATTR, REQ0, REQ1, REQ2),
                            distinct(INT_ATTR, REQ0, REQ1, REQ2, REQ3)])],
        [CLASS],
        [one_slice(*(multi(device(f"device-{i}", None, {
            "driverVersion": {"version": version}, "numa": {"int": numa},
            "boolAttribute": {"bool": flag}}))
            for i, version, numa, flag in ((1, "1.0.0", 0, True), (2, "1.0.1", 1, False),
                                           (3, "1.0.2", 2, True), (4, "1.0.0", 3, True))))],
        want=[[(REQ0, POOL_1, "device-1", SHARED), (REQ1, POOL_1, "device-2", SHARED),
               (REQ2, POOL_1, "device-3", SHARED), (REQ3, POOL_1, "device-4", SHARED)]]),
    "with-distinct-constraints-attribute-not-set": Case(
        CC, [claim("claim-0", exact(REQ0, CLASS_A), constraints=[distinct(BOOL_ATTR, REQ0)])],
        [CLASS], [one_slice(multi(device("device-1")))]),
    "with-distinct-constraints-unknown-type-attribute": Case(
        CC, [claim("claim-0", exact(REQ0, CLASS_A), constraints=[distinct(BOOL_ATTR, REQ0)])],
        [CLASS], [one_slice(multi(device("device-1", None, {"boolAttribute": {}})))],
        error="unsupported attribute value"),
    "with-distinct-constraints-with-subrequests": Case(
        features("ConsumableCapacity", "PrioritizedList"),
        [claim("claim-0", *(prioritized(r, sub("subReq-0", CLASS_A, 1, cel(
            f'device.attributes["{DRIVER_A}"].boolAttribute')), sub("subReq-1", CLASS_A))
            for r in (REQ0, REQ1, REQ2)), constraints=[distinct(BOOL_ATTR, REQ0, REQ1)])],
        [CLASS],
        [one_slice(multi(device("device-1", None, {"boolAttribute": {"bool": True}})),
                   multi(device("device-2", None, {"boolAttribute": {"bool": False}})))],
        want=[[("req-0/subReq-0", POOL_1, "device-1", SHARED),
               ("req-1/subReq-1", POOL_1, "device-2", SHARED),
               ("req-2/subReq-0", POOL_1, "device-1", SHARED)]]),
    "distinct-constraint-one-multi-allocatable-device-with-distinct-constraint": Case(
        CC, [claim("claim-0", exact(REQ0, CLASS_A, capacity="1"),
                   exact(REQ1, CLASS_A, capacity="1"), constraints=[distinct(STRING_ATTR)])],
        [MULTI_CLASS],
        [one_slice(policy_range(multi(device("device-1", None, string_attr(
            "stringAttributeValue"))), {CAPACITY_0: "2"}))]),
    "distinct-constraint-two-multi-allocatable-devices-with-distinct-constraint": Case(
        CC, [claim("claim-0", exact(REQ0, CLASS_A, capacity="2"),
                   exact(REQ1, CLASS_A, capacity="2"), constraints=[distinct(STRING_ATTR)])],
        [MULTI_CLASS],
        [one_slice(policy_range(multi(device("device-1", None, string_attr(
            "stringAttributeValue1"))), {CAPACITY_0: "4"}), count=2),
         one_slice(policy_range(multi(device("device-2", None, string_attr(
             "stringAttributeValue2"))), {CAPACITY_0: "4"}), count=2)],
        want=[[(REQ0, POOL_1, "device-1", {CAPACITY_0: "2"}),
               (REQ1, POOL_1, "device-2", {CAPACITY_0: "2"})]]),
}


@pytest.mark.parametrize("case", [pytest.param(c, id=n) for n, c in CONSUMABLE_CAPACITY.items()])
def test_consumable_capacity_after_dedicated_devices(case):
    run_case(case)


# --- admin access and "all devices" with a prioritized list. Go's claims have no namespace
# (klog prints "claim-0"); the engine's always have one, so its messages say "default/claim-0".
ADMIN = features("AdminAccess")
PL = features("PrioritizedList")
TWO_DEVICES = one_slice(device("device-1"), device("device-2"))
DRIVER_B_SLICE = go_slice("slice-2", NODE_1, "pool-2", "driver-b", device("device-1"))
CLASSES_AB = [CLASS, go_class("class-b", "driver-b")]


def all_or_class_b():
    """req-0: firstAvailable [subReq-0 (class-a, All), subReq-1 (class-b, 1)]."""
    return claim("claim-0", prioritized(REQ0, sub("subReq-0", CLASS_A, mode="All"),
                                        sub("subReq-1", "class-b")))


ADMIN_ACCESS = {
    "all-devices-some-allocated-admin-access": Case(
        ADMIN, [claim("claim-0", all_devices(REQ0, CLASS_A, admin=True))], [CLASS],
        [TWO_DEVICES], allocated={"device-1"},
        want=[[(REQ0, POOL_1, "device-1", "admin"), (REQ0, POOL_1, "device-2", "admin")]]),
    # The second request asks for all devices, but the first takes one for the same claim.
    "all-devices-some-allocating-admin-access": Case(
        ADMIN, [claim("claim-0", exact(REQ0, CLASS_A, admin=True),
                      all_devices(REQ1, CLASS_A, admin=True))], [CLASS], [TWO_DEVICES]),
    "count-devices-some-allocated-admin-access": Case(
        ADMIN, [claim("claim-0", exact(REQ0, CLASS_A, 2, admin=True))], [CLASS], [TWO_DEVICES],
        allocated={"device-1"},
        want=[[(REQ0, POOL_1, "device-1", "admin"), (REQ0, POOL_1, "device-2", "admin")]]),
    "separate-claims-share-device-admin-access": Case(
        ADMIN, [claim("claim-0", exact(REQ0, CLASS_A, admin=True)),
                claim("claim-1", exact(REQ0, CLASS_A, admin=True))], [CLASS], [TWO_DEVICES],
        want=[[(REQ0, POOL_1, "device-1", "admin")], [(REQ0, POOL_1, "device-1", "admin")]]),
    "admin-access-claims-device-allocating-for-non-admin-access": Case(
        ADMIN, [claim("claim-0", exact(REQ0, CLASS_A)),
                claim("claim-1", exact(REQ0, CLASS_A, admin=True))], [CLASS], [TWO_DEVICES],
        want=[[(REQ0, POOL_1, "device-1")], [(REQ0, POOL_1, "device-1", "admin")]]),
    "admin-access-disabled": Case(
        features(), [claim("claim-0", exact(REQ0, CLASS_A, admin=True))], [CLASS],
        [one_slice(device("device-1"))],
        error="claim default/claim-0, request req-0: admin access is requested, but the "
              "feature is disabled"),
    "admin-access-enabled": Case(
        ADMIN, [claim("claim-0", exact(REQ0, CLASS_A, admin=True))], [CLASS],
        [one_slice(device("device-1"))], allocated={"device-1", "device-2"},
        want=[[(REQ0, POOL_1, "device-1", "admin")]]),
    "all-devices-slice-without-devices-prioritized-list": Case(
        PL, [all_or_class_b()], CLASSES_AB, [one_slice(), DRIVER_B_SLICE],
        want=[[("req-0/subReq-1", "pool-2", "device-1", "driver-b")]]),
    "all-devices-no-slices-prioritized-list": Case(
        PL, [all_or_class_b()], CLASSES_AB, [DRIVER_B_SLICE],
        want=[[("req-0/subReq-1", "pool-2", "device-1", "driver-b")]]),
    "all-devices-some-allocated-prioritized-list": Case(
        PL, [all_or_class_b()], CLASSES_AB, [TWO_DEVICES, DRIVER_B_SLICE],
        allocated={"device-1"}, want=[[("req-0/subReq-1", "pool-2", "device-1", "driver-b")]]),
}


@pytest.mark.parametrize("case", [pytest.param(c, id=n) for n, c in ADMIN_ACCESS.items()])
def test_admin_access_and_all_devices(case):
    run_case(case)


# --- prioritized-list-* (firstAvailable), Go's claims and slices.
CLASS_B = go_class("class-b", "driver-b")


def at_least_memory(amount: str) -> dict:
    return at_least("memory", amount)


def memory_device(name, amount, version=None):
    return device(name, {"memory": amount},
                  {"driverVersion": {"version": version}} if version else None)


def pool_slice(name, pool, driver, *devices):
    return go_slice(name, NODE_1, pool, driver, *devices)


VERSION_MATCH = VERSION_ATTR
PRIORITIZED_LIST = {
    "prioritized-list-first-unavailable": Case(
        PL, [claim("claim-0", prioritized(REQ0, sub("subReq-0", "class-b"),
                                          sub("subReq-1", CLASS_A)))],
        [CLASS, CLASS_B], [one_slice(device("device-1"))],
        want=[[("req-0/subReq-1", POOL_1, "device-1")]]),
    "prioritized-list-non-available": Case(
        PL, [claim("claim-0", prioritized(REQ0, sub("subReq-0", "class-b", 2),
                                          sub("subReq-1", CLASS_A, 2)))],
        [CLASS, CLASS_B], [one_slice(device("device-1")),
                           pool_slice("slice-2", "pool-2", "driver-b", device("device-1"))]),
    "prioritized-list-device-config": Case(
        PL, [claim("claim-0", prioritized(REQ0, sub("subReq-0", CLASS_A),
                                          sub("subReq-1", "class-b", 2)),
                   config=[{"requests": ["req-0/subReq-0"], **opaque(DRIVER_A, "foo")},
                           {"requests": ["req-0/subReq-1"], **opaque("driver-b", "bar")}])],
        [CLASS, CLASS_B],
        [pool_slice("slice-1", POOL_1, "driver-b", device("device-1", None, {}),
                    device("device-2", None, {}))],
        want=[[("req-0/subReq-1", POOL_1, "device-1", "driver-b"),
               ("req-0/subReq-1", POOL_1, "device-2", "driver-b")]],
        config=[[{"source": "FromClaim", "requests": ["req-0/subReq-1"],
                  **opaque("driver-b", "bar")}]]),
    "prioritized-list-class-config": Case(
        PL, [claim("claim-0", prioritized(REQ0, sub("subReq-0", CLASS_A, 2),
                                          sub("subReq-1", "class-b", 2)))],
        [with_config(CLASS, DRIVER_A, "foo"), with_config(CLASS_B, "driver-b", "bar")],
        [pool_slice("slice-1", POOL_1, "driver-b", device("device-1"), device("device-2")),
         pool_slice("slice-2", "pool-2", DRIVER_A, device("device-3"))],
        want=[[("req-0/subReq-1", POOL_1, "device-1", "driver-b"),
               ("req-0/subReq-1", POOL_1, "device-2", "driver-b")]],
        config=[[{"source": "FromClass", "requests": ["req-0/subReq-1"],
                  **opaque("driver-b", "bar")}]]),
    "prioritized-list-subrequests-with-expressions": Case(
        PL, [claim("claim-0", exact(REQ0, CLASS_A, 1, at_least_memory("1Gi")),
                   prioritized(REQ1, sub("subReq-0", CLASS_A, 1, at_least_memory("4Gi")),
                               sub("subReq-1", CLASS_A, 2, at_least_memory("2Gi"))))],
        [CLASS], [one_slice(memory_device("device-1", "2Gi"), memory_device("device-2", "2Gi"),
                            memory_device("device-3", "1Gi"))],
        want=[[(REQ0, POOL_1, "device-3"), ("req-1/subReq-1", POOL_1, "device-1"),
               ("req-1/subReq-1", POOL_1, "device-2")]]),
    "prioritized-list-subrequests-with-constraints-ref-parent-request": Case(
        PL, [claim("claim-0", exact(REQ0, CLASS_A, 1, at_least_memory("8Gi")),
                   prioritized(REQ1, sub("subReq-0", CLASS_A, 1, at_least_memory("2Gi")),
                               sub("subReq-1", CLASS_A, 1, at_least_memory("1Gi"))),
                   constraints=[match(VERSION_MATCH, REQ0, REQ1)])],
        [CLASS], [pool_slice("slice-1", POOL_1, DRIVER_A,
                             memory_device("device-1", "8Gi", "1.0.0")),
                  pool_slice("slice-2", "pool-2", DRIVER_A,
                             memory_device("device-2", "2Gi", "2.0.0"),
                             memory_device("device-3", "1Gi", "1.0.0"))],
        want=[[(REQ0, POOL_1, "device-1"), ("req-1/subReq-1", "pool-2", "device-3")]]),
    "prioritized-list-subrequests-with-constraints-ref-sub-request": Case(
        PL, [claim("claim-0", exact(REQ0, CLASS_A, 1, at_least_memory("8Gi")),
                   prioritized(REQ1, sub("subReq-0", CLASS_A, 1, at_least_memory("2Gi")),
                               sub("subReq-1", CLASS_A, 1, at_least_memory("1Gi"))),
                   constraints=[match(VERSION_MATCH, REQ0, "req-1/subReq-0")])],
        [CLASS], [pool_slice("slice-1", POOL_1, DRIVER_A,
                             memory_device("device-1", "8Gi", "1.0.0")),
                  pool_slice("slice-2", "pool-2", DRIVER_A,
                             memory_device("device-2", "2Gi", "2.0.0"))],
        want=[[(REQ0, POOL_1, "device-1"), ("req-1/subReq-1", "pool-2", "device-2")]]),
    "prioritized-list-subrequests-with-allocation-mode-all": Case(
        PL, [claim("claim-0", prioritized(REQ0, sub("subReq-0", CLASS_A, mode="All"),
                                          sub("subReq-1", CLASS_A)))],
        [CLASS], [TWO_DEVICES], allocated={"device-1"},
        want=[[("req-0/subReq-1", POOL_1, "device-2")]]),
    "prioritized-list-allocation-mode-all-multiple-requests": Case(
        PL, [claim("claim-0", exact(REQ0, CLASS_A),
                   prioritized(REQ1, sub("subReq-0", CLASS_A, mode="All"),
                               sub("subReq-1", CLASS_A)))],
        [CLASS], [TWO_DEVICES],
        want=[[(REQ0, POOL_1, "device-1"), ("req-1/subReq-1", POOL_1, "device-2")]]),
    "prioritized-list-disabled": Case(
        features(), [claim("claim-0", prioritized(REQ0, sub("subReq-0", CLASS_A)))], [CLASS],
        [one_slice(device("device-1"))],
        error="claim default/claim-0, request req-0: has subrequests, but the "
              "DRAPrioritizedList feature is disabled"),
    "prioritized-list-multi-request": Case(
        PL, [claim("claim-0", exact(REQ1, CLASS_A, 1, at_least_memory("8Gi")),
                   prioritized(REQ0, sub("subReq-0", CLASS_A, 1, at_least_memory("8Gi")),
                               sub("subReq-1", CLASS_A, 1, at_least_memory("4Gi"))))],
        [CLASS], [pool_slice("slice-1", POOL_1, DRIVER_A, memory_device("device-1", "8Gi")),
                  pool_slice("slice-2", "pool-2", DRIVER_A, memory_device("device-2", "4Gi"))],
        want=[[(REQ1, POOL_1, "device-1"), ("req-0/subReq-1", "pool-2", "device-2")]]),
    "prioritized-list-with-backtracking": Case(
        PL, [claim("claim-0",
                   prioritized(REQ0, sub("subReq-0", CLASS_A, 1, at_least_memory("8Gi")),
                               sub("subReq-1", CLASS_A, 1, at_least_memory("4Gi"))),
                   exact(REQ1, CLASS_A, 1, at_least_memory("8Gi")))],
        [CLASS], [pool_slice("slice-1", POOL_1, DRIVER_A, memory_device("device-1", "8Gi")),
                  pool_slice("slice-2", "pool-2", DRIVER_A, memory_device("device-2", "4Gi"))],
        want=[[("req-0/subReq-1", "pool-2", "device-2"), (REQ1, POOL_1, "device-1")]]),
    "prioritized-list-too-many-in-first-subrequest": Case(
        PL, [claim("claim-0", prioritized(REQ0, sub("subReq-0", "class-b", 500),
                                          sub("subReq-1", CLASS_A)))],
        [CLASS, CLASS_B], [one_slice(device("device-1"))],
        want=[[("req-0/subReq-1", POOL_1, "device-1")]]),
    "with-class-device-config": Case(
        features(), [claim("claim-0", exact(REQ0, CLASS_A))],
        [with_config(CLASS, DRIVER_A, "classAttribute")], [one_slice(device("device-1"))],
        want=[[(REQ0, POOL_1, "device-1")]],
        config=[[{"source": "FromClass", "requests": [REQ0],
                  **opaque(DRIVER_A, "classAttribute")}]]),
    "with-class-device-config-with-multiple-request-and-configs": Case(
        features(), [claim("claim-0", exact(REQ0, CLASS_A), exact(REQ1, CLASS_A),
                           exact(REQ2, "class-b"))],
        [with_config(CLASS, DRIVER_A, "classAttribute-A"),
         with_config(CLASS_B, "driver-b", "classAttribute-B")],
        [one_slice(device("device-0"), device("device-1")),
         pool_slice("slice-2", POOL_1, "driver-b", device("device-1"))],
        want=[[(REQ0, POOL_1, "device-0"), (REQ1, POOL_1, "device-1"),
               (REQ2, POOL_1, "device-1", "driver-b")]],
        config=[[{"source": "FromClass", "requests": [REQ0, REQ1],
                  **opaque(DRIVER_A, "classAttribute-A")},
                 {"source": "FromClass", "requests": [REQ2],
                  **opaque("driver-b", "classAttribute-B")}]]),
    "claim-with-device-config": Case(
        features(), [claim("claim-0", exact(REQ0, CLASS_A),
                           config=[opaque(DRIVER_A, "deviceAttribute")])], [CLASS],
        [one_slice(device("device-1"))], want=[[(REQ0, POOL_1, "device-1")]],
        config=[[{"source": "FromClaim", **opaque(DRIVER_A, "deviceAttribute")}]]),
}


@pytest.mark.parametrize("case", [pytest.param(c, id=n) for n, c in PRIORITIZED_LIST.items()])
def test_prioritized_list_and_config(case):
    run_case(case)


# --- tainted-* not covered by test_allocator_features.py's TAINT_CASES, partitionable-devices-*
# beyond its PARTITION_CASES, and the prioritized-list allocationMode All cases.
TAINT_NO_SCHEDULE = {"key": "taint-key", "value": "taint-value", "effect": "NoSchedule"}
TAINT_NO_EXECUTE = {"key": "taint-key", "value": "taint-value-2", "effect": "NoExecute"}
TOLERATE_NO_SCHEDULE = {"operator": "Exists", "key": "taint-key", "effect": "NoSchedule"}
TOLERATE_NO_EXECUTE = {"operator": "Equal", "key": "taint-key", "value": "taint-value-2",
                       "effect": "NoExecute"}
TAINTED_TWO = one_slice(with_taints(device("device-1"), TAINT_NO_SCHEDULE),
                        with_taints(device("device-2"), TAINT_NO_EXECUTE))
CS1, CS2 = "counter-set-1", "counter-set-2"
PD = features("PartitionableDevices")
PD_PL = features("PartitionableDevices", "PrioritizedList")


def partition(name, *usages, node=None, **kw):
    """device(name, fromCounters, nil).withDeviceCounterConsumption(...)[.withNodeSelection]."""
    out = consumes(device(name, None, kw.get("attributes")), *usages, from_counters=True)
    return with_node(out, node) if node is not None else out


def generation(value: str) -> dict:
    return {"generation": {"string": value}}


def generation_is(value: str) -> dict:
    return cel(f'device.attributes["{DRIVER_A}"].generation == "{value}"')


def v6_or_v5():
    return claim("claim-0", prioritized(REQ0, sub("subReq-0", CLASS_A, 0, generation_is("v6"),
                                                  mode="All"),
                                        sub("subReq-1", CLASS_A, 0, generation_is("v5"),
                                            mode="All")))


MORE_FEATURE_CASES = {
    "tainted-two-devices-prioritized-list-tolerated": Case(
        features("DeviceTaints", "PrioritizedList"),
        [claim("claim-0", prioritized(REQ0, sub("subReq-0", CLASS_A),
                                      sub("subReq-1", CLASS_A, 1,
                                          tolerations=[TOLERATE_NO_EXECUTE])))],
        [CLASS], [TAINTED_TWO],
        want=[[("req-0/subReq-1", POOL_1, "device-2", ("taint-key/NoExecute",))]]),
    "tainted-no-effect": Case(
        features("DeviceTaints"), [claim("claim-0", exact(REQ0, CLASS_A))], [CLASS],
        [one_slice(with_taints(device("device-1"), {**TAINT_NO_SCHEDULE, "effect": "None"}))],
        want=[[(REQ0, POOL_1, "device-1")]]),
    "tainted-admin-access": Case(
        features("DeviceTaints", "AdminAccess"),
        [claim("claim-0", exact(REQ0, CLASS_A, admin=True))], [CLASS],
        [one_slice(with_taints(device("device-1"), TAINT_NO_SCHEDULE))],
        allocated={"device-1", "device-2"}),
    "tainted-admin-access-disabled": Case(
        features("AdminAccess"), [claim("claim-0", exact(REQ0, CLASS_A, admin=True))], [CLASS],
        [one_slice(with_taints(device("device-1"), TAINT_NO_SCHEDULE))],
        allocated={"device-1", "device-2"}, want=[[(REQ0, POOL_1, "device-1", "admin")]]),
    "partitionable-devices-overallocated-capacity-pool": Case(
        PD, [claim("claim-0", exact(REQ0, CLASS_A))], [CLASS],
        [one_slice(partition("device-1", (CS1, {"memory": "4Gi"})),
                   partition("device-2", (CS1, {"memory": "20Gi"}))),
         counter_slice("slice-2", NODE_1, POOL_1, DRIVER_A, (CS1, {"memory": "18Gi"}))],
        allocated={"device-2"}),
    "partitionable-devices-disabled-device-consumes-counters": Case(
        features(), [claim("claim-0", exact(REQ0, CLASS_A))], [CLASS],
        [one_slice(consumes(device("device-1"), (CS1, {"memory": "4Gi"}))),
         counter_slice("slice-2", NODE_1, POOL_1, DRIVER_A, (CS1, {"memory": "18Gi"}))]),
    "partitionable-devices-disabled-other-device-do-not-consume-counters": Case(
        features(), [claim("claim-0", exact(REQ0, CLASS_A))], [CLASS],
        [one_slice(consumes(device("device-1"), (CS1, {"memory": "4Gi"})), device("device-2"),
                   count=2),
         counter_slice("slice-2", NODE_1, POOL_1, DRIVER_A, (CS1, {"memory": "18Gi"}),
                       count=2)],
        want=[[(REQ0, POOL_1, "device-2")]]),
    "partitionable-devices-disabled-per-device-node-selection": Case(
        features(), [claim("claim-0", exact(REQ0, CLASS_A))], [CLASS],
        [go_slice("slice-1", PER_DEVICE, POOL_1, DRIVER_A,
                  with_node(device("device-2"), NODE_1))]),
    "partitionable-devices-per-device-node-selection-nodename": Case(
        PD_PL, [claim("claim-0", prioritized(
            REQ0, sub("subReq-0", CLASS_A, 1, at_least("memory", "6Gi")),
            sub("subReq-1", CLASS_A, 1, at_least("memory", "4Gi"))))], [CLASS],
        [go_slice("slice-1", PER_DEVICE, POOL_1, DRIVER_A,
                  partition("device-1", (CS1, {"memory": "4Gi"}), node=NODE_1),
                  partition("device-2", (CS1, {"memory": "6Gi"}), node="node-2"), count=2),
         counter_slice("slice-2", PER_DEVICE, POOL_1, DRIVER_A, (CS1, {"memory": "18Gi"}),
                       count=2)],
        want=[[("req-0/subReq-1", POOL_1, "device-1")]]),
    "partitionable-devices-per-device-node-selection-node-selector": Case(
        PD_PL, [claim("claim-0", exact(REQ0, CLASS_A))], [CLASS],
        [go_slice("slice-1", PER_DEVICE, POOL_1, DRIVER_A,
                  partition("device-1", (CS1, {"memory": "4Gi"}),
                            node=label_selector("region", "region-1")), count=2),
         counter_slice("slice-2", PER_DEVICE, POOL_1, DRIVER_A, (CS1, {"memory": "18Gi"}),
                       count=2)],
        want=[[(REQ0, POOL_1, "device-1")]], selector=label_selector("region", "region-1")),
    "partitionable-devices-per-device-node-selection-node-selector-multiple-devices": Case(
        PD_PL, [claim("claim-0", exact(REQ0, CLASS_A, 3), exact(REQ1, "class-b", 3))],
        [CLASS, CLASS_B],
        [go_slice("slice-1", PER_DEVICE, POOL_1, DRIVER_A,
                  partition("device-1", (CS1, {"memory": "4Gi"}),
                            node=label_selector("region", "region-1")),
                  partition("device-2", (CS1, {"memory": "4Gi"}), node=NODE_1),
                  partition("device-3", (CS1, {"memory": "4Gi"}), node="all"), count=2),
         counter_slice("slice-2", PER_DEVICE, POOL_1, DRIVER_A, (CS1, {"memory": "18Gi"}),
                       count=2),
         go_slice("slice-3", NODE_1, "pool-2", "driver-b",
                  *(partition(f"device-{i}", (CS2, {"memory": "4Gi"})) for i in (1, 2, 3)),
                  count=2),
         counter_slice("slice-4", NODE_1, "pool-2", "driver-b", (CS2, {"memory": "12Gi"}),
                       count=2)],
        want=[[(REQ0, POOL_1, f"device-{i}") for i in (1, 2, 3)]
              + [(REQ1, "pool-2", f"device-{i}", "driver-b") for i in (1, 2, 3)]]),
    "partitionable-devices-with-attribute-selector": Case(
        PD, [claim("claim-0", exact(REQ0, CLASS_A, 2),
                   exact(REQ1, CLASS_A, 1, cel(f'device.attributes["{DRIVER_A}"].special')))],
        [CLASS],
        [one_slice(*(consumes(device(f"device-{i}", None, {"special": {"bool": i == 1}}),
                              (CS1, {f"cpu{i}": "1"}), (CS2, {"mem": "10Gi"}))
                     for i in (1, 2, 3)), count=2),
         counter_slice("slice-2", NODE_1, POOL_1, DRIVER_A,
                       (CS1, {"cpu1": "1", "cpu2": "1", "cpu3": "1"}), (CS2, {"mem": "30Gi"}),
                       count=2)],
        want=[[(REQ0, POOL_1, "device-2"), (REQ0, POOL_1, "device-3"),
               (REQ1, POOL_1, "device-1")]]),
    "prioritized-list-allocation-mode-all": Case(
        PL, [claim("claim-0", prioritized(REQ0, sub("subReq-0", CLASS_A, mode="All"),
                                          sub("subReq-1", CLASS_A)))],
        [CLASS], [TWO_DEVICES], allocated={"device-2"},
        want=[[("req-0/subReq-1", POOL_1, "device-1")]]),
    "prioritized-list-allocation-mode-all-with-selectors": Case(
        PL, [v6_or_v5()], [CLASS], [one_slice(device("device-1", None, generation("v5")))],
        want=[[("req-0/subReq-1", POOL_1, "device-1")]]),
    "prioritized-list-allocation-mode-all-with-selectors-multiple-pools": Case(
        PL, [v6_or_v5()], [CLASS],
        [one_slice(device("device-1", None, generation("v5"))),
         pool_slice("slice-2", "pool-2", DRIVER_A, device("device-1", None, generation("v5")))],
        want=[[("req-0/subReq-1", POOL_1, "device-1"),
               ("req-0/subReq-1", "pool-2", "device-1")]]),
    "prioritized-list-allocation-mode-all-with-selectors-multiple-pools-across-nodes": Case(
        PL, [v6_or_v5()], [CLASS],
        [one_slice(device("device-1", None, generation("v5"))),
         go_slice("slice-2", "node-2", "pool-2", DRIVER_A,
                  device("device-1", None, generation("v5")),
                  device("device-2", None, generation("v6")))],
        want=[[("req-0/subReq-1", POOL_1, "device-1")]]),
    "prioritized-list-allocation-mode-all-with-selectors-deviceclass-subset": Case(
        PL, [v6_or_v5()],
        [go_class(CLASS_A, DRIVER_A) | {"spec": {"selectors": [cel(
            f'device.driver == "{DRIVER_A}" && device.attributes["{DRIVER_A}"].selected')]}}],
        [one_slice(*(device(f"device-{i}", None, {**generation(g), "selected": {"bool": s}})
                     for i, g, s in ((1, "v6", False), (2, "v5", False), (3, "v5", True))))],
        want=[[("req-0/subReq-1", POOL_1, "device-3")]]),
    "max-number-devices": Case(
        features(), [claim("claim-0", exact(REQ0, CLASS_A, 32))], [CLASS],
        [one_slice(*(device(f"device-{i}") for i in range(32)))],
        want=[[(REQ0, POOL_1, f"device-{i}") for i in range(32)]]),
}


@pytest.mark.parametrize("case", [pytest.param(c, id=n)
                                  for n, c in MORE_FEATURE_CASES.items()])
def test_taints_partitions_and_mode_all(case):
    run_case(case)


# --- pools: counter-set validation, pools spread over nodes, incomplete and invalid pools.
INVALID = "invalid resource pools were encountered"


def pool_of(name, node, pool, count, *devices, generation=1):
    return go_slice(name, node, pool, DRIVER_A, *devices, count=count, generation=generation)


def memory_at_least(amount):
    return at_least("memory", amount)


POOL_CASES = {
    "partitionable-devices-same-counter-set-name-in-different-resource-slices": Case(
        PD, [claim("claim-0", exact(REQ0, CLASS_A))], [CLASS],
        [pool_of("slice-1", NODE_1, POOL_1, 4, device("device-1")),
         counter_slice("slice-2", NODE_1, POOL_1, DRIVER_A, (CS1, None), count=4),
         pool_of("slice-3", NODE_1, POOL_1, 4, device("device-2")),
         counter_slice("slice-4", NODE_1, POOL_1, DRIVER_A, (CS1, None), count=4)],
        error=INVALID),
    "partitionable-devices-device-counter-consumption-references-unknown-counter-set": Case(
        PD, [claim("claim-0", exact(REQ0, CLASS_A))], [CLASS],
        [pool_of("slice-1", NODE_1, POOL_1, 2, consumes(device("device-1"), (CS2, None))),
         counter_slice("slice-2", NODE_1, POOL_1, DRIVER_A, (CS1, None), count=2)],
        error=INVALID),
    "partitionable-devices-device-counter-consumption-references-unknown-counter-in-counter-"
    "set": Case(
        PD, [claim("claim-0", exact(REQ0, CLASS_A))], [CLASS],
        [pool_of("slice-1", NODE_1, POOL_1, 2,
                 consumes(device("device-1"), (CS1, {"memory": "8Gi"}))),
         counter_slice("slice-2", NODE_1, POOL_1, DRIVER_A, (CS1, {"other-memory": "8Gi"}),
                       count=2)],
        error=INVALID),
    "partitionable-devices-device-counter-consumption-references-counter-set-in-other-pool":
        Case(PD, [claim("claim-0", exact(REQ0, CLASS_A))], [CLASS],
             [pool_of("slice-1", NODE_1, POOL_1, 1,
                      consumes(device("device-1"), (CS1, {"memory": "8Gi"}))),
              counter_slice("slice-2", NODE_1, "pool-2", DRIVER_A, (CS1, {"memory": "8Gi"}))],
             error=INVALID),
    "partitionable-devices-devices-on-different-nodes-consume-same-counter-set": Case(
        PD_PL, [claim("claim-0", prioritized(REQ0,
                                             sub("subReq-0", CLASS_A, 1, memory_at_least("6Gi")),
                                             sub("subReq-1", CLASS_A, 1,
                                                 memory_at_least("2Gi"))))], [CLASS],
        [counter_slice("slice-1", NODE_1, POOL_1, DRIVER_A, (CS1, {"memory": "8Gi"}), count=3),
         pool_of("slice-2", NODE_1, POOL_1, 3, partition("device-1", (CS1, {"memory": "6Gi"})),
                 partition("device-2", (CS1, {"memory": "2Gi"}))),
         pool_of("slice-3", "node-2", POOL_1, 3,
                 consumes(device("device-3"), (CS1, {"memory": "6Gi"})))],
        allocated={"device-3"}, want=[[("req-0/subReq-1", POOL_1, "device-2")]]),
    "partitionable-devices-validation-error-on-non-targeting-slice": Case(
        PD, [claim("claim-0", exact(REQ0, CLASS_A))], [CLASS],
        [counter_slice("slice-1", NODE_1, POOL_1, DRIVER_A, (CS1, {"memory": "8Gi"}), count=3),
         pool_of("slice-2", NODE_1, POOL_1, 3, partition("device-1", (CS1, {"memory": "6Gi"}))),
         pool_of("slice-3", "node-2", POOL_1, 3,
                 consumes(device("device-3"), (CS2, {"memory": "6Gi"})))],
        error=INVALID),
    "different-resourceslices-in-pool-can-target-different-nodes": Case(
        features(), [claim("claim-0", exact(REQ0, CLASS_A))], [CLASS],
        [pool_of("slice-1", "node-2", POOL_1, 2, device("device-1")),
         pool_of("slice-2", NODE_1, POOL_1, 2, device("device-2"))],
        want=[[(REQ0, POOL_1, "device-2")]]),
    "invalid-pool-is-ok-if-devices-can-be-allocated-from-other": Case(
        features(), [claim("claim-0", exact(REQ0, CLASS_A))], [CLASS],
        [pool_of("slice-1", NODE_1, POOL_1, 2, device("device-1")),
         pool_of("slice-2", NODE_1, POOL_1, 2, device("device-1")),
         pool_of("slice-3", NODE_1, "pool-2", 1, device("device-2"))],
        want=[[(REQ0, "pool-2", "device-2")]]),
    "invalid-pool-is-error-if-no-other-device-can-be-allocated": Case(
        features(), [claim("claim-0", exact(REQ0, CLASS_A))], [CLASS],
        [pool_of("slice-1", NODE_1, POOL_1, 2, device("device-1")),
         pool_of("slice-2", NODE_1, POOL_1, 2, device("device-1")),
         pool_of("slice-3", NODE_1, "pool-2", 1, device("device-2"))],
        allocated={(DRIVER_A, "pool-2", "device-2")}, error=INVALID),
    "no-allocation-from-incomplete-pools": Case(
        features(), [claim("claim-0", exact(REQ0, CLASS_A))], [CLASS],
        [pool_of("slice-1", NODE_1, POOL_1, 2, device("device-1"))]),
    "allocation-mode-all-with-multi-host-resource-pool": Case(
        features(), [claim("claim-0", all_devices(REQ0, CLASS_A))], [CLASS],
        [pool_of("slice-1", NODE_1, POOL_1, 2, device("device-1")),
         pool_of("slice-2", "node-2", POOL_1, 2, device("device-2"))],
        want=[[(REQ0, POOL_1, "device-1")]]),
    "multi-host-resource-pool-with-stale-slice-for-current-node": Case(
        features(), [claim("claim-0", exact(REQ0, CLASS_A))], [CLASS],
        [pool_of("slice-1", NODE_1, POOL_1, 2, device("device-1"), generation=1),
         pool_of("slice-2", "node-2", POOL_1, 2, device("device-2"), generation=2)]),
    # Go: "We'd like this to *not* be allocated, but the current implementation ignores the
    # updated slices."
    "multi-host-resource-pool-complete-update-from-node-1-to-node-2": Case(
        features(), [claim("claim-0", exact(REQ0, CLASS_A))], [CLASS],
        [pool_of("slice-1", NODE_1, POOL_1, 2, device("device-1")),
         pool_of("slice-1", NODE_1, POOL_1, 2, device("device-2")),
         pool_of("slice-2", "node-2", POOL_1, 2, device("device-1"), generation=2),
         pool_of("slice-2", "node-2", POOL_1, 2, device("device-2"), generation=2)],
        want=[[(REQ0, POOL_1, "device-1")]]),
    "multi-host-resource-pool-complete-update-from-node-2-to-node-1": Case(
        features(), [claim("claim-0", exact(REQ0, CLASS_A))], [CLASS],
        [pool_of("slice-1", "node-2", POOL_1, 2, device("device-1")),
         pool_of("slice-1", "node-2", POOL_1, 2, device("device-2")),
         pool_of("slice-2", NODE_1, POOL_1, 2, device("device-1"), generation=2),
         pool_of("slice-2", NODE_1, POOL_1, 2, device("device-2"), generation=2)],
        want=[[(REQ0, POOL_1, "device-1")]]),
    "multi-host-resource-pool-incomplete-update-from-node-1-to-node-2": Case(
        features(), [claim("claim-0", exact(REQ0, CLASS_A))], [CLASS],
        [pool_of("slice-1", NODE_1, POOL_1, 2, device("device-1")),
         pool_of("slice-1", NODE_1, POOL_1, 2, device("device-2")),
         pool_of("slice-2", "node-2", POOL_1, 2, device("device-1"), generation=2)],
        want=[[(REQ0, POOL_1, "device-1")]]),
    # This does not get allocated since slice-2 is incomplete.
    "multi-host-resource-pool-incomplete-update-from-node-2-to-node-1": Case(
        features(), [claim("claim-0", exact(REQ0, CLASS_A))], [CLASS],
        [pool_of("slice-1", "node-2", POOL_1, 2, device("device-1")),
         pool_of("slice-1", "node-2", POOL_1, 2, device("device-2")),
         pool_of("slice-2", NODE_1, POOL_1, 2, device("device-1"), generation=2)]),
}


@pytest.mark.parametrize("case", [pytest.param(c, id=n) for n, c in POOL_CASES.items()])
def test_pools(case):
    run_case(case)


# --- binding conditions (DRADeviceBindingConditions with DRAResourceClaimDeviceStatus).
BC = features("DeviceBindingAndStatus")
PD_BC = features("PartitionableDevices", "DeviceBindingAndStatus")
PD_BC_TAINTS = features("PartitionableDevices", "DeviceBindingAndStatus", "DeviceTaints")
TOLERATE_KEY1 = {"operator": "Exists", "key": "key1", "effect": "NoSchedule"}
KEY1_TAINT = {"key": "key1", "value": "value1", "effect": "NoSchedule"}


def bound(name, conditions=("IsPrepare",), failures=("BindingFailed",), *, capacity_from=None):
    d = device(name)
    if capacity_from is not None:
        d = partition(name, (CS1, {"memory": capacity_from}))
    return with_binding_conditions(d, conditions, failures)


BINDING_CASES = {
    "device-binding-conditions": Case(
        BC, [claim("claim-0", exact(REQ0, CLASS_A))], [CLASS], [one_slice(bound("device-1"))],
        want=[[(REQ0, POOL_1, "device-1", ("IsPrepare",), ("BindingFailed",))]]),
    "binding-conditions-multiple-devices": Case(
        BC, [claim("claim-0", exact(REQ0, CLASS_A, 2), exact(REQ1, CLASS_A))], [CLASS],
        [one_slice(bound("device-1"), bound("device-2", ("IsPrepare2",), ("BindingFailed2",)),
                   bound("device-3", ("IsPrepare3",), ("BindingFailed3",)))],
        want=[[(REQ0, POOL_1, "device-1", ("IsPrepare",), ("BindingFailed",)),
               (REQ0, POOL_1, "device-2", ("IsPrepare2",), ("BindingFailed2",)),
               (REQ1, POOL_1, "device-3", ("IsPrepare3",), ("BindingFailed3",))]]),
    "binding-conditions-with-and-without": Case(
        BC, [claim("claim-0", exact(REQ0, CLASS_A), exact(REQ1, CLASS_A))], [CLASS],
        [one_slice(device("device-1"), bound("device-2"))],
        want=[[(REQ0, POOL_1, "device-1"),
               (REQ1, POOL_1, "device-2", ("IsPrepare",), ("BindingFailed",))]]),
    "binding-conditions-without-feature-gate": Case(
        features(), [claim("claim-0", exact(REQ0, CLASS_A))], [CLASS],
        [one_slice(bound("device-1"))]),
    "node-restriction": Case(
        BC, [claim("claim-0", exact(REQ0, CLASS_A))], [CLASS],
        [go_slice("slice-1", label_selector("planet", "earth"), POOL_1, DRIVER_A,
                  {**device("device-1"), "bindsToNode": True})],
        want=[[(REQ0, POOL_1, "device-1")]]),
    "partitionable-devices-with-binding-conditions": Case(
        PD_BC, [claim("claim-0", exact(REQ0, CLASS_A))], [CLASS],
        [one_slice(bound("device-1", capacity_from="4Gi"), count=2),
         counter_slice("slice-2", NODE_1, POOL_1, DRIVER_A, (CS1, {"memory": "8Gi"}), count=2)],
        want=[[(REQ0, POOL_1, "device-1", ("IsPrepare",), ("BindingFailed",))]]),
    "partitionable-devices-with-binding-conditions-multiple": Case(
        PD_BC, [claim("claim-0", exact(REQ0, CLASS_A, 2))], [CLASS],
        [one_slice(bound("device-1", capacity_from="4Gi"),
                   bound("device-2", ("IsPrepare2",), ("BindingFailed2",), capacity_from="4Gi"),
                   count=2),
         counter_slice("slice-2", NODE_1, POOL_1, DRIVER_A, (CS1, {"memory": "8Gi"}), count=2)],
        want=[[(REQ0, POOL_1, "device-1", ("IsPrepare",), ("BindingFailed",)),
               (REQ0, POOL_1, "device-2", ("IsPrepare2",), ("BindingFailed2",))]]),
    "partitionable-devices-with-binding-conditions-some-devices-no-conditions": Case(
        PD_BC, [claim("claim-0", exact(REQ0, CLASS_A, 3))], [CLASS],
        [one_slice(bound("device-1", capacity_from="2Gi"),
                   partition("device-2", (CS1, {"memory": "2Gi"})),
                   bound("device-3", ("IsReady",), ("BindingTimeout",), capacity_from="4Gi"),
                   count=2),
         counter_slice("slice-2", NODE_1, POOL_1, DRIVER_A, (CS1, {"memory": "8Gi"}), count=2)],
        want=[[(REQ0, POOL_1, "device-1", ("IsPrepare",), ("BindingFailed",)),
               (REQ0, POOL_1, "device-2"),
               (REQ0, POOL_1, "device-3", ("IsReady",), ("BindingTimeout",))]]),
    "partitionable-devices-with-binding-conditions-multi-slices": Case(
        PD_BC, [claim("claim-0", exact(REQ0, CLASS_A, 2))], [CLASS],
        [one_slice(bound("device-1", capacity_from="4Gi"), name="slice-4", count=4),
         counter_slice("slice-3", NODE_1, POOL_1, DRIVER_A, (CS1, {"memory": "8Gi"}), count=4),
         one_slice(partition("device-2", (CS2, {"memory": "4Gi"})), name="slice-2", count=4),
         counter_slice("slice-1", NODE_1, POOL_1, DRIVER_A, (CS2, {"memory": "8Gi"}), count=4)],
        want=[[(REQ0, POOL_1, "device-2"),
               (REQ0, POOL_1, "device-1", ("IsPrepare",), ("BindingFailed",))]]),
    "partitionable-devices-with-binding-conditions-and-taints": Case(
        PD_BC_TAINTS, [claim("claim-0", exact(REQ0, CLASS_A, 2))], [CLASS],
        [one_slice(with_taints(bound("device-1", capacity_from="4Gi"), KEY1_TAINT),
                   partition("device-2", (CS1, {"memory": "4Gi"}))),
         counter_slice("slice-2", NODE_1, POOL_1, DRIVER_A, (CS1, {"memory": "8Gi"}))]),
    "partitionable-devices-with-binding-conditions-and-taints-tolerated": Case(
        PD_BC_TAINTS, [claim("claim-0", exact(REQ0, CLASS_A, 2, tolerations=[TOLERATE_KEY1]))],
        [CLASS],
        [one_slice(with_taints(bound("device-1", capacity_from="4Gi"), KEY1_TAINT),
                   partition("device-2", (CS1, {"memory": "4Gi"})), count=2),
         counter_slice("slice-2", NODE_1, POOL_1, DRIVER_A, (CS1, {"memory": "8Gi"}), count=2)],
        want=[[(REQ0, POOL_1, "device-1", ("IsPrepare",), ("BindingFailed",),
                ("key1/NoSchedule",)),
               (REQ0, POOL_1, "device-2", ("key1/NoSchedule",))]]),
    "consumable-capacity-disabled-feature": Case(
        BC, [claim("claim-0", exact(REQ0, CLASS_A, capacity="1"))], [CLASS],
        [one_slice(device("device-1"))],
        error="claim default/claim-0, request req-0: has capacity requests, but the "
              "DRAConsumableCapacity feature is disabled"),
    # The results part of Go's case; its expectNumAllocateOneInvocations (12) counts the
    # allocator's recursion, which the engine does not report.
    "check-combinations-with-backtracking-across-slices-and-pools": Case(
        BC, [claim("claim-0", exact(REQ1, CLASS_A, 2),
                   exact(REQ2, CLASS_A, 1, cel(f'device.attributes["{DRIVER_A}"].type == "X"')))],
        [CLASS],
        [pool_of("slice-1", NODE_1, POOL_1, 2, device("device-1", None, {"type": {"string": "X"}})),
         pool_of("slice-2", NODE_1, POOL_1, 2, device("device-2", None, {"type": {"string": "Y"}})),
         pool_of("slice-3", NODE_1, "pool-2", 1, with_binding_conditions(
             device("device-3", None, {"type": {"string": "Y"}}), ["IsPrepare"], []))],
        want=[[(REQ1, POOL_1, "device-2"), (REQ1, "pool-2", "device-3", ("IsPrepare",)),
               (REQ2, POOL_1, "device-1")]]),
}


@pytest.mark.parametrize("case", [pytest.param(c, id=n) for n, c in BINDING_CASES.items()])
def test_binding_conditions(case):
    run_case(case)


# --- the results of the check-combinations-* and max-allocation cases (Go also counts the
# allocator's allocateOne calls, expectNumAllocateOneInvocations, which the engine does not
# report), and the list-attributes-* cases that need no list value.
def typed(name, kind):
    return device(name, None, {"type": {"string": kind}})


TYPE_X = cel(f'device.attributes["{DRIVER_A}"].type == "X"')
TYPE_Y = cel(f'device.attributes["{DRIVER_A}"].type == "Y"')
FIVE = [claim("claim-0", exact(REQ0, CLASS_A, 5))]
# Go's Features for the list-attributes-* cases: matchAttribute ones name ListTypeAttributes
# alone, distinctAttribute ones ConsumableCapacity too (its gate holds distinctAttribute).
LIST_MATCH = features("ListTypeAttributes")
LIST_ATTRS = features("ListTypeAttributes", "ConsumableCapacity")


def strings(*values):
    """{"stringAttribute": {StringValues: [...]}} (json "strings")."""
    return {"stringAttribute": {"strings": list(values)}}


def listed(name: str, *devices):
    """One slice of device-1, device-2, ... each with its attribute `name` set to the value
    given ({"strings": [...]}, {"string": ...}, ...)."""
    return one_slice(*(device(f"device-{i}", None, {name: value})
                       for i, value in enumerate(devices, 1)))


def list_case(kind, attribute, want, *values, count=2, requests=None, error=None):
    """Go's list-attributes cases: one claim of `count` devices from class-a under a
    matchAttribute (kind "match") or distinctAttribute constraint on `attribute`."""
    constraint = match(f"{DRIVER_A}/{attribute}") if kind == "match" else \
        distinct(f"{DRIVER_A}/{attribute}")
    return Case(LIST_MATCH if kind == "match" else LIST_ATTRS,
                [claim("claim-0", *(requests or [exact(REQ0, CLASS_A, count)]),
                       constraints=[constraint])],
                [CLASS], [listed(attribute, *values)],
                want=[[(REQ0, POOL_1, d) for d in want]] if want else None, error=error)


S = "stringAttribute"
BOTH = ("device-1", "device-2")
FIRST_AND_THIRD = ("device-1", "device-3")
LIST_CASES = {
    "list-attributes-match-constaint-list-of-string-values-with-common-elements": list_case(
        "match", S, BOTH, {"strings": ["value1", "value2", "value3"]},
        {"strings": ["value2", "value3", "value4"]}),
    # Each pair shares a value, the three do not: no allocation.
    "list-attributes-match-constaint-list-of-string-values-with-partially-common-elements":
        list_case("match", S, None, {"strings": ["value1", "value2"]},
                  {"strings": ["value2", "value3"]}, {"strings": ["value3", "value1"]},
                  count=3),
    # Go names both requests req-0; the engine keys nothing by request name here.
    "list-attributes-match-constaint-list-of-string-values-without-common-elements": list_case(
        "match", S, None, {"strings": ["value1", "value2"]}, {"strings": ["value3", "value4"]},
        requests=[exact(REQ0, CLASS_A, 1), exact(REQ0, CLASS_A, 1)]),
    "list-attributes-match-constaint-mixed-scalar-and-list-of-string-values-with-common-"
    "elements": list_case("match", S, BOTH, {"string": "value1"},
                          {"strings": ["value1", "value2"]}),
    "list-attributes-match-constaint-mixed-scalar-and-list-of-string-values-with-partially-"
    "common-elements": list_case("match", S, None, {"string": "value1"},
                                 {"strings": ["value1", "value2"]},
                                 {"strings": ["value2", "value3"]}, count=3),
    "list-attributes-match-constaint-mixed-scalar-and-list-of-string-values-without-common-"
    "elements": list_case("match", S, None, {"string": "value1"},
                          {"strings": ["value2", "value3"]}),
    "list-attributes-match-constaint-list-of-int-values-with-common-elements": list_case(
        "match", "numa", BOTH, {"ints": [0, 1, 2]}, {"ints": [1, 2, 3]}),
    "list-attributes-match-constaint-list-of-bool-values-with-common-elements": list_case(
        "match", "boolAttribute", BOTH, {"bools": [True, False]}, {"bools": [True]}),
    "list-attributes-match-constaint-list-of-version-values-with-common-elements": list_case(
        "match", "driverVersion", BOTH, {"versions": ["1.0.0", "1.1.0", "2.0.0"]},
        {"versions": ["1.1.0", "2.0.0", "2.1.0"]}),
    # distinctAttribute: the lists taken must be disjoint.
    "list-attributes-distinct-constraint-list-of-string-values-all-distinct": list_case(
        "distinct", S, FIRST_AND_THIRD, {"strings": ["value1", "value2"]},
        {"strings": ["value2", "value3"]}, {"strings": ["value3", "value4"]}),
    "list-attributes-distinct-constraint-list-of-string-values-with-common-elements":
        list_case("distinct", S, None, {"strings": ["value1", "value2", "value3"]},
                  {"strings": ["value2", "value4", "value5"]}),
    "list-attributes-distinct-constraint-mixed-scalar-and-list-all-distinct": list_case(
        "distinct", S, FIRST_AND_THIRD, {"string": "value1"}, {"strings": ["value1", "value2"]},
        {"strings": ["value2", "value3"]}),
    "list-attributes-distinct-constraint-mixed-scalar-and-list-with-common-elements":
        list_case("distinct", S, None, {"string": "value1"},
                  {"strings": ["value1", "value2"]}),
    "list-attributes-distinct-constraint-list-of-int-values-all-distinct": list_case(
        "distinct", "numa", FIRST_AND_THIRD, {"ints": [0, 1]}, {"ints": [1, 2]},
        {"ints": [2, 3]}),
    "list-attributes-distinct-constraint-list-of-bool-values-all-distinct": list_case(
        "distinct", "boolAttribute", FIRST_AND_THIRD, {"bools": [True]},
        {"bools": [True, False]}, {"bools": [False]}),
    "list-attributes-distinct-constraint-list-of-version-values-all-distinct": list_case(
        "distinct", "driverVersion", FIRST_AND_THIRD, {"versions": ["1.0.0", "1.1.0"]},
        {"versions": ["1.1.0", "2.0.0"]}, {"versions": ["2.0.0", "2.1.0"]}),
}


@pytest.mark.parametrize("case", [pytest.param(c, id=n) for n, c in LIST_CASES.items()])
def test_list_type_attributes(case):
    run_case(case)


COMBINATION_CASES = {
    "check-combinations-within-single-request-single-pool-single-slice": Case(
        features(), FIVE, [CLASS], [one_slice(*(device(f"device-{i}") for i in (1, 2, 3, 4)))]),
    "check-combinations-within-single-request-single-pool-multiple-slices": Case(
        features(), FIVE, [CLASS],
        [pool_of("slice-1", NODE_1, POOL_1, 2, device("device-1"), device("device-2")),
         pool_of("slice-2", NODE_1, POOL_1, 2, device("device-3"), device("device-4"))]),
    "check-combinations-within-single-request-multiple-pools-multiple-slices": Case(
        features(), FIVE, [CLASS],
        [pool_of("slice-1", NODE_1, POOL_1, 2, device("device-1")),
         pool_of("slice-2", NODE_1, POOL_1, 2, device("device-2")),
         pool_of("slice-3", NODE_1, "pool-2", 1, device("device-3"), device("device-4"))]),
    "check-combinations-within-single-request-many-pools": Case(
        features(), FIVE, [CLASS],
        [pool_of(f"slice-{i}", NODE_1, f"pool-{i}", 1, device(f"device-{i}"))
         for i in (1, 2, 3, 4)]),
    "check-combinations-with-backtracking": Case(
        features(), [claim("claim-0", exact(REQ1, CLASS_A, 2), exact(REQ2, CLASS_A, 1, TYPE_X))],
        [CLASS], [one_slice(typed("device-1", "X"), typed("device-2", "Y"),
                            typed("device-3", "Y"))],
        want=[[(REQ1, POOL_1, "device-2"), (REQ1, POOL_1, "device-3"),
               (REQ2, POOL_1, "device-1")]]),
    "check-combinations-with-prioritized-list": Case(
        PL, [claim("claim-0", prioritized(REQ1, sub("subReq-0", CLASS_A, 3, TYPE_Y),
                                          sub("subReq-1", CLASS_A, 2)),
                   prioritized(REQ2, sub("subReq-0", CLASS_A, 2),
                               sub("subReq-1", CLASS_A, 1, TYPE_X)))],
        [CLASS], [one_slice(typed("device-1", "X"), typed("device-2", "Y"),
                            typed("device-3", "Y"))],
        want=[[("req-1/subReq-1", POOL_1, "device-2"), ("req-1/subReq-1", POOL_1, "device-3"),
               ("req-2/subReq-1", POOL_1, "device-1")]]),
    "prioritized-list-max-allocation-limit-request": Case(
        PL, [claim("claim-0", *(prioritized(r, sub("subReq-0", CLASS_A, 32),
                                            sub("subReq-1", CLASS_A, 16)) for r in (REQ0, REQ1)))],
        [CLASS], [one_slice(*(device(f"device-{i}") for i in range(64)))],
        want=[[("req-0/subReq-1", POOL_1, f"device-{i}") for i in range(16)]
              + [("req-1/subReq-1", POOL_1, f"device-{i}") for i in range(16, 32)]]),
    "prioritized-list-max-allocation-allocation-mode-all": Case(
        PL, [claim("claim-0", prioritized(REQ0, sub("subReq-0", CLASS_A, mode="All"),
                                          sub("subReq-1", CLASS_A, 2)),
                   exact(REQ1, "class-b", 2))],
        [CLASS, CLASS_B],
        [one_slice(*(device(f"device-{i}") for i in range(31))),
         pool_slice("slice-2", "pool-2", "driver-b", device("device-0"), device("device-1"))],
        want=[[("req-0/subReq-1", POOL_1, "device-0"), ("req-0/subReq-1", POOL_1, "device-1"),
               (REQ1, "pool-2", "device-0", "driver-b"),
               (REQ1, "pool-2", "device-1", "driver-b")]]),
    "list-attributes-match-constaint-scalar-string-values": Case(
        LIST_MATCH, [claim("claim-0", exact(REQ0, CLASS_A, 2), constraints=[match(STRING_ATTR)])],
        [CLASS], [one_slice(device("device-1", None, string_attr("value1")),
                            device("device-2", None, string_attr("value1")))],
        want=[[(REQ0, POOL_1, "device-1"), (REQ0, POOL_1, "device-2")]]),
    "list-attributes-distinct-constraint-scalar-string-values-all-distinct": Case(
        LIST_ATTRS, [claim("claim-0", exact(REQ0, CLASS_A, 2),
                           constraints=[distinct(STRING_ATTR)])],
        [CLASS], [one_slice(device("device-1", None, string_attr("value1")),
                            device("device-2", None, string_attr("value2")))],
        want=[[(REQ0, POOL_1, "device-1"), (REQ0, POOL_1, "device-2")]]),
    "list-attributes-distinct-constraint-scalar-string-values-not-distinct": Case(
        LIST_ATTRS, [claim("claim-0", exact(REQ0, CLASS_A, 2),
                           constraints=[distinct(STRING_ATTR)])],
        [CLASS], [one_slice(device("device-1", None, string_attr("value1")),
                            device("device-2", None, string_attr("value1")))]),
    # With the feature off, a list value is no value the allocator knows: an error.
    "list-attributes-disabled-match-constraint-with-lists": Case(
        features(), [claim("claim-0", exact(REQ0, CLASS_A, 2), constraints=[match(STRING_ATTR)])],
        [CLASS], [one_slice(device("device-1", None, strings("value1", "value2", "value3")),
                            device("device-2", None, strings("value2", "value3", "value4")))],
        error="unsupported attribute value"),
    "list-attributes-disabled-distinct-constraint-with-lists": Case(
        features("ConsumableCapacity"), [claim("claim-0", exact(REQ0, CLASS_A, 2),
                           constraints=[distinct(STRING_ATTR)])],
        [CLASS], [one_slice(device("device-1", None, strings("value1", "value2", "value3")),
                            device("device-2", None, strings("value2", "value3", "value4")))],
        error="unsupported attribute value"),
    # An empty list (or no value) is no supported value, with the feature on or off.
    "list-attributes-match-constaint-with-empty-or-unknown-type": Case(
        LIST_MATCH, [claim("claim-0", exact(REQ0, CLASS_A, 2), constraints=[match(STRING_ATTR)])],
        [CLASS], [one_slice(device("device-1", None, {"stringAttribute": {}}),
                            device("device-2", None, strings()))],
        error="unsupported attribute value"),
    "list-attributes-distinct-constaint-with-empty-or-unknown-type": Case(
        LIST_ATTRS, [claim("claim-0", exact(REQ0, CLASS_A, 2),
                           constraints=[distinct(VERSION_ATTR)])],
        [CLASS], [one_slice(device("device-1", None, {"driverVersion": {"versions": []}}),
                            device("device-2", None, {"driverVersion": {}}))],
        error="unsupported attribute value"),
}


@pytest.mark.parametrize("case", [pytest.param(c, id=n) for n, c in COMBINATION_CASES.items()])
def test_combinations_and_scalar_list_attributes(case):
    run_case(case)


INTERRUPT_REASON = ("the engine's Allocate runs to its end: there is no context to cancel or "
                    "deadline to reach")
SKIPPED = {
    **{f"interrupt/{name}": INTERRUPT_REASON for name in ("off", "timeout", "deadline",
                                                          "cancel")},
}


@pytest.mark.parametrize("reason", [pytest.param(r, id=n) for n, r in SKIPPED.items()])
def test_not_expressible(reason):
    pytest.skip(reason)
