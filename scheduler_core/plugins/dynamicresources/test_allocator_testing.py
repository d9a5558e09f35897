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
    POOL_1,
    SHARED,
    Case,
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
    match,
    multi,
    policy_range,
    prioritized,
    run_case,
    sub,
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
