"""NodeResourcesFit, ported from kube-scheduler's fit_test.go tables."""
from __future__ import annotations

import pytest

from scheduler_core.errors import ConfigError
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import PodInfo
from scheduler_core.plugins.noderesources import fit
from scheduler_core.testing.noderesources import (
    DEFAULT_RESOURCES,
    EXTENDED_A,
    EXTENDED_B,
    HUGE_PAGE_A,
    KUBERNETES_IO_A,
    KUBERNETES_IO_B,
    assert_status,
    node_info,
    resource_pod,
    scores,
    st_node,
    st_pod,
    usage,
)

CPU, MEM, EPH = "Insufficient cpu", "Insufficient memory", "Insufficient ephemeral-storage"


def allocatable(milli_cpu, memory, pods, extended_a, storage, huge_page_a) -> dict:
    """makeAllocatableResources."""
    return {"cpu": f"{milli_cpu}m", "memory": str(memory), "pods": str(pods),
            EXTENDED_A: str(extended_a), "ephemeral-storage": str(storage),
            HUGE_PAGE_A: str(huge_page_a)}


ENOUGH_NODE = allocatable(10, 20, 32, 5, 20, 5)


def run_filter(pod, ni, args=None):
    plugin = fit.new(fit.default_args(args or {}), None)
    state = CycleState()
    _, status = plugin.pre_filter(state, pod, [])
    assert status is None
    return plugin.filter(state, pod, ni)


def unschedulable(*reasons):
    return Status(Code.UNSCHEDULABLE, *reasons)


def unresolvable(*reasons):
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, *reasons)


