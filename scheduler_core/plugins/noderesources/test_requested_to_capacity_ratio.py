"""RequestedToCapacityRatio scoring, ported from requested_to_capacity_ratio_test.go."""
from __future__ import annotations

import pytest

from scheduler_core.plugins.helper import build_broken_linear_function
from scheduler_core.plugins.noderesources import fit
from scheduler_core.testing.noderesources import (
    DEFAULT_RESOURCES,
    TWO_REQS,
    make_node,
    scores,
    st_node,
    st_pod,
)

SHAPE = [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]
BIN_PACKING_SHAPE = [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 1}]


def plugin_for(resources, shape):
    return fit.new({"scoringStrategy": {"type": "RequestedToCapacityRatio",
                                        "resources": resources,
                                        "requestedToCapacityRatio": {"shape": shape}}}, None)


def nodes(*caps):
    return [st_node(f"node{i + 1}", {"cpu": str(c), "memory": str(m)})
            for i, (c, m) in enumerate(caps)]


@pytest.mark.parametrize("pod,node_list,existing,want", [
    pytest.param(st_pod(), nodes((4000, 10000), (4000, 10000)),
                 [st_pod(name="a", node_name="node1"), st_pod(name="b", node_name="node1")],
                 [100, 100],
                 id="nothing scheduled, nothing requested (default - least requested nodes have "
                    "priority)"),
    pytest.param(st_pod(*TWO_REQS), nodes((4000, 10000), (6000, 10000)),
                 [st_pod(name="a", node_name="node1"), st_pod(name="b", node_name="node1")],
                 [38, 50],
                 id="nothing scheduled, resources requested, differently sized nodes (default - "
                    "least requested nodes have priority)"),
    pytest.param(st_pod(), nodes((4000, 10000), (6000, 10000)),
                 [st_pod({"cpu": "3000", "memory": "5000"}, name="a", node_name="node1"),
                  st_pod({"cpu": "3000", "memory": "5000"}, name="b", node_name="node2")],
                 [38, 50],
                 id="no resources requested, pods scheduled with resources (default - least "
                    "requested nodes have priority)"),
])
def test_requested_to_capacity_ratio_scoring_strategy(pod, node_list, existing, want):
    got = scores(plugin_for(DEFAULT_RESOURCES, SHAPE), pod, node_list, existing)
    assert [s for _, s in got] == want


@pytest.mark.parametrize("points,assertions", [
    pytest.param([(10, 1), (90, 9)],
                 [(-10, 1), (0, 1), (9, 1), (10, 1), (15, 1), (19, 1), (20, 2), (89, 8), (90, 9),
                  (99, 9), (100, 9), (110, 9)], id="rising shape clamps at both ends"),
    pytest.param([(0, 2), (40, 10), (100, 0)],
                 [(-10, 2), (0, 2), (20, 6), (30, 8), (40, 10), (70, 5), (100, 0), (110, 0)],
                 id="rising then falling shape"),
    pytest.param([(0, 2), (40, 2), (100, 2)],
                 [(-10, 2), (0, 2), (20, 2), (30, 2), (40, 2), (70, 2), (100, 2), (110, 2)],
                 id="flat shape"),
])
def test_broken_linear_function(points, assertions):
    fn = build_broken_linear_function(points)
    assert [fn(p) for p, _ in assertions] == [want for _, want in assertions]


def test_broken_linear_function_truncates_negative_slopes_toward_zero():
    # 100 - 25% of the way down from 100 to 0 is 75; 100 - 2.5 truncates to 98, not 97.
    fn = build_broken_linear_function([(0, 100), (100, 0)])
    assert [fn(25), fn(66), fn(70)] == [75, 34, 30]
    assert build_broken_linear_function([(0, 10), (100, 0)])(25) == 8


FOO, BAR = "intel.com/foo", "intel.com/bar"


def _gib_node(name, extended):
    return make_node(name, 4000, 10000 * 1024 * 1024, extended)


SINGLE_NODES = [_gib_node("node1", {FOO: 8}), _gib_node("node2", {FOO: 4})]


@pytest.mark.parametrize("pod,existing,want", [
    pytest.param(st_pod(), [], [0, 0], id="nothing scheduled, nothing requested"),
    pytest.param(st_pod({FOO: "2"}), [st_pod(name="e")], [2, 5],
                 id="resources requested, pods scheduled with less resources"),
    pytest.param(st_pod({FOO: "2"}), [st_pod({FOO: "2"}, name="e", node_name="node2")], [2, 10],
                 id="resources requested, pods scheduled with resources, on node with existing "
                    "pod running"),
    pytest.param(st_pod({FOO: "4"}), [st_pod(name="e")], [5, 10],
                 id="resources requested, pods scheduled with more resources"),
])
def test_resource_bin_packing_single_extended(pod, existing, want):
    plugin = plugin_for([{"name": FOO, "weight": 1}], BIN_PACKING_SHAPE)
    assert [s for _, s in scores(plugin, pod, SINGLE_NODES, existing)] == want


MULTI_NODES = [_gib_node("node1", {FOO: 8, BAR: 4}), _gib_node("node2", {FOO: 4, BAR: 8})]


@pytest.mark.parametrize("pod,existing,want", [
    pytest.param(st_pod(), [], [0, 0], id="nothing scheduled, nothing requested"),
    pytest.param(st_pod({FOO: "2", BAR: "2"}), [st_pod(name="e")], [4, 3],
                 id="resources requested, pods scheduled with less resources"),
    pytest.param(st_pod({FOO: "2", BAR: "2"}),
                 [st_pod({FOO: "4", BAR: "2"}, name="e", node_name="node2")], [4, 7],
                 id="resources requested, pods scheduled with resources, on node with existing "
                    "pod running"),
    pytest.param(st_pod({FOO: "4", BAR: "2"}), [st_pod(name="e")], [5, 5],
                 id="resources requested, pods scheduled with more resources"),
])
def test_resource_bin_packing_multiple_extended(pod, existing, want):
    plugin = plugin_for([{"name": FOO, "weight": 3}, {"name": BAR, "weight": 5}],
                        BIN_PACKING_SHAPE)
    assert [s for _, s in scores(plugin, pod, MULTI_NODES, existing)] == want


@pytest.mark.parametrize("memory,want", [
    pytest.param("35", 2, id="a weighted mean of 2 stays 2"),
    pytest.param("45", 3, id="a weighted mean of 2.5 rounds half away from zero to 3"),
])
def test_weighted_mean_rounds_as_go_math_round(memory, want):
    # Shape 0..1 scales to 0..10: cpu at 10% scores 1, memory at 35% scores 3, at 45% scores 4.
    plugin = plugin_for(DEFAULT_RESOURCES, BIN_PACKING_SHAPE)
    node_list = [st_node("node1", {"cpu": "100", "memory": "100"})]
    pod = st_pod({"cpu": "10", "memory": memory})
    assert [s for _, s in scores(plugin, pod, node_list)] == [want]
