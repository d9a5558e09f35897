"""NodeResourcesBalancedAllocation, ported from balanced_allocation_test.go."""
from __future__ import annotations

import pytest

from scheduler_core.errors import ConfigError
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.snapshot import Snapshot
from scheduler_core.plugins.noderesources import balanced_allocation as ba
from scheduler_core.testing.noderesources import make_node, scores, st_pod

GPU = "nvidia.com/gpu"
DEFAULT_SET = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
WITH_GPU = DEFAULT_SET + [{"name": GPU, "weight": 1}]
SCALAR = {GPU: 8}

CPU_ONLY = ({"cpu": "1000m", "memory": "0"}, {"cpu": "2000m", "memory": "0"})
CPU_AND_MEMORY = ({"cpu": "1000m", "memory": "2000"}, {"cpu": "2000m", "memory": "3000"})
CPU_AND_MEMORY_AND_GPU = ({"cpu": "1000m", "memory": "2000"},
                          {"cpu": "2000m", "memory": "3000", GPU: "3"})


def cpu_only(node="node1", name="cpu-only"):
    return st_pod(*CPU_ONLY, name=name, node_name=node)


def cpu_and_memory(node="node2", name="cpu-and-memory"):
    return st_pod(*CPU_AND_MEMORY, name=name, node_name=node)


def plugin_for(resources):
    return ba.new(ba.default_args({"resources": resources}), None)


def nodes(*specs):
    return [make_node(f"node{i + 1}", cpu, mem, ext) for i, (cpu, mem, ext) in enumerate(specs)]


SCORE_CASES = [
    pytest.param(cpu_and_memory(), nodes((4000, 10000, None), (6000, 10000, None)), [],
                 DEFAULT_SET, True, [87, 100],
                 id="nothing scheduled, resources requested, differently sized nodes"),
    pytest.param(cpu_and_memory(), nodes((10000, 20000, None), (10000, 20000, None)),
                 [cpu_only(), cpu_and_memory(name="e2")], DEFAULT_SET, True, [82, 95],
                 id="resources requested, pods scheduled with resources"),
    pytest.param(cpu_and_memory(), nodes((10000, 20000, None), (10000, 50000, None)),
                 [cpu_only(), cpu_and_memory(name="e2")], DEFAULT_SET, True, [82, 80],
                 id="resources requested, pods scheduled with resources, differently sized "
                    "nodes"),
    pytest.param(cpu_only(node=""), nodes((6000, 10000, None), (6000, 10000, None)),
                 [cpu_only(name="e1"), cpu_and_memory(name="e2")], DEFAULT_SET, True, [50, 75],
                 id="requested resources at node capacity"),
    pytest.param(st_pod({"memory": "0", GPU: "1"}),
                 nodes((3500, 40000, SCALAR), (3500, 40000, SCALAR)),
                 [cpu_and_memory(name="e1"),
                  st_pod(*CPU_AND_MEMORY_AND_GPU, name="e2", node_name="node1")],
                 WITH_GPU, True, [70, 65],
                 id="include scalar resource on a node for balanced resource allocation"),
    pytest.param(cpu_and_memory(), nodes((3500, 40000, SCALAR), (3500, 40000, None)), [],
                 WITH_GPU, True, [63, 63],
                 id="node without the scalar resource should skip the scalar resource"),
    pytest.param(cpu_and_memory(), nodes((10000, 20000, None), (10000, 20000, None)),
                 [cpu_only(), cpu_and_memory(name="e2")], DEFAULT_SET, False, [82, 95],
                 id="resources requested, pods scheduled with resources if PreScore not called"),
    pytest.param(st_pod({"cpu": "1000m"}), nodes((4000, 10000, None), (4000, 10000, None)),
                 [cpu_and_memory(node="node1", name="e1")], DEFAULT_SET, True, [75, 87],
                 id="a pod requesting only cpu is not best-effort and is scored"),
]