IR = fit.InsufficientResource
ENOUGH_CASES = [
    pytest.param(resource_pod(), [usage(10, 20)], None, None, [],
                 id="no resources requested always fits"),
    pytest.param(resource_pod(usage(1, 1)), [usage(10, 20)], None, unschedulable(CPU, MEM),
                 [IR("cpu", CPU, 1, 10, 10), IR("memory", MEM, 1, 20, 20)],
                 id="too many resources fails"),
    pytest.param(resource_pod(usage(1, 1), init=[usage(3, 1)]), [usage(8, 19)], None,
                 unschedulable(CPU), [IR("cpu", CPU, 3, 8, 10)],
                 id="too many resources fails due to init container cpu"),
    pytest.param(resource_pod(usage(1, 1), init=[usage(3, 1), usage(2, 1)]), [usage(8, 19)],
                 None, unschedulable(CPU), [IR("cpu", CPU, 3, 8, 10)],
                 id="too many resources fails due to highest init container cpu"),
    pytest.param(resource_pod(usage(1, 1), init=[usage(1, 3)]), [usage(9, 19)], None,
                 unschedulable(MEM), [IR("memory", MEM, 3, 19, 20)],
                 id="too many resources fails due to init container memory"),
    pytest.param(resource_pod(usage(1, 1), init=[usage(1, 3), usage(1, 2)]), [usage(9, 19)],
                 None, unschedulable(MEM), [IR("memory", MEM, 3, 19, 20)],
                 id="too many resources fails due to highest init container memory"),
    pytest.param(resource_pod(usage(1, 1), init=[usage(1, 1)]), [usage(9, 19)], None, None, [],
                 id="init container fits because it's the max, not sum, of containers and init "
                    "containers"),
    pytest.param(resource_pod(usage(1, 1), init=[usage(1, 1), usage(1, 1)]), [usage(9, 19)],
                 None, None, [],
                 id="multiple init containers fit because it's the max, not sum, of containers "
                    "and init containers"),
    pytest.param(resource_pod(usage(1, 1)), [usage(5, 5)], None, None, [],
                 id="both resources fit"),
    pytest.param(resource_pod(usage(2, 1)), [usage(9, 5)], None, unschedulable(CPU),
                 [IR("cpu", CPU, 2, 9, 10)], id="one resource memory fits"),
    pytest.param(resource_pod(usage(1, 2)), [usage(5, 19)], None, unschedulable(MEM),
                 [IR("memory", MEM, 2, 19, 20)], id="one resource cpu fits"),
    pytest.param(resource_pod(usage(5, 1)), [usage(5, 19)], None, None, [],
                 id="equal edge case"),
    pytest.param(resource_pod(usage(4, 1), init=[usage(5, 1)]), [usage(5, 19)], None, None, [],
                 id="equal edge case for init container"),
    pytest.param(resource_pod(usage(scalars={EXTENDED_A: 1})), [usage()], None, None, [],
                 id="extended resource fits"),
    pytest.param(resource_pod(usage(), init=[usage(scalars={EXTENDED_A: 1})]), [usage()], None,
                 None, [], id="extended resource fits for init container"),
    pytest.param(resource_pod(usage(1, 1, scalars={EXTENDED_A: 10})),
                 [usage(scalars={EXTENDED_A: 0})], None,
                 unresolvable(f"Insufficient {EXTENDED_A}"),
                 [IR(EXTENDED_A, f"Insufficient {EXTENDED_A}", 10, 0, 5, True)],
                 id="extended resource capacity enforced"),
    pytest.param(resource_pod(usage(), init=[usage(1, 1, scalars={EXTENDED_A: 10})]),
                 [usage(scalars={EXTENDED_A: 0})], None,
                 unresolvable(f"Insufficient {EXTENDED_A}"),
                 [IR(EXTENDED_A, f"Insufficient {EXTENDED_A}", 10, 0, 5, True)],
                 id="extended resource capacity enforced for init container"),
    pytest.param(resource_pod(usage(1, 1, scalars={EXTENDED_A: 1})),
                 [usage(scalars={EXTENDED_A: 5})], None,
                 unschedulable(f"Insufficient {EXTENDED_A}"),
                 [IR(EXTENDED_A, f"Insufficient {EXTENDED_A}", 1, 5, 5)],
                 id="extended resource allocatable enforced"),
    pytest.param(resource_pod(usage(), init=[usage(1, 1, scalars={EXTENDED_A: 1})]),
                 [usage(scalars={EXTENDED_A: 5})], None,
                 unschedulable(f"Insufficient {EXTENDED_A}"),
                 [IR(EXTENDED_A, f"Insufficient {EXTENDED_A}", 1, 5, 5)],
                 id="extended resource allocatable enforced for init container"),
    pytest.param(resource_pod(usage(1, 1, scalars={EXTENDED_A: 3}),
                              usage(1, 1, scalars={EXTENDED_A: 3})),
                 [usage(scalars={EXTENDED_A: 2})], None,
                 unresolvable(f"Insufficient {EXTENDED_A}"),
                 [IR(EXTENDED_A, f"Insufficient {EXTENDED_A}", 6, 2, 5, True)],
                 id="extended resource allocatable enforced for multiple containers"),
    pytest.param(resource_pod(usage(), init=[usage(1, 1, scalars={EXTENDED_A: 3}),
                                             usage(1, 1, scalars={EXTENDED_A: 3})]),
                 [usage(scalars={EXTENDED_A: 2})], None, None, [],
                 id="extended resource allocatable admits multiple init containers"),
    pytest.param(resource_pod(usage(), init=[usage(1, 1, scalars={EXTENDED_A: 6}),
                                             usage(1, 1, scalars={EXTENDED_A: 3})]),
                 [usage(scalars={EXTENDED_A: 2})], None,
                 unresolvable(f"Insufficient {EXTENDED_A}"),
                 [IR(EXTENDED_A, f"Insufficient {EXTENDED_A}", 6, 2, 5, True)],
                 id="extended resource allocatable enforced for multiple init containers"),
    pytest.param(resource_pod(usage(1, 1, scalars={EXTENDED_B: 1})), [usage()], None,
                 unresolvable(f"Insufficient {EXTENDED_B}"),
                 [IR(EXTENDED_B, f"Insufficient {EXTENDED_B}", 1, 0, 0, True)],
                 id="extended resource allocatable enforced for unknown resource"),
    pytest.param(resource_pod(usage(), init=[usage(1, 1, scalars={EXTENDED_B: 1})]), [usage()],
                 None, unresolvable(f"Insufficient {EXTENDED_B}"),
                 [IR(EXTENDED_B, f"Insufficient {EXTENDED_B}", 1, 0, 0, True)],
                 id="extended resource allocatable enforced for unknown resource for init "
                    "container"),
    pytest.param(resource_pod(usage(1, 1, scalars={KUBERNETES_IO_A: 10})), [usage()], None,
                 unresolvable(f"Insufficient {KUBERNETES_IO_A}"),
                 [IR(KUBERNETES_IO_A, f"Insufficient {KUBERNETES_IO_A}", 10, 0, 0, True)],
                 id="kubernetes.io resource capacity enforced"),
    pytest.param(resource_pod(usage(), init=[usage(1, 1, scalars={KUBERNETES_IO_B: 10})]),
                 [usage()], None, unresolvable(f"Insufficient {KUBERNETES_IO_B}"),
                 [IR(KUBERNETES_IO_B, f"Insufficient {KUBERNETES_IO_B}", 10, 0, 0, True)],
                 id="kubernetes.io resource capacity enforced for init container"),
    pytest.param(resource_pod(usage(1, 1, scalars={HUGE_PAGE_A: 10})),
                 [usage(scalars={HUGE_PAGE_A: 0})], None,
                 unresolvable(f"Insufficient {HUGE_PAGE_A}"),
                 [IR(HUGE_PAGE_A, f"Insufficient {HUGE_PAGE_A}", 10, 0, 5, True)],
                 id="hugepages resource capacity enforced"),
    pytest.param(resource_pod(usage(), init=[usage(1, 1, scalars={HUGE_PAGE_A: 10})]),
                 [usage(scalars={HUGE_PAGE_A: 0})], None,
                 unresolvable(f"Insufficient {HUGE_PAGE_A}"),
                 [IR(HUGE_PAGE_A, f"Insufficient {HUGE_PAGE_A}", 10, 0, 5, True)],
                 id="hugepages resource capacity enforced for init container"),
    pytest.param(resource_pod(usage(1, 1, scalars={HUGE_PAGE_A: 3}),
                              usage(1, 1, scalars={HUGE_PAGE_A: 3})),
                 [usage(scalars={HUGE_PAGE_A: 2})], None,
                 unresolvable(f"Insufficient {HUGE_PAGE_A}"),
                 [IR(HUGE_PAGE_A, f"Insufficient {HUGE_PAGE_A}", 6, 2, 5, True)],
                 id="hugepages resource allocatable enforced for multiple containers"),
    pytest.param(resource_pod(usage(1, 1, scalars={EXTENDED_B: 1})), [usage()],
                 {"ignoredResources": [EXTENDED_B]}, None, [],
                 id="skip checking ignored extended resource"),
    pytest.param(resource_pod(usage(1, 1), overhead={"cpu": "3m", "memory": "13"}),
                 [usage(5, 5)], None, None, [], id="resources + pod overhead fits"),
    pytest.param(resource_pod(usage(1, 1), overhead={"cpu": "1m", "memory": "15"}),
                 [usage(5, 5)], None, unschedulable(MEM), [IR("memory", MEM, 16, 5, 20)],
                 id="requests + overhead does not fit for memory"),
    pytest.param(resource_pod(usage(1, 1, scalars={EXTENDED_B: 1, KUBERNETES_IO_A: 1})),
                 [usage()], {"ignoredResourceGroups": ["example.com"]},
                 unresolvable(f"Insufficient {KUBERNETES_IO_A}"),
                 [IR(KUBERNETES_IO_A, f"Insufficient {KUBERNETES_IO_A}", 1, 0, 0, True)],
                 id="skip checking ignored extended resource via resource groups"),
    pytest.param(resource_pod(usage(1, 1, scalars={EXTENDED_A: 0})),
                 [usage(scalars={EXTENDED_A: 6})], None, None, [],
                 id="skip checking extended resource request with quantity zero via resource "
                    "groups"),
    pytest.param(resource_pod(usage(scalars={EXTENDED_A: 1})),
                 [usage(20, 30, scalars={EXTENDED_A: 1})], None, None, [],
                 id="skip checking resource request with quantity zero"),
]


