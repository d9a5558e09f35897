"""PreScore, Score and NormalizeScore, ported from kube-scheduler's scoring_test.go.

Feature gates are those of v1.31+ (node inclusion policies and matchLabelKeys on).
"""
import pytest

from scheduler_core.testing.podtopologyspread import (
    BAR,
    DNS,
    FOO,
    HONOR,
    HOST,
    IGNORE,
    SA,
    TAINTS,
    ZONE,
    ep,
    hn,
    node,
    objects,
    pod,
    replica_set,
    sc,
    service,
    setup,
)

from ...framework.cycle_state import CycleState
from ...framework.interfaces import NodeScore
from ...framework.status import Code
from ...labels import LabelSelector
from ...testing import normalized_scores
from .common import selector_key
from .scoring import PRE_SCORE_STATE_KEY, go_round, topology_normalizing_weight

RS1 = ("apps/v1", "ReplicaSet", "rs1")


def C(max_skew, key, selector, affinity_policy=HONOR, taints_policy=IGNORE):
    return (max_skew, key, selector_key(LabelSelector(selector)), 1, affinity_policy,
            taints_policy)


def describe(c):
    return (c.max_skew, c.topology_key, c.selector_key, c.min_domains,
            c.node_affinity_policy, c.node_taints_policy)


PRE_SCORE_SKIP_CASES = [
    pytest.param(
        pod(None, name="p"), [hn("node-a"), hn("node-b")], {"defaultingType": "List"}, None,
        id="a pod without soft constraints skips scoring"),
    pytest.param(
        pod({"foo": "bar", "baz": "sup"}, owner=("apps/v1", "ReplicaSet", "rs2")),
        [node("node-a", {"planet": "mars"})],
        {"defaultingType": "List", "defaultConstraints": [
            {"maxSkew": 2, "topologyKey": "planet", "whenUnsatisfiable": SA}]},
        objects(ReplicaSet=[replica_set("rs1", {"matchExpressions": [
            {"key": "tar", "operator": "Exists"}]})]),
        id="default constraints and a replicaset that does not own the pod skip scoring"),
]


@pytest.mark.parametrize("incoming, nodes, args, objs", PRE_SCORE_SKIP_CASES)
def test_pre_score_skip(incoming, nodes, args, objs):
    pl, snapshot = setup(nodes, [], args, objs)
    status = pl.pre_score(CycleState(), incoming, snapshot.list())
    assert status is not None and status.code == Code.SKIP


def test_pre_score_skips_an_empty_cluster():
    pl, _ = setup([])
    status = pl.pre_score(CycleState(), pod({"foo": ""}, sc(1, "zone", SA, FOO)), [])
    assert status is not None and status.code == Code.SKIP


LIST = {"defaultingType": "List"}
W = topology_normalizing_weight
ZONE_NODES = [hn("node-a", "zone1", foo=""), hn("node-b", "zone1", foo=""), hn("node-x", "zone2")]

