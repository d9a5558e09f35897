"""MostAllocated scoring, ported from most_allocated_test.go."""
from __future__ import annotations

import pytest

from scheduler_core.framework.status import Code
from scheduler_core.testing.noderesources import (
    DEFAULT_RESOURCES,
    EXTENDED_RES,
    EXTENDED_RESOURCE_SET,
    TWO_REQS,
    cap,
    on,
    rejected_fields,
    scores,
    st_pod,
    strategy_plugin,
    unconfigured_scores,
)
from scheduler_core.testing.noderesources import cap_nodes as nodes

CASES = [
    pytest.param(st_pod(), nodes(cap(4000, 10000), cap(4000, 10000)), [], DEFAULT_RESOURCES,
                 [0, 0], id="nothing scheduled, nothing requested"),
    pytest.param(st_pod(*TWO_REQS), nodes(cap(4000, 10000), cap(6000, 10000)), [],
                 DEFAULT_RESOURCES, [62, 50],
                 id="nothing scheduled, resources requested, differently sized nodes"),
    pytest.param(st_pod(), nodes(cap(10000, 20000), cap(10000, 20000)),
                 [on("node1", 3000, 0, "a"), on("node1", 3000, 0, "b"),
                  on("node2", 3000, 0, "c"), on("node2", 3000, 5000, "d")],
                 DEFAULT_RESOURCES, [30, 42],
                 id="no resources requested, pods scheduled with resources"),
    pytest.param(st_pod(*TWO_REQS), nodes(cap(10000, 20000), cap(10000, 20000)),
                 [on("node1", 3000, 0, "a"), on("node2", 3000, 5000, "b")],
                 DEFAULT_RESOURCES, [42, 55],
                 id="resources requested, pods scheduled with resources"),
    pytest.param(st_pod({"cpu": "2000", "memory": "4000"}, {"cpu": "3000", "memory": "5000"}),
                 nodes(cap(5000, 10000), cap(10000, 9000)), [], DEFAULT_RESOURCES, [95, 75],
                 id="resources requested equal node capacity"),
    pytest.param(st_pod(*TWO_REQS), nodes(cap(4000, 10000), cap(6000, 10000)), [],
                 [{"name": "memory", "weight": 2}, {"name": "cpu", "weight": 1}], [58, 50],
                 id="nothing scheduled, resources requested with different weight on CPU and "
                    "memory, differently sized nodes"),
    pytest.param(st_pod(containers=1), nodes({"cpu": "250m", "memory": "1000Mi"},
                                             {"cpu": "250m", "memory": "1000Mi"}),
                 [st_pod(name="a", node_name="node1", containers=1),
                  st_pod(name="b", node_name="node1", containers=1)],
                 DEFAULT_RESOURCES, [80, 30],
                 id="no resources requested, pods scheduled, nonzero request for resource"),
    pytest.param(st_pod(*TWO_REQS), nodes(cap(6000, 10000), cap(6000, 10000, 4)), [],
                 EXTENDED_RESOURCE_SET, [50, 50],
                 id="bypass extended resource if the pod does not request"),
    pytest.param(st_pod({"cpu": "3000", "memory": "5000", EXTENDED_RES: "2"}, node_name="node1"),
                 nodes(cap(6000, 10000, 4), cap(6000, 10000, 10)), [], EXTENDED_RESOURCE_SET,
                 [50, 40], id="honor extended resource if the pod request"),
    pytest.param(st_pod({"cpu": "3000", "memory": "4000"}, node_name="node1"),
                 nodes(cap(6000, 10000), cap(6000, 10000, 4)), [],
                 [{"name": EXTENDED_RES, "weight": 2}, {"name": "cpu", "weight": 1},
                  {"name": "memory", "weight": 1}], [45, 45],
                 id="if the node doesn't have a resource"),
]


@pytest.mark.parametrize("pod,node_list,existing,resources,want", CASES)
def test_most_allocated_scoring_strategy(pod, node_list, existing, resources, want):
    got = scores(strategy_plugin("MostAllocated", resources), pod, node_list, existing)
    assert [s for _, s in got] == want


def test_resources_not_set_is_an_error_with_minimal_scores():
    for score, status in unconfigured_scores("MostAllocated"):
        assert (score, status.code) == (0, Code.ERROR)


@pytest.mark.parametrize("resources,field", [
    pytest.param([{"name": "memory", "weight": -1}, {"name": "cpu", "weight": 1}],
                 "scoringStrategy.resources[0].weight", id="resource with negative weight"),
    pytest.param([{"name": "memory", "weight": 1}, {"name": "cpu", "weight": 0}],
                 "scoringStrategy.resources[1].weight", id="resource with zero weight"),
    pytest.param([{"name": "memory", "weight": 101}],
                 "scoringStrategy.resources[0].weight",
                 id="resource weight larger than MaxNodeScore"),
])
def test_invalid_weights_are_rejected(resources, field):
    assert rejected_fields("MostAllocated", resources) == [field]