@pytest.mark.parametrize("pod,existing,args,want_status,want_insufficient", ENOUGH_CASES)
def test_enough_requests(pod, existing, args, want_status, want_insufficient):
    ni = node_info(ENOUGH_NODE, *(resource_pod(u, name=f"e{i}") for i, u in enumerate(existing)))
    assert_status(run_filter(pod, ni, args), want_status)
    plugin = fit.new(fit.default_args(args or {}), None)
    request = fit.compute_pod_request(pod, plugin.ignored_resources,
                                      plugin.ignored_resource_groups)
    assert fit.fits_request(request, ni) == want_insufficient


def test_filter_without_pre_filter_is_an_error():
    plugin = fit.new(fit.default_args({}), None)
    status = plugin.filter(CycleState(), resource_pod(), node_info({}))
    assert status.code == Code.ERROR


NOT_ENOUGH_NODE = allocatable(10, 20, 1, 0, 0, 0)


@pytest.mark.parametrize("pod,existing", [
    pytest.param(resource_pod(), usage(10, 20),
                 id="even without specified resources, predicate fails when there's no space "
                    "for additional pod"),
    pytest.param(resource_pod(usage(1, 1)), usage(5, 5),
                 id="even if both resources fit, predicate fails when there's no space for "
                    "additional pod"),
    pytest.param(resource_pod(usage(5, 1)), usage(5, 19),
                 id="even for equal edge case, predicate fails when there's no space for "
                    "additional pod"),
    pytest.param(resource_pod(usage(5, 1), init=[usage(5, 1)]), usage(5, 19),
                 id="even for equal edge case, predicate fails when there's no space for "
                    "additional pod due to init container"),
])
def test_not_enough_requests(pod, existing):
    ni = node_info(NOT_ENOUGH_NODE, resource_pod(existing, name="e"))
    assert_status(run_filter(pod, ni), unschedulable("Too many pods"))