PRE_SCORE_STATE_CASES = [
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", SA, FOO), sc(1, HOST, SA, FOO)),
        [hn("node-a", "zone1"), hn("node-b", "zone1"), hn("node-x", "zone2")], LIST, None,
        ([C(1, "zone", FOO), C(1, HOST, FOO)], set(), [{"zone1": 0, "zone2": 0}, {}],
         [W(2), W(3)]),
        id="zone domains are listed and hostname is weighted by the candidate count"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", SA, None)),
        [hn("node-a", "zone1"), hn("node-b", "zone1"), hn("node-x", "zone2")], LIST, None,
        ([C(1, "zone", None)], set(), [{"zone1": 0, "zone2": 0}], [W(2)]),
        id="a null selector still lists the domains"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", SA, FOO), sc(1, HOST, SA, BAR)),
        [hn("node-a", "zone1"), hn("node-b", "zone1"), hn("node-x")], LIST, None,
        ([C(1, "zone", FOO), C(1, HOST, BAR)], {"node-x"}, [{"zone1": 0}, {}], [W(1), W(2)]),
        id="a node without the zone label is ignored"),
    pytest.param(
        pod({"foo": "tar", "baz": "sup"}, owner=RS1),
        [node("node-a", {HOST: "node-a", ZONE: "mars"}),
         node("node-b", {HOST: "node-b", ZONE: "mars"}),
         node("node-c", {HOST: "node-c"}), node("node-d", {HOST: "node-d"})],
        {"defaultingType": "System"}, objects(ReplicaSet=[replica_set("rs1", FOO)]),
        ([C(3, HOST, FOO), C(5, ZONE, FOO)], set(), [{}, {"mars": 0, "": 0}], [W(4), W(2)]),
        id="system default constraints treat nodes without a zone as one more zone"),
    pytest.param(
        pod({"foo": "tar", "baz": "sup"}, owner=RS1),
        [node("node-a", {"rack": "rack1", HOST: "node-a", "planet": "mars"})],
        {"defaultingType": "List", "defaultConstraints": [
            {"maxSkew": 1, "topologyKey": HOST, "whenUnsatisfiable": SA},
            {"maxSkew": 2, "topologyKey": "rack", "whenUnsatisfiable": DNS},
            {"maxSkew": 2, "topologyKey": "planet", "whenUnsatisfiable": SA}]},
        objects(ReplicaSet=[replica_set("rs1", FOO)]),
        ([C(1, HOST, FOO), C(2, "planet", FOO)], set(), [{}, {"mars": 0}], [W(1), W(1)]),
        id="listed default soft constraints take the replicaset's selector"),
    pytest.param(
        pod({"foo": "bar", "baz": "sup"}, sc(1, "zone", DNS, BAR),
            sc(2, "planet", SA, {"matchLabels": {"baz": "sup"}}), owner=RS1),
        [node("node-a", {"planet": "mars", "galaxy": "andromeda"})],
        {"defaultingType": "List", "defaultConstraints": [
            {"maxSkew": 2, "topologyKey": "galaxy", "whenUnsatisfiable": SA}]},
        objects(ReplicaSet=[replica_set("rs1", FOO)]),
        ([C(2, "planet", {"matchLabels": {"baz": "sup"}})], set(), [{"mars": 0}], [W(1)]),
        id="the pod's own soft constraints win over default constraints"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", SA, BAR), node_selector={"foo": ""}), ZONE_NODES, LIST,
        None, ([C(1, "zone", BAR)], set(), [{"zone1": 0, "zone2": 0}], [W(2)]),
        id="node affinity policy honored with a node selector"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", SA, BAR, affinity_policy=IGNORE),
            node_selector={"foo": ""}), ZONE_NODES, LIST, None,
        ([C(1, "zone", BAR, affinity_policy=IGNORE)], set(), [{"zone1": 0, "zone2": 0}],
         [W(2)]),
        id="node affinity policy ignored with a node selector"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", SA, BAR), affinity_in=("foo", [""])), ZONE_NODES, LIST,
        None, ([C(1, "zone", BAR)], set(), [{"zone1": 0, "zone2": 0}], [W(2)]),
        id="node affinity policy honored with a required node affinity"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", SA, BAR, affinity_policy=IGNORE),
            affinity_in=("foo", [""])), ZONE_NODES, LIST, None,
        ([C(1, "zone", BAR, affinity_policy=IGNORE)], set(), [{"zone1": 0, "zone2": 0}],
         [W(2)]),
        id="node affinity policy ignored with a required node affinity"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", SA, BAR, taints_policy=HONOR)),
        ZONE_NODES[:2] + [node("node-x", {"zone": "zone2", HOST: "node-x"}, TAINTS)], LIST,
        None,
        ([C(1, "zone", BAR, taints_policy=HONOR)], set(), [{"zone1": 0, "zone2": 0}], [W(2)]),
        id="node taints policy honored"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", SA, BAR)),
        ZONE_NODES[:2] + [node("node-x", {"zone": "zone2", HOST: "node-x"}, TAINTS)], LIST,
        None, ([C(1, "zone", BAR)], set(), [{"zone1": 0, "zone2": 0}], [W(2)]),
        id="node taints policy ignored"),
]


@pytest.mark.parametrize("incoming, nodes, args, objs, want", PRE_SCORE_STATE_CASES)
def test_pre_score_state(incoming, nodes, args, objs, want):
    pl, snapshot = setup(nodes, [], args, objs)
    state = CycleState()
    assert pl.pre_score(state, incoming, [snapshot.get(n["metadata"]["name"]) for n in nodes]) \
        is None
    s = state.read(PRE_SCORE_STATE_KEY)
    constraints, ignored, counts, weights = want
    assert [describe(c) for c in s.constraints] == constraints
    assert s.ignored_nodes == ignored
    assert s.topology_value_to_pod_counts == counts
    assert s.topology_normalizing_weight == weights


def _p(name, node_name, *keys, **kw):
    return ep(name, node_name, *keys, **kw)


