"""The structured allocator, ported from structured/internal/stable/allocator_test.go.

Same inputs as Go's table (driver-a, pool-a, class-a, node-1, device-1 ...), same expected
allocation results, node selectors and error messages.
"""
from __future__ import annotations

import pytest

from .allocated import allocated_state
from .allocator import AllocationError, Allocator
from .builders import (
    CLASS_A,
    DRIVER_A,
    NODE_1,
    POOL_A,
    allocation,
    claim,
    device,
    device_class,
    first_available,
    node,
    request,
    resource_slice,
    result,
)
from .pools import gather_pools

MATCH_DRIVER = f'device.driver == "{DRIVER_A}"'


def allocate(claims, slices, classes=None, allocated=(), on=None):
    classes = {c["metadata"]["name"]: c for c in (classes or [device_class(CLASS_A)])}
    alloc = Allocator(classes=classes, slices=list(slices), allocated=set(allocated))
    return alloc.allocate(on or node(labels={"zone": "a"}), list(claims))


def one_slice(*devices, **kw):
    return resource_slice("slice-1", NODE_1, POOL_A, DRIVER_A,
                          *(devices or (device("device-1"),)), **kw)


CASES = [
    pytest.param([], [one_slice()], [], id="empty"),
    pytest.param([claim()], [one_slice()], [allocation(result("req-0", "device-1"))],
                 id="simple"),
    pytest.param([claim()], [resource_slice("slice-1", "node-2", POOL_A, DRIVER_A,
                                            device("device-1"))], None, id="other-node"),
    pytest.param([claim("claim-0"), claim("claim-1")],
                 [one_slice(device("device-1"), device("device-2"))],
                 [allocation(result("req-0", "device-1")), allocation(result("req-0", "device-2"))],
                 id="two claims take different devices"),
    pytest.param([claim("claim-0", request(count=2))], [one_slice()], None,
                 id="not enough devices"),
    pytest.param([claim("claim-0", request(count=2))],
                 [one_slice(device("device-1"), device("device-2"))],
                 [allocation(result("req-0", "device-1"), result("req-0", "device-2"))],
                 id="count of two"),
    pytest.param([claim("claim-0", request(mode="All"))],
                 [one_slice(device("device-1"), device("device-2"))],
                 [allocation(result("req-0", "device-1"), result("req-0", "device-2"))],
                 id="all-devices takes every device of the node"),
    pytest.param([claim("claim-0", request(mode="All"))], [], None,
                 id="all-devices with no devices cannot succeed"),
    pytest.param([claim("claim-0", request(selectors=['device.attributes["driver-a"].model '
                                                      '== "b"']))],
                 [one_slice(device("device-1", {"model": "a"}),
                            device("device-2", {"model": "b"}))],
                 [allocation(result("req-0", "device-2"))], id="request selector picks a device"),
    pytest.param([claim("claim-0", request(count=2),
                        constraints=[("driver-a/numa", None)])],
                 [one_slice(device("device-1", {"numa": 1}), device("device-2", {"numa": 2}),
                            device("device-3", {"numa": 1}))],
                 [allocation(result("req-0", "device-1"), result("req-0", "device-3"))],
                 id="with-constraint: matchAttribute backtracks to a matching pair"),
    pytest.param([claim("claim-0", request(count=2),
                        constraints=[("driver-a/numa", None)])],
                 [one_slice(device("device-1", {"numa": 1}), device("device-2", {"numa": 2}))],
                 None, id="with-constraint-not-matching"),
    pytest.param([claim("claim-0", request(count=2),
                        constraints=[("driver-a/no-such-attribute", None)])],
                 [one_slice(device("device-1"), device("device-2"))], None,
                 id="with-constraint-non-existent-attribute"),
    pytest.param([claim("claim-0", request("req-0"), request("req-1"),
                        constraints=[("driver-a/numa", ["req-1"])])],
                 [one_slice(device("device-1", {"numa": 1}), device("device-2", {"numa": 2}))],
                 [allocation(result("req-0", "device-1"), result("req-1", "device-2"))],
                 id="constraint limited to one request does not apply to the other"),
    pytest.param([claim("claim-0", request(admin=True))], [one_slice()],
                 [allocation(result("req-0", "device-1", admin=True))],
                 id="admin-access: an allocated device can still be used"),
    pytest.param([claim("claim-0", request(mode="All"))],
                 [one_slice(device("device-1"), generation=1),
                  resource_slice("slice-2", NODE_1, POOL_A, DRIVER_A, device("device-2"),
                                 generation=2)],
                 [allocation(result("req-0", "device-2"))],
                 id="outdated slices are ignored"),
    pytest.param([claim()],
                 [resource_slice("slice-1", NODE_1, POOL_A, DRIVER_A, device("device-1"),
                                 node_selector={"nodeSelectorTerms": [{"matchExpressions": [
                                     {"key": "zone", "operator": "In", "values": ["a"]}]}]})],
                 [{"devices": {"results": [result("req-0", "device-1")]},
                   "nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [
                       {"key": "zone", "operator": "In", "values": ["a"]}]}]}}],
                 id="network-attached device gets the slice's node selector"),
    pytest.param([claim()],
                 [resource_slice("slice-1", NODE_1, POOL_A, DRIVER_A, device("device-1"),
                                 all_nodes=True)],
                 [{"devices": {"results": [result("req-0", "device-1")]}}],
                 id="device on all nodes needs no node selector"),
    pytest.param([claim()],
                 [one_slice(count=2)], None, id="incomplete pool gives no devices"),
]