@pytest.mark.parametrize("pod,existing,want", [
    pytest.param(resource_pod(usage(1, 1)), usage(2, 10), None,
                 id="empty storage requested, and pod fits"),
    pytest.param(resource_pod(usage(ephemeral=25)), usage(2, 2), unresolvable(EPH),
                 id="storage ephemeral local storage request exceeds allocatable"),
    pytest.param(resource_pod(usage(ephemeral=5)), usage(2, 2, ephemeral=10), None,
                 id="ephemeral local storage is sufficient"),
    pytest.param(resource_pod(usage(ephemeral=10)), usage(2, 2), None, id="pod fits"),
    pytest.param(resource_pod(usage(ephemeral=15)), usage(2, 2, ephemeral=10),
                 unschedulable(EPH),
                 id="ephemeral storage request exceeds what is left but not the node"),
])
def test_storage_requests(pod, existing, want):
    ni = node_info(ENOUGH_NODE, resource_pod(existing, name="e"))
    assert_status(run_filter(pod, ni), want)


def _sidecar_pod(request: str | None, sidecar_request: str | None):
    spec = {"containers": [{"name": "regular"}],
            "initContainers": [{"name": "restartable-init", "restartPolicy": "Always"}]}
    if request is not None:
        spec["containers"][0]["resources"] = {"requests": {"cpu": request}}
    if sidecar_request is not None:
        spec["initContainers"][0]["resources"] = {"requests": {"cpu": sidecar_request}}
    return PodInfo({"metadata": {"name": "p"}, "spec": spec})


@pytest.mark.parametrize("pod,want", [
    pytest.param(resource_pod(), None,
                 id="allow pod without restartable init containers if sidecar containers is "
                    "enabled"),
    pytest.param(_sidecar_pod(None, None), None,
                 id="allow pod with restartable init containers if sidecar containers is "
                    "enabled"),
    pytest.param(_sidecar_pod("1m", "1m"), None,
                 id="allow pod if the total requested resources do not exceed the node's "
                    "allocatable resources"),
    pytest.param(_sidecar_pod("1m", "2m"), unresolvable(CPU),
                 id="not allow pod if the total requested resources do exceed the node's "
                    "allocatable resources"),
])
def test_restartable_init_containers(pod, want):
    ni = node_info(allocatable(2, 0, 1, 0, 0, 0))
    assert_status(run_filter(pod, ni), want)


def test_pod_count_and_resources_are_all_reported():
    ni = node_info(allocatable(10, 20, 1, 5, 20, 5), resource_pod(usage(5, 5), name="e"))
    pod = resource_pod(usage(6, 16, scalars={EXTENDED_A: 6}))
    assert_status(run_filter(pod, ni), unresolvable(
        "Too many pods", CPU, MEM, f"Insufficient {EXTENDED_A}"))