def _spread(counts):
    """Existing pods labelled foo: counts maps a node letter to how many it runs."""
    return [_p(f"p-{n}{i}", f"node-{n}", "foo") for n, k in counts.items()
            for i in range(1, k + 1)]


HOST4 = [hn("node-a"), hn("node-b"), hn("node-c"), hn("node-d")]
NODE3 = [node("node-a", {"node": "node-a", "foo": ""}),
         node("node-b", {"node": "node-b", "foo": ""}), node("node-c", {"node": "node-c"})]
NODE3_TAINTED = [node("node-a", {"node": "node-a"}), node("node-b", {"node": "node-b"}),
                 node("node-c", {"node": "node-c"}, TAINTS)]
A2_B1_C1 = [_p("p-a1", "node-a", "foo"), _p("p-a2", "node-a", "foo"),
            _p("p-b1", "node-b", "foo"), _p("p-c1", "node-c", "foo")]
ZONE_AB_CD = [hn("node-a", "zone1"), hn("node-b", "zone1"), hn("node-c", "zone2"),
              hn("node-d", "zone2")]
ZONE_AB_XY = [hn("node-a", "zone1"), hn("node-b", "zone1"), hn("node-x", "zone2"),
              hn("node-y", "zone2")]

SCORE_CASES = [
    pytest.param(
        pod({"foo": ""}, sc(1, HOST, SA, FOO)), [], [hn("node-a"), hn("node-b")], [], None,
        {"node-a": 100, "node-b": 100},
        id="one hostname constraint and no existing pods scores every node 100"),
    pytest.param(
        pod({"foo": ""}, sc(1, HOST, SA, FOO)), _spread({"a": 2, "b": 1}), [hn("node-a")],
        [hn("node-b")], None, {"node-a": 100},
        id="a single candidate node scores 100"),
    pytest.param(
        pod({"foo": ""}, sc(1, HOST, SA, FOO)), _spread({"a": 1, "b": 1}),
        [hn("node-a"), hn("node-b")], [], None, {"node-a": 100, "node-b": 100},
        id="nodes with equal matching pods score the same"),
    pytest.param(
        pod({"foo": ""}, sc(1, HOST, SA, FOO)), _spread({"a": 2, "b": 1, "d": 3}), HOST4, [],
        None, {"node-a": 20, "node-b": 60, "node-c": 100, "node-d": 0},
        id="pods spread as 2/1/0/3 over four candidate nodes"),
    pytest.param(
        pod({"foo": ""}, sc(1, HOST, SA, None)), _spread({"a": 2, "b": 1, "d": 3}), HOST4, [],
        None, {"node-a": 100, "node-b": 100, "node-c": 100, "node-d": 100},
        id="a null selector matches nothing so every node scores 100"),
    pytest.param(
        pod({"foo": ""}, sc(1, HOST, SA, {})),
        [_p("p-a1", "node-a", "bar"), _p("p-a2", "node-a"), _p("p-b1", "node-b", ns="other")],
        [hn("node-a"), hn("node-b")], [], None, {"node-a": 0, "node-b": 100},
        id="an empty selector counts every pod of the namespace"),
    pytest.param(
        pod({"foo": ""}, sc(2, HOST, SA, FOO)), _spread({"a": 2, "b": 1, "d": 3}), HOST4, [],
        None, {"node-a": 33, "node-b": 66, "node-c": 100, "node-d": 16},
        id="maxSkew 2 waters the 2/1/0/3 differences down"),
    pytest.param(
        pod({"foo": ""}, sc(3, HOST, SA, FOO)), _spread({"a": 4, "b": 3, "c": 2, "d": 1}), HOST4,
        [], None, {"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100},
        id="maxSkew 3 waters the 4/3/2/1 differences down"),
    pytest.param(
        pod({"foo": ""}), _spread({"a": 4, "b": 3, "c": 2, "d": 1}), HOST4, [],
        objects(Service=[service({"foo": ""})]),
        {"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100},
        id="system defaulting on nodes without zones spreads by hostname for a service"),
    pytest.param(
        pod({"foo": ""}, sc(1, HOST, SA, FOO)), _spread({"a": 4, "b": 2, "x": 1, "y": 3}),
        [hn("node-a"), hn("node-b"), hn("node-x")], [hn("node-y")], None,
        {"node-a": 33, "node-b": 83, "node-x": 100},
        id="three of four nodes are candidates"),
    pytest.param(
        pod({"foo": ""}, sc(1, HOST, SA, FOO)), _spread({"a": 4, "b": 2, "x": 1, "y": 3}),
        [hn("node-a"), node("node-b", {"n": "node-b"}), hn("node-x")], [hn("node-y")], None,
        {"node-a": 16, "node-b": 0, "node-x": 100},
        id="a candidate without the topology key scores 0"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", SA, FOO)), _spread({"a": 4, "b": 2, "x": 1, "y": 3}),
        ZONE_AB_XY[:3], ZONE_AB_XY[3:], None, {"node-a": 75, "node-b": 75, "node-x": 100},
        id="zone constraint counts pods on non-candidate nodes of a candidate's zone"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", SA, FOO), sc(1, HOST, SA, FOO)),
        _spread({"a": 2, "b": 1, "x": 2, "y": 4}), [ZONE_AB_XY[0], ZONE_AB_XY[2]],
        [ZONE_AB_XY[1], ZONE_AB_XY[3]], None, {"node-a": 100, "node-x": 63},
        id="zone and hostname constraints with two of four candidates"),
    pytest.param(
        pod({"foo": "", "bar": ""}, sc(1, "zone", SA, FOO), sc(1, HOST, SA, BAR)),
        [_p("p-a1", "node-a", "foo"), _p("p-b1", "node-b", "foo", "bar"),
         _p("p-y1", "node-y", "foo"), _p("p-y2", "node-y", "bar")], ZONE_AB_XY, [], None,
        {"node-a": 60, "node-b": 20, "node-x": 100, "node-y": 60},
        id="zone and hostname constraints with different selectors"),
    pytest.param(
        pod({"foo": "", "bar": ""}, sc(1, "zone", SA, FOO), sc(1, HOST, SA, BAR)),
        [_p("p-b1", "node-b", "bar"), _p("p-x1", "node-x", "foo"),
         _p("p-y1", "node-y", "foo", "bar")], ZONE_AB_XY, [], None,
        {"node-a": 100, "node-b": 60, "node-x": 40, "node-y": 0},
        id="different selectors with some nodes running no pods"),
    pytest.param(
        pod({"foo": "", "bar": ""}, sc(1, "zone", SA, FOO), sc(1, HOST, SA, BAR)),
        [_p("p-a1", "node-a", "foo"), _p("p-b1", "node-b", "foo", "bar"),
         _p("p-y1", "node-y", "foo"), _p("p-y2", "node-y", "bar")], ZONE_AB_XY[:3],
        ZONE_AB_XY[3:], None, {"node-a": 50, "node-b": 25, "node-x": 100},
        id="different selectors with three of four candidates"),
    pytest.param(
        pod({"foo": ""}, sc(1, HOST, SA, FOO)),
        [_p("p-a1", "node-a", "foo", ns="ns1"), _p("p-a2", "node-a", "foo"),
         _p("p-b1", "node-b", "foo"), _p("p-b2", "node-b", "foo")],
        [hn("node-a"), hn("node-b")], [], None, {"node-a": 100, "node-b": 33},
        id="existing pods in a different namespace do not count"),
    pytest.param(
        pod({"foo": ""}, sc(1, HOST, SA, FOO)),
        [_p("p-a", "node-a", "foo", terminating=True), _p("p-b", "node-b", "foo")],
        [hn("node-a"), hn("node-b")], [], None, {"node-a": 100, "node-b": 0},
        id="terminating pods are not counted"),
    pytest.param(
        pod({"foo": ""}, sc(2, "node", SA, FOO, min_domains=10)),
        _spread({"a": 2, "b": 2, "c": 1}),
        [node("node-a", {"node": "node-a"}), node("node-b", {"node": "node-b"}),
         node("node-c", {"node": "node-c"})], [], None,
        {"node-a": 75, "node-b": 75, "node-c": 100},
        id="minDomains has no effect on scoring"),
    pytest.param(
        pod({"foo": ""}, sc(1, "node", SA, FOO), node_selector={"foo": ""}), A2_B1_C1, NODE3, [],
        None, {"node-a": 0, "node-b": 33, "node-c": 100},
        id="node affinity policy honored with a node selector"),
    pytest.param(
        pod({"foo": ""}, sc(1, "node", SA, FOO, affinity_policy=IGNORE),
            node_selector={"foo": ""}), A2_B1_C1, NODE3, [], None,
        {"node-a": 66, "node-b": 100, "node-c": 100},
        id="node affinity policy ignored with a node selector"),
    pytest.param(
        pod({"foo": ""}, sc(1, "node", SA, FOO), affinity_in=("foo", [""])), A2_B1_C1, NODE3, [],
        None, {"node-a": 0, "node-b": 33, "node-c": 100},
        id="node affinity policy honored with a required node affinity"),
    pytest.param(
        pod({"foo": ""}, sc(1, "node", SA, FOO, affinity_policy=IGNORE),
            affinity_in=("foo", [""])), A2_B1_C1, NODE3, [], None,
        {"node-a": 66, "node-b": 100, "node-c": 100},
        id="node affinity policy ignored with a required node affinity"),
    pytest.param(
        pod({"foo": ""}, sc(1, "node", SA, FOO, taints_policy=HONOR)), A2_B1_C1, NODE3_TAINTED,
        [], None, {"node-a": 0, "node-b": 33, "node-c": 100},
        id="node taints policy honored"),
    pytest.param(
        pod({"foo": ""}, sc(1, "node", SA, FOO)), A2_B1_C1, NODE3_TAINTED, [], None,
        {"node-a": 66, "node-b": 100, "node-c": 100},
        id="node taints policy ignored"),
    pytest.param(
        pod({"foo": "", "bar": ""}, sc(1, "zone", SA, {}, match_label_keys=["foo"]),
            sc(1, HOST, SA, {}, match_label_keys=["bar"])),
        [_p("p-a1", "node-a", "foo"), _p("p-b1", "node-b", "foo", "bar"),
         _p("p-y1", "node-c", "foo"), _p("p-y2", "node-c", "bar")], ZONE_AB_CD, [], None,
        {"node-a": 60, "node-b": 20, "node-c": 60, "node-d": 100},
        id="matchLabelKeys are ANDed with an empty label selector"),
    pytest.param(
        pod({"foo": "", "bar": "", "baz": ""}, sc(1, "zone", SA, FOO),
            sc(1, HOST, SA, BAR, match_label_keys=["baz"])),
        [_p("p-a1", "node-a", "foo"), _p("p-b1", "node-b", "foo", "bar", "baz"),
         _p("p-c1", "node-c", "foo"), _p("p-c2", "node-c", "bar"),
         _p("p-d3", "node-c", "bar", "baz")], ZONE_AB_CD, [], None,
        {"node-a": 60, "node-b": 20, "node-c": 60, "node-d": 100},
        id="matchLabelKeys are ANDed with a non-empty label selector"),
    pytest.param(
        pod({"foo": "", "bar": "", "baz": ""}, sc(1, "zone", SA, FOO, match_label_keys=["baz"]),
            sc(1, HOST, SA, BAR, match_label_keys=["baz"])),
        [_p("p-a1", "node-a", "foo"), _p("p-b1", "node-b", "foo", "bar"),
         _p("p-y1", "node-c", "foo"), _p("p-y2", "node-c", "bar")], ZONE_AB_CD, [], None,
        {"node-a": 100, "node-b": 100, "node-c": 100, "node-d": 100},
        id="matchLabelKeys narrow the selectors to pods with the same values"),
]


@pytest.mark.parametrize("incoming, existing, nodes, failed, objs, want", SCORE_CASES)
def test_score(incoming, existing, nodes, failed, objs, want):
    pl, snapshot = setup(nodes + failed, existing, {"defaultingType": "System"}, objs)
    filtered = [snapshot.get(n["metadata"]["name"]) for n in nodes]
    state = CycleState()
    assert pl.pre_score(state, incoming, filtered) is None
    scores = normalized_scores(pl, state, incoming, filtered)
    assert {s.name: s.score for s in scores} == want


def test_raw_scores_round_half_away_from_zero():
    assert [go_round(x) for x in (0.5, 1.5, 2.5, 2.4999999999999996)] == [1, 2, 3, 2]


def test_normalize_score_gives_ignored_nodes_zero():
    pl, snapshot = setup([hn("node-a", "zone1"), hn("node-b")], [])
    incoming = pod({"foo": ""}, sc(1, "zone", SA, FOO))
    state = CycleState()
    pl.pre_score(state, incoming, snapshot.list())
    scores = [NodeScore("node-a", 0), NodeScore("node-b", 0)]
    pl.normalize_score(state, incoming, scores)
    assert [(s.name, s.score) for s in scores] == [("node-a", 100), ("node-b", 0)]


def test_score_without_pre_score_is_an_error():
    pl, snapshot = setup([hn("node-a")])
    _, status = pl.score(CycleState(), pod({"foo": ""}), snapshot.get("node-a"))
    assert status.code == Code.ERROR
    assert status.reasons == [
        'error reading "PreScorePodTopologySpread" from cycleState: not found']