@pytest.mark.parametrize("claims,slices,want", CASES)
def test_allocate(claims, slices, want):
    assert allocate(claims, slices, [device_class(CLASS_A, MATCH_DRIVER)]) == want


def test_class_selector_rejects_every_device():
    classes = [device_class(CLASS_A, 'device.driver == "other-driver"')]
    assert allocate([claim()], [one_slice()], classes) is None


def test_devices_in_use_are_not_allocated_again():
    used = {(DRIVER_A, POOL_A, "device-1")}
    assert allocate([claim()], [one_slice()], allocated=used) is None


def test_allocated_devices_skip_admin_access_results():
    admin = claim("admin")
    admin["status"]["allocation"] = allocation(result("req-0", "device-1", admin=True))
    normal = claim("normal")
    normal["status"]["allocation"] = allocation(result("req-0", "device-2"))
    assert allocated_state([admin, normal]).devices == {(DRIVER_A, POOL_A, "device-2")}


def test_class_config_is_added_from_class_and_claim():
    opaque = {"opaque": {"driver": DRIVER_A, "parameters": {"a": 1}}}
    classes = [device_class(CLASS_A, MATCH_DRIVER, config=[opaque])]
    c = claim("claim-0", config=[{"requests": ["req-0"], **opaque}])
    got = allocate([c], [one_slice()], classes)
    assert got[0]["devices"]["config"] == [{"source": "FromClass", "requests": ["req-0"], **opaque},
                                           {"source": "FromClaim", "requests": ["req-0"], **opaque}]


@pytest.mark.parametrize("claims,slices,classes,message", [
    pytest.param([claim("claim-0", request(klass="no-such-class"))], [one_slice()], None,
                 'claim default/claim-0, request req-0: could not retrieve device class '
                 'no-such-class: deviceclass.resource.k8s.io "no-such-class" not found',
                 id="missing-class"),
    pytest.param([claim("claim-0", request(count=33))], [one_slice()], None,
                 "claim default/claim-0: number of requested devices 33 exceeds the claim limit "
                 "of 32", id="too-many-devices-single-request"),
    pytest.param([claim("claim-0", request(mode="All"))], [one_slice(count=2)], None,
                 "claim default/claim-0, request req-0: asks for all devices, but resource pool "
                 "driver-a/pool-a is currently being updated", id="all-devices-incomplete-pool"),
    pytest.param([claim("claim-0", request(selectors=['device.attributes["driver-a"].x']))],
                 [one_slice()], None,
                 "claim default/claim-0: selector #0: CEL runtime error: no such key: x. "
                 "Consider using CEL optional chaining (?), has() macro, or orValue() for "
                 "optional fields", id="CEL-runtime-error"),
    pytest.param([claim()], [one_slice()], [device_class(CLASS_A, "device.driver ==")],
                 None, id="CEL-compile-error in the class"),
    pytest.param([claim("claim-0", request(mode="All"),
                        constraints=[("driver-a/numa", None)])],
                 [one_slice(device("device-1", {"numa": 1}), device("device-2", {"numa": 2}))],
                 None, "claim default/claim-0, request req-0: cannot add device "
                 "driver-a/pool-a/device-2 because a claim constraint would not be satisfied",
                 id="all-devices-invalid-constraint"),
    pytest.param([claim()], [one_slice(device("device-1"), device("device-1"))], None,
                 "invalid resource pools were encountered", id="duplicate device names"),
])
def test_allocate_errors(claims, slices, classes, message):
    with pytest.raises(AllocationError) as err:
        allocate(claims, slices, classes or [device_class(CLASS_A, MATCH_DRIVER)])
    if message is None:
        assert str(err.value).startswith("class class-a: selector #0: CEL compile error: ")
    else:
        assert str(err.value) == message


