"""Cycles with nominated pods on the columns path against the per-node reference path.

Preemptors of random priorities nominate themselves to nodes while lower-priority pods run
there; later cycles then filter with those nominations (RunFilterPluginsWithNominatedPods), on
the columns everywhere but on the nodes where pods at least as important are nominated, and
there on NodeResourcesFit's sums when it alone looks at the nodes' pods. Whole
runs must give the same bindings, outcomes, messages and JSON trace on both paths, with and
without Score plugins (without them the search stops at the first feasible node, so whether
a nominated node is reached at all matters).
"""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduler_core.columns.test_equivalence import nodes, pods, run
from scheduler_core.testing import make_node, make_pod

# Only Filter plugins decide: numFeasibleNodesToFind is then 1.
FILTER_ONLY = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
               "profiles": [{"schedulerName": "default-scheduler",
                             "plugins": {"score": {"disabled": [{"name": "*"}]}}}]}


@st.composite
def cluster(draw):
    node_list = draw(nodes(count=draw(st.integers(1, 6))))
    for node in node_list:
        # Mostly open nodes with room for a few pods: nominations there often decide.
        if draw(st.integers(0, 3)):
            node["spec"] = {}
        for part in ("allocatable", "capacity"):
            node["status"][part]["pods"] = str(draw(st.integers(2, 8)))
    running = draw(pods("r"))
    for i, manifest in enumerate(running):
        spec = manifest["spec"]
        spec.pop("nodeName", None)
        spec["nodeName"] = node_list[i % len(node_list)]["metadata"]["name"]
        spec["priority"] = draw(st.integers(0, 2))
        spec["terminationGracePeriodSeconds"] = draw(st.sampled_from((0, 5)))
    pending = draw(pods("p", count=draw(st.integers(3, 12))))
    for manifest in pending:
        manifest["spec"]["priority"] = draw(st.integers(0, 5))
        if draw(st.integers(0, 5)) == 0:
            manifest["spec"]["preemptionPolicy"] = "Never"
        if draw(st.integers(0, 3)) == 0:
            # NodePorts has no vectorized Filter: the search walks the nodes for it.
            manifest["spec"]["containers"][0]["ports"] = [{"containerPort": 80,
                                                           "hostPort": 8080}]
        if draw(st.integers(0, 2)) == 0:
            # Nominated already (an earlier scheduler's preemption): counts from the start.
            node = draw(st.sampled_from(node_list))["metadata"]["name"]
            manifest["status"] = {"nominatedNodeName": node}
    if draw(st.booleans()):
        # Without spread, anti-affinity or host ports, NodeResourcesFit alone looks at the
        # nodes' pods: the nominated pods are then added up on its sums.
        for manifest in running + pending:
            spec = manifest["spec"]
            spec.pop("topologySpreadConstraints", None)
            (spec.get("affinity") or {}).pop("podAntiAffinity", None)
            spec["containers"][0].pop("ports", None)
    return node_list, running + pending


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(drawn=cluster(), config=st.sampled_from((None, FILTER_ONLY)), trace=st.booleans())
def test_a_run_with_preemptions_and_nominations_is_the_same_on_both_paths(monkeypatch, drawn,
                                                                         config, trace):
    node_list, manifests = drawn
    reference = run(monkeypatch, "reference", node_list, manifests, trace, config, seed=3)
    vector = run(monkeypatch, "vector", node_list, manifests, trace, config, seed=3)
    assert vector == reference


@st.composite
def open_cluster(draw):
    """Nodes with room for every pod and nothing else rejecting: only the pods nominated to
    some of them (more important than most pending pods) can turn the incoming pod away, so
    the columns search only those nodes twice (PreemptionAsync's cycles)."""
    node_list = [make_node(f"n{i}", labels={"kubernetes.io/hostname": f"n{i}"})
                 for i in range(draw(st.integers(2, 8)))]
    names = [node["metadata"]["name"] for node in node_list]
    manifests = [make_pod(f"p{i}", cpu=f"{draw(st.integers(0, 3000))}m",
                          priority=draw(st.integers(0, 2)))
                 for i in range(draw(st.integers(2, 10)))]
    # Queued after the pods of their priority: those are scheduled while they are nominated.
    for i in range(draw(st.integers(1, 6))):
        manifests.append(make_pod(f"big{i}", cpu=f"{draw(st.integers(1000, 4000))}m",
                                  priority=draw(st.integers(0, 2))))
        manifests[-1]["status"] = {"nominatedNodeName": draw(st.sampled_from(names))}
    return node_list, manifests


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(drawn=open_cluster(), config=st.sampled_from((None, FILTER_ONLY)), trace=st.booleans())
def test_nodes_only_nominations_reject_are_searched_alike_on_both_paths(monkeypatch, drawn,
                                                                       config, trace):
    node_list, manifests = drawn
    reference = run(monkeypatch, "reference", node_list, manifests, trace, config, seed=5)
    vector = run(monkeypatch, "vector", node_list, manifests, trace, config, seed=5)
    assert vector == reference
