"""TaintToleration, ported from taint_toleration_test.go."""
import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import MAX_NODE_SCORE
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import NodeInfo
from scheduler_core.plugins.tainttoleration import new
from scheduler_core.testing import make_node, make_pod, normalized_scores, pod_info


def taint(key, value, effect):
    out = {"key": key, "effect": effect}
    if value:
        out["value"] = value
    return out


def toleration(key, value="", effect="", operator=""):
    out = {"key": key}
    if value:
        out["value"] = value
    if effect:
        out["effect"] = effect
    if operator:
        out["operator"] = operator
    return out


def pod_with(tolerations):
    return pod_info(make_pod("pod1", tolerations=tolerations))


def node_with(name, taints):
    return NodeInfo(make_node(name, taints=taints))


PREFER = "PreferNoSchedule"
NO_SCHEDULE = "NoSchedule"

SCORE_CASES = [
    pytest.param(
        [toleration("foo", "bar", PREFER, "Equal")],
        [("nodeA", [taint("foo", "bar", PREFER)]), ("nodeB", [taint("foo", "blah", PREFER)])],
        [MAX_NODE_SCORE, 0],
        id="node with taints tolerated by the pod, gets a higher score than those node with "
           "intolerable taints"),
    pytest.param(
        [toleration("cpu-type", "arm64", PREFER, "Equal"),
         toleration("disk-type", "ssd", PREFER, "Equal")],
        [("nodeA", []), ("nodeB", [taint("cpu-type", "arm64", PREFER)]),
         ("nodeC", [taint("cpu-type", "arm64", PREFER), taint("disk-type", "ssd", PREFER)])],
        [MAX_NODE_SCORE, MAX_NODE_SCORE, MAX_NODE_SCORE],
        id="the nodes that all of their taints are tolerated by the pod, get the same score, no "
           "matter how many tolerable taints a node has"),
    pytest.param(
        [toleration("foo", "bar", PREFER, "Equal")],
        [("nodeA", []), ("nodeB", [taint("cpu-type", "arm64", PREFER)]),
         ("nodeC", [taint("cpu-type", "arm64", PREFER), taint("disk-type", "ssd", PREFER)])],
        [MAX_NODE_SCORE, 50, 0],
        id="the more intolerable taints a node has, the lower score it gets"),
    pytest.param(
        [toleration("cpu-type", "arm64", NO_SCHEDULE, "Equal"),
         toleration("disk-type", "ssd", NO_SCHEDULE, "Equal")],
        [("nodeA", []), ("nodeB", [taint("cpu-type", "arm64", NO_SCHEDULE)]),
         ("nodeC", [taint("cpu-type", "arm64", PREFER), taint("disk-type", "ssd", PREFER)])],
        [MAX_NODE_SCORE, MAX_NODE_SCORE, 0],
        id="only taints and tolerations that have effect PreferNoSchedule are checked by "
           "taints-tolerations priority function"),
    pytest.param(
        [],
        [("nodeA", []), ("nodeB", [taint("cpu-type", "arm64", PREFER)])],
        [MAX_NODE_SCORE, 0],
        id="Default behaviour No taints and tolerations, lands on node with no taints"),
    pytest.param(
        [toleration("cpu-type", "arm64")],
        [("nodeA", [taint("cpu-type", "arm64", PREFER)]),
         ("nodeB", [taint("disk-type", "ssd", PREFER)])],
        [MAX_NODE_SCORE, 0],
        id="a toleration without effect tolerates PreferNoSchedule taints"),
    pytest.param(
        [toleration("cpu-type", "arm64")],
        [("nodeA", []), ("nodeB", [])],
        [MAX_NODE_SCORE, MAX_NODE_SCORE],
        id="no node has intolerable taints, so all score the maximum"),
]


@pytest.mark.parametrize("tolerations,nodes,want", SCORE_CASES)
def test_score(tolerations, nodes, want):
    plugin = new({}, None)
    pod = pod_with(tolerations)
    infos = [node_with(name, taints) for name, taints in nodes]
    state = CycleState()
    assert plugin.pre_score(state, pod, infos) is None
    scores = normalized_scores(plugin, state, pod, infos)
    assert [s.score for s in scores] == want