def test_gather_pools_marks_incomplete_and_keeps_newest_generation():
    slices = [one_slice(generation=1, count=2),
              resource_slice("slice-2", NODE_1, POOL_A, DRIVER_A, device("device-2"),
                             generation=2, count=1),
              resource_slice("slice-3", "node-2", "pool-b", DRIVER_A, device("device-3"))]
    pools = gather_pools(slices, node())
    assert [(p.pool_id, p.incomplete, [s["metadata"]["name"] for s in p.slices])
            for p in pools] == [("driver-a/pool-a", False, ["slice-2"])]


def test_invalid_cel_one_device_is_a_compile_error():
    # Go: "invalid-CEL-one-device" expects "undeclared reference".
    c = claim("claim-0", request(selectors=["noSuchVar"]))
    with pytest.raises(AllocationError, match="claim default/claim-0: selector #0: CEL compile "
                       "error: undeclared reference to 'noSuchVar'"):
        allocate([c], [one_slice()], [device_class(CLASS_A, MATCH_DRIVER)])


# --- firstAvailable (prioritized-list-* cases) ------------------------------------------------
LARGE = 'device.attributes["driver-a"].size == "large"'
SMALL = 'device.attributes["driver-a"].size == "small"'


@pytest.mark.parametrize("claims,slices,want", [
    pytest.param([claim("claim-0", first_available("req-0", request("large", count=1,
                                                                    selectors=[LARGE]),
                                                   request("small", count=1,
                                                           selectors=[SMALL])))],
                 [one_slice(device("device-1", {"size": "small"}))],
                 [allocation(result("req-0/small", "device-1"))],
                 id="prioritized-list-first-unavailable"),
    pytest.param([claim("claim-0", first_available("req-0", request("large", selectors=[LARGE]),
                                                   request("small", selectors=[SMALL])))],
                 [one_slice(device("device-1", {"size": "large"}),
                            device("device-2", {"size": "small"}))],
                 [allocation(result("req-0/large", "device-1"))],
                 id="prioritized-list-first-available-wins"),
    pytest.param([claim("claim-0", first_available("req-0", request("large", selectors=[LARGE]),
                                                   request("small", selectors=[SMALL])))],
                 [one_slice(device("device-1", {"size": "medium"}))], None,
                 id="prioritized-list-non-available"),
    pytest.param([claim("claim-0", request("req-0", selectors=[SMALL]),
                        first_available("req-1", request("two", count=2),
                                        request("one", count=1)),
                        constraints=[("driver-a/numa", ["req-0", "req-1/one"])])],
                 [one_slice(device("device-1", {"size": "small", "numa": 1}),
                            device("device-2", {"numa": 2}), device("device-3", {"numa": 1}))],
                 [allocation(result("req-0", "device-1"), result("req-1/two", "device-2"),
                             result("req-1/two", "device-3"))],
                 id="constraint naming a subrequest does not bind the other subrequest"),
    pytest.param([claim("claim-0", request("req-0", selectors=[SMALL]),
                        first_available("req-1", request("two", count=2),
                                        request("one", count=1)),
                        constraints=[("driver-a/numa", ["req-0", "req-1"])])],
                 [one_slice(device("device-1", {"size": "small", "numa": 1}),
                            device("device-2", {"numa": 2}), device("device-3", {"numa": 1}))],
                 [allocation(result("req-0", "device-1"), result("req-1/one", "device-3"))],
                 id="constraint naming the parent request binds every subrequest"),
])
def test_allocate_first_available(claims, slices, want):
    assert allocate(claims, slices, [device_class(CLASS_A, MATCH_DRIVER)]) == want


def test_prioritized_list_class_and_claim_config_name_the_subrequest():
    opaque = {"opaque": {"driver": DRIVER_A, "parameters": {"a": 1}}}
    classes = [device_class(CLASS_A, MATCH_DRIVER, config=[opaque])]
    c = claim("claim-0", first_available("req-0", request("large", selectors=[LARGE]),
                                         request("small", selectors=[SMALL])),
              request("req-1"), config=[{"requests": ["req-0/small"], **opaque}])
    got = allocate([c], [one_slice(device("device-1", {"size": "small"}),
                                   device("device-2", {"size": "medium"}))], classes)
    assert [r["request"] for r in got[0]["devices"]["results"]] == ["req-0/small", "req-1"]
    assert got[0]["devices"]["config"] == [
        {"source": "FromClass", "requests": ["req-0/small", "req-1"], **opaque},
        {"source": "FromClaim", "requests": ["req-0/small"], **opaque}]