@pytest.mark.parametrize("pod,node_list,existing,resources,run_pre_score,want", SCORE_CASES)
def test_node_resources_balanced_allocation(pod, node_list, existing, resources, run_pre_score,
                                            want):
    got = scores(plugin_for(resources), pod, node_list, existing, run_pre_score)
    assert [s for _, s in got] == want


BEST_EFFORT_CASES = [
    pytest.param(nodes((4000, 10000, None), (4000, 10000, None)), [],
                 id="nothing scheduled, nothing requested, skip in PreScore"),
    pytest.param(nodes((10000, 20000, None), (10000, 20000, None)),
                 [cpu_only(), cpu_only(name="e2"), cpu_only(node="node2", name="e3"),
                  cpu_and_memory(name="e4")],
                 id="no resources requested, pods scheduled with resources, skip in PreScore"),
    pytest.param(nodes((0, 0, None), (0, 0, None)), [cpu_only(), cpu_and_memory(name="e2")],
                 id="zero node resources, pods scheduled with resources, skip in PreScore"),
    pytest.param(nodes((3500, 40000, SCALAR), (3500, 40000, None)),
                 [cpu_only(), cpu_only(node="node2", name="e2")],
                 id="node without the scalar resource, nothing requested, skip in PreScore"),
]


@pytest.mark.parametrize("node_list,existing", BEST_EFFORT_CASES)
def test_best_effort_pods_skip_balanced_allocation(node_list, existing):
    plugin = plugin_for(DEFAULT_SET)
    snapshot = Snapshot.from_objects(node_list, existing)
    pod = st_pod(containers=1)
    status = plugin.pre_score(CycleState(), pod, snapshot.list())
    assert status is not None and status.is_skip()
    # Without PreScore, Score gives best-effort pods a flat 0 everywhere.
    assert [plugin.score(CycleState(), pod, ni) for ni in snapshot.list()] == [(0, None)] * 2


@pytest.mark.parametrize("requested,allocatable,want", [
    pytest.param([3000, 5000], [4000, 10000], 87, id="two resources use half their difference"),
    pytest.param([6000, 5000], [6000, 10000], 75, id="fractions are capped at one"),
    pytest.param([1, 2], [0, 0], 100, id="no resource on the node scores full"),
    pytest.param([3000, 5000, 4], [3500, 40000, 8], 70,
                 id="three resources use the standard deviation"),
    pytest.param([3000, 5000, 0], [3500, 40000, 0], 63,
                 id="a skipped resource leaves two fractions"),
])
def test_balanced_resource_scorer(requested, allocatable, want):
    assert ba.balanced_resource_scorer(requested, allocatable) == want


def test_default_args_are_cpu_and_memory_with_weight_one():
    assert ba.default_args({}) == {"resources": DEFAULT_SET}
    assert ba.default_args({"resources": [{"name": GPU}]}) == {
        "resources": [{"name": GPU, "weight": 1}]}


@pytest.mark.parametrize("resources,want", [
    pytest.param(DEFAULT_SET, [], id="valid config"),
    pytest.param([{"name": "cpu", "weight": 2}, {"name": "memory", "weight": 1}],
                 ["p.resources[0].weight: Invalid value: 2: must be 1"], id="invalid config"),
    pytest.param([{"name": "cpu", "weight": 1}, {"name": "cpu", "weight": 1}],
                 ['p.resources[1].name: Duplicate value: "cpu"'], id="repeated resources"),
])
def test_validate_node_resources_balanced_allocation_args(resources, want):
    assert ba.validate_args({"resources": resources}, "p") == want


def test_new_rejects_invalid_args():
    with pytest.raises(ConfigError, match="must be 1"):
        ba.new({"resources": [{"name": "cpu", "weight": 3}]}, None)


def test_balanced_allocation_only_scores():
    plugin = plugin_for(DEFAULT_SET)
    assert plugin.score_extensions() is None
    assert not hasattr(plugin, "filter")
