"""LeastAllocated scoring, ported from least_allocated_test.go."""
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


def empty_on(node, name):
    return st_pod(name=name, node_name=node)


CASES = [
    pytest.param(st_pod(), nodes(cap(4000, 10000), cap(4000, 10000)), [], DEFAULT_RESOURCES,
                 [100, 100], id="nothing scheduled, nothing requested"),
    pytest.param(st_pod(*TWO_REQS), nodes(cap(4000, 10000), cap(6000, 10000)), [],
                 DEFAULT_RESOURCES, [37, 50],
                 id="nothing scheduled, resources requested, differently sized nodes"),
    pytest.param(st_pod(), nodes(cap(4000, 10000), cap(4000, 10000)),
                 [empty_on("node1", "a"), empty_on("node1", "b"), empty_on("node2", "c"),
                  empty_on("node2", "d")], DEFAULT_RESOURCES, [100, 100],
                 id="no resources requested, pods scheduled"),
    pytest.param(st_pod(), nodes(cap(10000, 20000), cap(10000, 20000)),
                 [on("node1", 3000, 0, "a"), on("node1", 3000, 0, "b"),
                  on("node2", 3000, 0, "c"), on("node2", 3000, 5000, "d")],
                 DEFAULT_RESOURCES, [70, 57],
                 id="no resources requested, pods scheduled with resources"),
    pytest.param(st_pod(*TWO_REQS), nodes(cap(10000, 20000), cap(10000, 20000)),
                 [on("node1", 3000, 0, "a"), on("node2", 3000, 5000, "b")],
                 DEFAULT_RESOURCES, [57, 45],
                 id="resources requested, pods scheduled with resources"),
    pytest.param(st_pod(*TWO_REQS), nodes(cap(10000, 20000), cap(10000, 50000)),
                 [on("node1", 3000, 0, "a"), on("node2", 3000, 5000, "b")],
                 DEFAULT_RESOURCES, [57, 60],
                 id="resources requested, pods scheduled with resources, differently sized "
                    "nodes"),
    pytest.param(st_pod({"cpu": "3000", "memory": "0"}),
                 nodes(cap(4000, 10000), cap(4000, 10000)),
                 [on("node1", 3000, 0, "a"), on("node2", 3000, 5000, "b")],
                 DEFAULT_RESOURCES, [50, 25], id="requested resources exceed node capacity"),
    pytest.param(st_pod(), nodes(None, None),
                 [on("node1", 3000, 0, "a"), on("node2", 3000, 5000, "b")],
                 DEFAULT_RESOURCES, [0, 0],
                 id="zero node resources, pods scheduled with resources"),
    pytest.param(st_pod(*TWO_REQS, node_name="node1"),
                 nodes(cap(4000, 10000), cap(6000, 10000)), [],
                 [{"name": "memory", "weight": 2}, {"name": "cpu", "weight": 1}], [41, 50],
                 id="nothing scheduled, resources requested with different weight on CPU and "
                    "memory, differently sized nodes"),
    pytest.param(st_pod(*TWO_REQS, node_name="node1"),
                 nodes(cap(6000, 10000), cap(6000, 10000, 4)), [], EXTENDED_RESOURCE_SET,
                 [50, 50], id="bypass extended resource if the pod does not request"),
    pytest.param(st_pod({"cpu": "3000", "memory": "5000", EXTENDED_RES: "2"}, node_name="node1"),
                 nodes(cap(6000, 10000, 4), cap(6000, 10000, 10)), [],
                 EXTENDED_RESOURCE_SET, [50, 60],
                 id="honor extended resource if the pod requests"),
    pytest.param(st_pod({"cpu": "3000", "memory": "4000"}, node_name="node1"),
                 nodes(cap(6000, 10000), cap(6000, 10000, 4)), [],
                 [{"name": EXTENDED_RES, "weight": 2}, {"name": "cpu", "weight": 1},
                  {"name": "memory", "weight": 1}], [55, 55],
                 id="if the node doesn't have a resource"),
]


@pytest.mark.parametrize("pod,node_list,existing,resources,want", CASES)
def test_least_allocated_scoring_strategy(pod, node_list, existing, resources, want):
    got = scores(strategy_plugin("LeastAllocated", resources), pod, node_list, existing)
    assert [s for _, s in got] == want


def test_resources_not_set_is_an_error_with_minimal_scores():
    for score, status in unconfigured_scores("LeastAllocated"):
        assert (score, status.code, status.reasons) == (0, Code.ERROR, ["resources not found"])


@pytest.mark.parametrize("resources,field", [
    pytest.param([{"name": "memory", "weight": -1}, {"name": "cpu", "weight": 1}],
                 "scoringStrategy.resources[0].weight", id="resource with negative weight"),
    pytest.param([{"name": "memory", "weight": 1}, {"name": "cpu", "weight": 0}],
                 "scoringStrategy.resources[1].weight", id="resource with zero weight"),
    pytest.param([{"name": "memory", "weight": 1}, {"name": "cpu", "weight": 101}],
                 "scoringStrategy.resources[1].weight",
                 id="resource weight larger than MaxNodeScore"),
])
def test_invalid_weights_are_rejected(resources, field):
    assert rejected_fields("LeastAllocated", resources) == [field]