def test_requests_given_only_as_limits_count_as_requests():
    pod = PodInfo({"metadata": {"name": "p"}, "spec": {"containers": [
        {"name": "c", "resources": {"limits": {"cpu": "11m"}}}]}})
    assert_status(run_filter(pod, node_info(ENOUGH_NODE)), unresolvable(CPU))


# --- Score -----------------------------------------------------------------------------------
FIT_NODES = [st_node("node1", {"cpu": "4000", "memory": "10000"}),
             st_node("node2", {"cpu": "6000", "memory": "10000"})]
FIT_EXISTING = [st_pod({"cpu": "2000", "memory": "4000"}, name="e1", node_name="node1"),
                st_pod({"cpu": "1000", "memory": "2000"}, name="e2", node_name="node2")]
SIDECAR_NODES = [st_node("node1", {"cpu": "4000", "memory": "10000"}),
                 st_node("node2", {"cpu": "4000", "memory": "10000"})]
SIDECAR_EXISTING = [
    st_pod({"cpu": "1000", "memory": "2000"}, name="e1", node_name="node1",
           sidecar={"cpu": "1000", "memory": "2000"}),
    st_pod({"cpu": "1000", "memory": "2000"}, name="e2", node_name="node2")]


def _strategy(kind, shape=None):
    strategy = {"type": kind, "resources": DEFAULT_RESOURCES}
    if shape is not None:
        strategy["requestedToCapacityRatio"] = {"shape": shape}
    return {"scoringStrategy": strategy}


RTCR_SHAPE_1 = [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]
RTCR_SHAPE_2 = [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]
SMALL = {"cpu": "1000", "memory": "2000"}
LARGE = {"cpu": "3000", "memory": "5000"}


@pytest.mark.parametrize("pod,nodes,existing,args,run_pre_score,want", [
    pytest.param(st_pod(LARGE), FIT_NODES, FIT_EXISTING,
                 _strategy("RequestedToCapacityRatio", RTCR_SHAPE_1), True, [10, 32],
                 id="test case for ScoringStrategy RequestedToCapacityRatio case1"),
    pytest.param(st_pod(LARGE), FIT_NODES, FIT_EXISTING,
                 _strategy("RequestedToCapacityRatio", RTCR_SHAPE_2), True, [95, 68],
                 id="test case for ScoringStrategy RequestedToCapacityRatio case2"),
    pytest.param(st_pod(SMALL), FIT_NODES, FIT_EXISTING, _strategy("MostAllocated"), True,
                 [67, 36], id="test case for ScoringStrategy MostAllocated"),
    pytest.param(st_pod(SMALL), FIT_NODES, FIT_EXISTING, _strategy("LeastAllocated"), True,
                 [32, 63], id="test case for ScoringStrategy LeastAllocated"),
    pytest.param(st_pod(LARGE), FIT_NODES, FIT_EXISTING,
                 _strategy("RequestedToCapacityRatio", RTCR_SHAPE_1), False, [10, 32],
                 id="test case for ScoringStrategy RequestedToCapacityRatio case1 if PreScore "
                    "is not called"),
    pytest.param(st_pod(SMALL), FIT_NODES, FIT_EXISTING, _strategy("MostAllocated"), False,
                 [67, 36], id="test case for ScoringStrategy MostAllocated if PreScore is not "
                              "called"),
    pytest.param(st_pod(SMALL), FIT_NODES, FIT_EXISTING, _strategy("LeastAllocated"), False,
                 [32, 63], id="test case for ScoringStrategy LeastAllocated if PreScore is not "
                              "called"),
    pytest.param(st_pod(SMALL), SIDECAR_NODES, SIDECAR_EXISTING, _strategy("MostAllocated"),
                 True, [67, 45],
                 id="test case for ScoringStrategy MostAllocated with sidecar container"),
    pytest.param(st_pod(SMALL), SIDECAR_NODES, SIDECAR_EXISTING, _strategy("LeastAllocated"),
                 True, [32, 55],
                 id="test case for ScoringStrategy LeastAllocated with sidecar container"),
])
def test_fit_score(pod, nodes, existing, args, run_pre_score, want):
    plugin = fit.new(fit.default_args(args), None)
    got = scores(plugin, pod, nodes, existing, run_pre_score)
    assert [s for _, s in got] == want