def test_score_without_pre_score_is_an_error():
    status = new({}, None).score(CycleState(), pod_with([]), node_with("nodeA", []))[1]
    assert status.code == Code.ERROR
    assert status.message() == 'failed to read "PreScoreTaintToleration" from cycleState: not found'


FILTER_CASES = [
    pytest.param(
        [], [taint("dedicated", "user1", NO_SCHEDULE)],
        Status.unresolvable("node(s) had untolerated taint {dedicated: user1}"),
        id="A pod having no tolerations can't be scheduled onto a node with nonempty taints"),
    pytest.param(
        [toleration("dedicated", "user1", NO_SCHEDULE)], [taint("dedicated", "user1", NO_SCHEDULE)],
        None,
        id="A pod which can be scheduled on a dedicated node assigned to user1 with effect "
           "NoSchedule"),
    pytest.param(
        [toleration("dedicated", "user2", NO_SCHEDULE, "Equal")],
        [taint("dedicated", "user1", NO_SCHEDULE)],
        Status.unresolvable("node(s) had untolerated taint {dedicated: user1}"),
        id="A pod which can't be scheduled on a dedicated node assigned to user2 with effect "
           "NoSchedule"),
    pytest.param(
        [toleration("foo", effect=NO_SCHEDULE, operator="Exists")],
        [taint("foo", "bar", NO_SCHEDULE)], None,
        id="A pod can be scheduled onto the node, with a toleration uses operator Exists that "
           "tolerates the taints on the node"),
    pytest.param(
        [toleration("dedicated", "user2", NO_SCHEDULE, "Equal"),
         toleration("foo", effect=NO_SCHEDULE, operator="Exists")],
        [taint("dedicated", "user2", NO_SCHEDULE), taint("foo", "bar", NO_SCHEDULE)], None,
        id="A pod has multiple tolerations, node has multiple taints, all the taints are "
           "tolerated, pod can be scheduled onto the node"),
    pytest.param(
        [toleration("foo", "bar", PREFER, "Equal")], [taint("foo", "bar", NO_SCHEDULE)],
        Status.unresolvable("node(s) had untolerated taint {foo: bar}"),
        id="A pod has a toleration that keys and values match the taint on the node, but "
           "(non-empty) effect doesn't match, can't be scheduled onto the node"),
    pytest.param(
        [toleration("foo", "bar", operator="Equal")], [taint("foo", "bar", NO_SCHEDULE)], None,
        id="The pod has a toleration that keys and values match the taint on the node, the "
           "effect of toleration is empty, and the effect of taint is NoSchedule. Pod can be "
           "scheduled onto the node"),
    pytest.param(
        [toleration("dedicated", "user2", NO_SCHEDULE, "Equal")],
        [taint("dedicated", "user1", PREFER)], None,
        id="The pod has a toleration that key and value don't match the taint on the node, but "
           "the effect of taint on node is PreferNoSchedule. Pod can be scheduled onto the node"),
    pytest.param(
        [], [taint("dedicated", "user1", PREFER)], None,
        id="The pod has no toleration, but the effect of taint on node is PreferNoSchedule. Pod "
           "can be scheduled onto the node"),
    pytest.param(
        [], [taint("node.kubernetes.io/not-ready", "", "NoExecute")],
        Status.unresolvable("node(s) had untolerated taint {node.kubernetes.io/not-ready: }"),
        id="an untolerated NoExecute taint with an empty value is reported with an empty value"),
    pytest.param(
        [toleration("", operator="Exists")],
        [taint("a", "1", NO_SCHEDULE), taint("b", "2", "NoExecute")], None,
        id="an Exists toleration without key tolerates every taint"),
    pytest.param(
        [toleration("a", "1", NO_SCHEDULE)],
        [taint("a", "1", NO_SCHEDULE), taint("b", "2", NO_SCHEDULE), taint("c", "3", NO_SCHEDULE)],
        Status.unresolvable("node(s) had untolerated taint {b: 2}"),
        id="the first untolerated taint in node order is reported"),
]


@pytest.mark.parametrize("tolerations,taints,want", FILTER_CASES)
def test_filter(tolerations, taints, want):
    status = new({}, None).filter(CycleState(), pod_with(tolerations), node_with("nodeA", taints))
    assert status == want
    if want is not None:
        assert status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE


def test_events_to_register():
    assert new({}, None).events_to_register() == {"NodeAdd", "NodeUpdate", "UnscheduledPodUpdate"}