def test_fit_has_no_normalize_score_and_registers_resource_events():
    plugin = fit.new(fit.default_args({}), None)
    assert plugin.score_extensions() is None
    assert plugin.pre_filter_extensions() is None
    assert plugin.events_to_register() == {"AssignedPodDelete", "NodeAdd", "NodeUpdate"}


# --- Args ------------------------------------------------------------------------------------
def test_default_args_are_least_allocated_over_cpu_and_memory():
    assert fit.default_args({}) == {"scoringStrategy": {
        "type": "LeastAllocated", "resources": DEFAULT_RESOURCES}}


def test_default_args_fill_resources_and_zero_weights():
    args = fit.default_args({"scoringStrategy": {"type": "MostAllocated"}})
    assert args["scoringStrategy"]["resources"] == DEFAULT_RESOURCES
    args = fit.default_args({"scoringStrategy": {
        "type": "MostAllocated", "resources": [{"name": "cpu"}, {"name": "gpu", "weight": 0}]}})
    assert args["scoringStrategy"]["resources"] == [{"name": "cpu", "weight": 1},
                                                    {"name": "gpu", "weight": 1}]


LEAST = {"type": "LeastAllocated", "resources": DEFAULT_RESOURCES}


@pytest.mark.parametrize("args,want", [
    pytest.param({"ignoredResources": ["longvalue" + "a" * 64], "scoringStrategy": LEAST},
                 "name part must be no more than 63 characters",
                 id="IgnoredResources: too long value"),
    pytest.param({"ignoredResources": ["example.com/"], "scoringStrategy": LEAST},
                 "name part must be non-empty", id="IgnoredResources: name is empty"),
    pytest.param({"ignoredResources": ["example.com/aaa/bbb"], "scoringStrategy": LEAST},
                 "a qualified name must consist of alphanumeric characters",
                 id="IgnoredResources: name has too many slash"),
    pytest.param({"ignoredResources": ["example.com"], "scoringStrategy": LEAST}, None,
                 id="IgnoredResources: valid args"),
    pytest.param({"ignoredResourceGroups": ["example.com"], "scoringStrategy": LEAST}, None,
                 id="IgnoredResourceGroups: valid args"),
    pytest.param({"ignoredResourceGroups": ["example.com/"], "scoringStrategy": LEAST},
                 "name part must be non-empty", id="IgnoredResourceGroups: illegal args"),
    pytest.param({"ignoredResourceGroups": ["a" * 64], "scoringStrategy": LEAST},
                 "name part must be no more than 63 characters",
                 id="IgnoredResourceGroups: name is too long"),
    pytest.param({"ignoredResourceGroups": ["example.com/aa"], "scoringStrategy": LEAST},
                 "resource group name can't contain '/'",
                 id="IgnoredResourceGroups: name cannot be contain slash"),
    pytest.param({"scoringStrategy": {"type": "Invalid"}}, 'Unsupported value: "Invalid"',
                 id="ScoringStrategy: type is unsupported"),
])
def test_validate_fit_args(args, want):
    errs = fit.validate_args(args, "")
    if want is None:
        assert errs == []
    else:
        assert any(want in e for e in errs), errs


def test_validate_fit_args_messages_are_worded_as_kube_scheduler():
    errs = fit.validate_args({"ignoredResourceGroups": ["example.com/aa"],
                              "scoringStrategy": {"type": "Invalid", "resources": [
                                  {"name": "cpu", "weight": 0}]}}, "args")
    assert errs == [
        ("args.ignoredResourceGroups[0]: Invalid value: \"example.com/aa\": resource group name "
         "can't contain '/'"),
        ("args.scoringStrategy.type: Unsupported value: \"Invalid\": supported values: "
         "\"LeastAllocated\", \"MostAllocated\", \"RequestedToCapacityRatio\""),
        ("args.scoringStrategy.resources[0].weight: Invalid value: 0: resource weight of cpu not "
         "in valid range (0, 100]"),
    ]
    errs = fit.validate_args({"ignoredResources": ["example.com/aaa/bbb"]}, "")
    assert errs == [
        ("ignoredResources[0]: Invalid value: \"example.com/aaa/bbb\": a qualified name must "
         "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
         "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
         "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS "
         "subdomain prefix and '/' (e.g. 'example.com/MyName')")]


def _weights(*weights):
    return [{"name": n, "weight": w} for n, w in zip(("cpu", "memory"), weights, strict=False)]


@pytest.mark.parametrize("kind", ["LeastAllocated", "MostAllocated"])
@pytest.mark.parametrize("resources,want_fields", [
    pytest.param(None, [], id="default config"),
    pytest.param(_weights(1, 10), [], id="multi valid resources"),
    pytest.param(_weights(0), ["scoringStrategy.resources[0].weight"], id="weight less than min"),
    pytest.param(_weights(101), ["scoringStrategy.resources[0].weight"],
                 id="weight greater than max"),
    pytest.param(_weights(0, 101), ["scoringStrategy.resources[0].weight",
                                    "scoringStrategy.resources[1].weight"],
                 id="multi invalid resources"),
])
def test_validate_allocated_scoring_strategy(kind, resources, want_fields):
    errs = fit.validate_args({"scoringStrategy": {"type": kind, "resources": resources}}, "")
    assert [e.split(":")[0] for e in errs] == want_fields
    assert all(": Invalid value: " in e for e in errs)


DEFAULT_SHAPE = [{"utilization": 30, "score": 3}]


def _shape(*points):
    return [{"utilization": u, "score": s} for u, s in points]


@pytest.mark.parametrize("resources,shape,want", [
    pytest.param(None, None, [("scoringStrategy.shape: Required value: at least one point must "
                               "be specified")], id="no shapes"),
    pytest.param(_weights(101), DEFAULT_SHAPE, [
        ("scoringStrategy.resources[0].weight: Invalid value: 101: resource weight of cpu not in "
         "valid range (0, 100]")], id="weight greater than max"),
    pytest.param(_weights(0), DEFAULT_SHAPE, [
        ("scoringStrategy.resources[0].weight: Invalid value: 0: resource weight of cpu not in "
         "valid range (0, 100]")], id="weight less than min"),
    pytest.param(None, DEFAULT_SHAPE, [], id="valid shapes"),
    pytest.param(None, _shape((-1, 3)), [
        "scoringStrategy.shape[0].utilization: Invalid value: -1: not in valid range [0, 100]"],
        id="utilization less than min"),
    pytest.param(None, _shape((101, 3)), [
        "scoringStrategy.shape[0].utilization: Invalid value: 101: not in valid range [0, 100]"],
        id="utilization greater than max"),
    pytest.param(None, _shape((10, 3), (10, 3)), [
        ("scoringStrategy.shape[1].utilization: Invalid value: 10: values must be sorted in "
         "increasing order")], id="duplicated utilization values"),
    pytest.param(None, _shape((10, 3), (20, 3), (30, 3)), [],
                 id="increasing utilization values"),
    pytest.param(None, _shape((10, 3), (20, 3), (15, 3)), [
        ("scoringStrategy.shape[2].utilization: Invalid value: 15: values must be sorted in "
         "increasing order")], id="non-increasing utilization values"),
    pytest.param(None, _shape((10, -1)), [
        "scoringStrategy.shape[0].score: Invalid value: -1: not in valid range [0, 10]"],
        id="score less than min"),
    pytest.param(None, _shape((10, 11)), [
        "scoringStrategy.shape[0].score: Invalid value: 11: not in valid range [0, 10]"],
        id="score greater than max"),
])
def test_validate_requested_to_capacity_ratio_scoring_strategy(resources, shape, want):
    args = {"scoringStrategy": {"type": "RequestedToCapacityRatio", "resources": resources,
                                "requestedToCapacityRatio": {"shape": shape}}}
    assert fit.validate_args(args, "") == want


def test_requested_to_capacity_ratio_without_parameters_is_rejected():
    args = fit.default_args({"scoringStrategy": {"type": "RequestedToCapacityRatio"}})
    assert fit.validate_args(args, "p") == [
        "p.scoringStrategy.shape: Required value: at least one point must be specified"]


def test_new_rejects_invalid_args():
    with pytest.raises(ConfigError, match="resources\\[0\\].weight"):
        fit.new({"scoringStrategy": {"type": "LeastAllocated",
                                     "resources": [{"name": "cpu", "weight": -1}]}}, None)


def test_non_integer_weights_are_rejected_while_defaulting():
    with pytest.raises(TypeError):
        fit.default_args({"scoringStrategy": {"type": "LeastAllocated",
                                              "resources": [{"name": "cpu", "weight": "x"}]}})
