"""PreFilter, AddPod, RemovePod and Filter, ported from kube-scheduler's filtering_test.go.

Feature gates are those of v1.31+: NodeInclusionPolicyInPodTopologySpread and
MatchLabelKeysInPodTopologySpread on. Go cases that only differ with a gate off are ported
where the gate makes no difference to their result.
"""
import pytest

from scheduler_core.testing.podtopologyspread import (
    BAR,
    DNS,
    FOO,
    HONOR,
    IGNORE,
    SA,
    TAINTS,
    ep,
    pod,
    sc,
    service,
    setup,
    zn,
)
from scheduler_core.testing.podtopologyspread import node as mk_node

from ...framework.cycle_state import CycleState
from ...framework.status import Code
from ...labels import LabelSelector
from .common import selector_key
from .filtering import MAX_INT32, PRE_FILTER_STATE_KEY

SUCCESS = Code.SUCCESS
UNSCHED = Code.UNSCHEDULABLE
UNRESOLVABLE = Code.UNSCHEDULABLE_AND_UNRESOLVABLE


def C(max_skew, key, selector, affinity_policy=HONOR, taints_policy=IGNORE, min_domains=1):
    """An expected parsed constraint, comparable with describe()."""
    return (max_skew, key, selector_key(LabelSelector(selector)), min_domains,
            affinity_policy, taints_policy)


def describe(c):
    return (c.max_skew, c.topology_key, c.selector_key, c.min_domains,
            c.node_affinity_policy, c.node_taints_policy)


def paths(*pairs):
    """Expected critical paths; a missing second path is the MaxInt32 placeholder."""
    pairs = list(pairs) + [("", MAX_INT32)] * (2 - len(pairs))
    return sorted(pairs)


def assert_state(s, want):
    constraints, counts, critical = want
    assert [describe(c) for c in s.constraints] == constraints
    assert s.tp_value_to_match_num == counts
    assert [sorted(p.pairs()) for p in s.critical_paths] == critical


def nodes_ab_xy():
    return [zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-x", "zone2"),
            zn("node-y", "zone2")]


def spread_a2_b1_y2():
    return [ep("p-a1", "node-a", "foo"), ep("p-a2", "node-a", "foo"),
            ep("p-b1", "node-b", "foo"), ep("p-y1", "node-y", "foo"),
            ep("p-y2", "node-y", "foo")]


def spread_a2_b1_y4():
    return spread_a2_b1_y2() + [ep("p-y3", "node-y", "foo"), ep("p-y4", "node-y", "foo")]


def three_nodes_bar():
    """node-a and node-b carry foo, node-c carries bar; pods with bar spread 1/2/0."""
    nodes = [mk_node("node-a", {"node": "node-a", "foo": ""}),
             mk_node("node-b", {"node": "node-b", "foo": ""}),
             mk_node("node-c", {"node": "node-c", "bar": ""})]
    existing = [ep("p-a", "node-a", "bar"), ep("p-b", "node-b", "bar"),
                ep("p-c", "node-b", "bar"), ep("p-d", "node-c")]
    return nodes, existing


def three_nodes_tainted_c():
    nodes = [mk_node("node-a", {"node": "node-a"}), mk_node("node-b", {"node": "node-b"}),
             mk_node("node-c", {"node": "node-c", "bar": ""}, TAINTS)]
    existing = [ep("p-a", "node-a", "bar"), ep("p-b", "node-b", "bar"),
                ep("p-c", "node-b", "bar"), ep("p-d", "node-c")]
    return nodes, existing


BAR_A1_B2 = ([C(1, "node", BAR)], [{"node-a": 1, "node-b": 2}],
             [paths(("node-a", 1), ("node-b", 2))])
BAR_A1_B2_C0_IGNORED = ([C(1, "node", BAR, affinity_policy=IGNORE)],
                        [{"node-a": 1, "node-b": 2, "node-c": 0}],
                        [paths(("node-c", 0), ("node-a", 1))])

PRE_FILTER_STATE_CASES = [
    pytest.param(
        pod({"foo": ""}, sc(5, "zone", DNS, {"matchLabels": {"foo": "bar"}})),
        nodes_ab_xy(), [], None, None,
        ([C(5, "zone", {"matchLabels": {"foo": "bar"}})], [{"zone1": 0, "zone2": 0}],
         [paths(("zone1", 0), ("zone2", 0))]),
        id="clean cluster with one spread constraint counts zero in each zone"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", DNS, FOO)), nodes_ab_xy(), spread_a2_b1_y2(), None, None,
        ([C(1, "zone", FOO)], [{"zone1": 3, "zone2": 2}], [paths(("zone2", 2), ("zone1", 3))]),
        id="one spread constraint counts matching pods per zone"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", DNS, None)), nodes_ab_xy(), spread_a2_b1_y2(), None, None,
        ([C(1, "zone", None)], [{"zone1": 0, "zone2": 0}], [paths(("zone2", 0), ("zone1", 0))]),
        id="a null label selector matches no pod"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", DNS, FOO)),
        nodes_ab_xy() + [zn("node-o", "zone3"), zn("node-p", "zone3")], spread_a2_b1_y2(),
        None, None,
        ([C(1, "zone", FOO)], [{"zone1": 3, "zone2": 2, "zone3": 0}],
         [paths(("zone3", 0), ("zone2", 2))]),
        id="one spread constraint on a 3-zone cluster"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", DNS, FOO)), nodes_ab_xy(),
        [ep("p-a1", "node-a", "foo"), ep("p-a2", "node-a", "foo", ns="ns1"),
         ep("p-b1", "node-b", "foo"), ep("p-y1", "node-y", "foo", ns="ns2"),
         ep("p-y2", "node-y", "foo")], None, None,
        ([C(1, "zone", FOO)], [{"zone1": 2, "zone2": 1}], [paths(("zone2", 1), ("zone1", 2))]),
        id="pods in another namespace do not count"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", DNS, FOO), sc(1, "node", DNS, FOO)), nodes_ab_xy(),
        spread_a2_b1_y4(), None, None,
        ([C(1, "zone", FOO), C(1, "node", FOO)],
         [{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-x": 0, "node-y": 4}],
         [paths(("zone1", 3), ("zone2", 4)), paths(("node-x", 0), ("node-b", 1))]),
        id="two spread constraints count per zone and per node"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", SA, FOO), sc(1, "zone", DNS, FOO),
            sc(1, "node", SA, FOO), sc(1, "node", DNS, FOO)),
        [zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-y", "zone2")],
        spread_a2_b1_y4(), None, None,
        ([C(1, "zone", FOO), C(1, "node", FOO)],
         [{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-y": 4}],
         [paths(("zone1", 3), ("zone2", 4)), paths(("node-b", 1), ("node-a", 2))]),
        id="soft spread constraints are left to scoring"),
    pytest.param(
        pod({"foo": "", "bar": ""}, sc(1, "zone", DNS, FOO), sc(1, "node", DNS, BAR)),
        [zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-y", "zone2")],
        [ep("p-a", "node-a", "foo"), ep("p-b", "node-b", "bar")], None, None,
        ([C(1, "zone", FOO), C(1, "node", BAR)],
         [{"zone1": 1, "zone2": 0}, {"node-a": 0, "node-b": 1, "node-y": 0}],
         [paths(("zone2", 0), ("zone1", 1)), paths(("node-a", 0), ("node-y", 0))]),
        id="constraints with different label selectors count separately"),
    pytest.param(
        pod({"foo": "", "bar": ""}, sc(1, "zone", DNS, FOO), sc(1, "node", DNS, BAR)),
        [zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-y", "zone2")],
        [ep("p-a1", "node-a", "foo"), ep("p-a2", "node-a", "foo", "bar"),
         ep("p-b1", "node-b", "foo"), ep("p-y1", "node-y", "foo"),
         ep("p-y2", "node-y", "foo", "bar"), ep("p-y3", "node-y", "foo"),
         ep("p-y4", "node-y", "foo", "bar")], None, None,
        ([C(1, "zone", FOO), C(1, "node", BAR)],
         [{"zone1": 3, "zone2": 4}, {"node-a": 1, "node-b": 0, "node-y": 2}],
         [paths(("zone1", 3), ("zone2", 4)), paths(("node-b", 0), ("node-a", 1))]),
        id="different label selectors over pods carrying both labels"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", DNS, FOO), sc(1, "node", DNS, FOO),
            affinity_not_in=("node", ["node-x"])),
        nodes_ab_xy(), spread_a2_b1_y4(), None, None,
        ([C(1, "zone", FOO), C(1, "node", FOO)],
         [{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-y": 4}],
         [paths(("zone1", 3), ("zone2", 4)), paths(("node-b", 1), ("node-a", 2))]),
        id="nodes excluded by the pod's node affinity are not domains"),
    pytest.param(
        pod({"foo": "bar", "baz": "kar"}), [], [],
        [{"maxSkew": 3, "topologyKey": "node", "whenUnsatisfiable": DNS},
         {"maxSkew": 2, "topologyKey": "node", "whenUnsatisfiable": SA},
         {"maxSkew": 5, "topologyKey": "rack", "whenUnsatisfiable": DNS}],
        [service({"foo": "bar"})],
        ([C(3, "node", {"matchLabels": {"foo": "bar"}}),
          C(5, "rack", {"matchLabels": {"foo": "bar"}})],
         [{}, {}], [paths(), paths()]),
        id="default constraints take the selector of the service selecting the pod"),
    pytest.param(
        pod({"foo": "bar"}), [], [],
        [{"maxSkew": 3, "topologyKey": "node", "whenUnsatisfiable": DNS}],
        [service({"baz": "kep"})], "skip",
        id="default constraints and a service that does not select the pod skip the plugin"),
    pytest.param(
        pod({"foo": "bar", "baz": "tar"}, sc(1, "zone", DNS, {"matchLabels": {"baz": "tar"}}),
            sc(2, "planet", SA, {"matchLabels": {"fot": "rok"}})), [], [],
        [{"maxSkew": 2, "topologyKey": "node", "whenUnsatisfiable": DNS}],
        [service({"foo": "bar"})],
        ([C(1, "zone", {"matchLabels": {"baz": "tar"}})], [{}], [paths()]),
        id="the pod's own constraints win over default constraints"),
    pytest.param(
        pod({"foo": "bar"}), [], [],
        [{"maxSkew": 2, "topologyKey": "node", "whenUnsatisfiable": SA}],
        [service({"foo": "bar"})], "skip",
        id="default soft constraints alone skip the filter"),
    pytest.param(
        pod({"foo": ""}, sc(1, "node", DNS, BAR), node_selector={"foo": ""}),
        *three_nodes_bar(), None, None, BAR_A1_B2,
        id="node affinity policy honored with a node selector drops nodes it does not select"),
    pytest.param(
        pod({"foo": ""}, sc(1, "node", DNS, BAR, affinity_policy=IGNORE),
            node_selector={"foo": ""}),
        *three_nodes_bar(), None, None, BAR_A1_B2_C0_IGNORED,
        id="node affinity policy ignored with a node selector keeps every node"),
    pytest.param(
        pod({"foo": ""}, sc(1, "node", DNS, BAR), affinity_in=("foo", [""])),
        *three_nodes_bar(), None, None, BAR_A1_B2,
        id="node affinity policy honored with a required node affinity"),
    pytest.param(
        pod({"foo": ""}, sc(1, "node", DNS, BAR, affinity_policy=IGNORE),
            affinity_in=("foo", [""])),
        *three_nodes_bar(), None, None, BAR_A1_B2_C0_IGNORED,
        id="node affinity policy ignored with a required node affinity"),
    pytest.param(
        pod({"foo": ""}, sc(1, "node", DNS, BAR)), *three_nodes_tainted_c(), None, None,
        ([C(1, "node", BAR)], [{"node-a": 1, "node-b": 2, "node-c": 0}],
         [paths(("node-c", 0), ("node-a", 1))]),
        id="node taints policy ignored by default keeps tainted nodes"),
    pytest.param(
        pod({"foo": ""}, sc(1, "node", DNS, BAR, taints_policy=HONOR)),
        *three_nodes_tainted_c(), None, None,
        ([C(1, "node", BAR, taints_policy=HONOR)], [{"node-a": 1, "node-b": 2}],
         [paths(("node-a", 1), ("node-b", 2))]),
        id="node taints policy honored drops nodes with untolerated taints"),
    pytest.param(
        pod({"foo": ""}, sc(1, "node", DNS, BAR, taints_policy=HONOR),
            tolerate="node.kubernetes.io/unschedulable"),
        *three_nodes_tainted_c(), None, None,
        ([C(1, "node", BAR, taints_policy=HONOR)], [{"node-a": 1, "node-b": 2, "node-c": 0}],
         [paths(("node-c", 0), ("node-a", 1))]),
        id="node taints policy honored keeps nodes whose taints the pod tolerates"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", DNS, FOO), sc(1, "node", DNS, FOO, affinity_policy=IGNORE),
            node_selector={"foo": ""}),
        [zn("node-a", "zone1", foo=""), zn("node-b", "zone1"), zn("node-x", "zone2", foo="")],
        [ep("p-b1", "node-b", "foo"), ep("p-b2", "node-b", "foo"), ep("p-x1", "node-x", "foo")],
        None, None,
        ([C(1, "zone", FOO), C(1, "node", FOO, affinity_policy=IGNORE)],
         [{"zone1": 0, "zone2": 1}, {"node-a": 0, "node-b": 2, "node-x": 1}],
         [paths(("zone1", 0), ("zone2", 1)), paths(("node-a", 0), ("node-x", 1))]),
        id="two constraints zone honor/ignore and node ignore/ignore"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", DNS, FOO, taints_policy=HONOR), sc(1, "node", DNS, FOO)),
        [zn("node-a", "zone1", foo=""), zn("node-b", "zone1", TAINTS),
         zn("node-x", "zone2", foo="")],
        [ep("p-b1", "node-b", "foo"), ep("p-b2", "node-b", "foo"), ep("p-x1", "node-x", "foo")],
        None, None,
        ([C(1, "zone", FOO, taints_policy=HONOR), C(1, "node", FOO)],
         [{"zone1": 0, "zone2": 1}, {"node-a": 0, "node-b": 2, "node-x": 1}],
         [paths(("zone1", 0), ("zone2", 1)), paths(("node-a", 0), ("node-x", 1))]),
        id="two constraints zone honor/honor and node honor/ignore"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", DNS, FOO), sc(1, "node", DNS, FOO),
            node_selector={"foo": ""}),
        [zn("node-a", "zone1"), zn("node-b", "zone1", TAINTS, foo=""),
         zn("node-x", "zone2", foo=""), zn("node-y", "zone2")],
        [ep("p-a1", "node-a", "foo"), ep("p-a2", "node-a", "foo"), ep("p-x1", "node-x", "foo"),
         ep("p-y1", "node-y", "foo")], None, None,
        ([C(1, "zone", FOO), C(1, "node", FOO)],
         [{"zone1": 0, "zone2": 1}, {"node-b": 0, "node-x": 1}],
         [paths(("zone1", 0), ("zone2", 1)), paths(("node-b", 0), ("node-x", 1))]),
        id="two constraints zone honor/ignore and node honor/ignore"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", DNS, FOO, affinity_policy=IGNORE),
            sc(1, "node", DNS, FOO, taints_policy=HONOR), node_selector={"foo": ""}),
        [zn("node-a", "zone1"), zn("node-b", "zone1", TAINTS, foo=""),
         zn("node-x", "zone2", foo=""), zn("node-y", "zone2", foo="")],
        [ep("p-a1", "node-a", "foo"), ep("p-a2", "node-a", "foo"), ep("p-x1", "node-x", "foo"),
         ep("p-x2", "node-x", "foo"), ep("p-y1", "node-y", "foo")], None, None,
        ([C(1, "zone", FOO, affinity_policy=IGNORE), C(1, "node", FOO, taints_policy=HONOR)],
         [{"zone1": 2, "zone2": 3}, {"node-x": 2, "node-y": 1}],
         [paths(("zone1", 2), ("zone2", 3)), paths(("node-y", 1), ("node-x", 2))]),
        id="two constraints zone ignore/ignore and node honor/honor"),
    pytest.param(
        pod({"foo": "", "bar": "a"}, sc(1, "zone", DNS, FOO, match_label_keys=["bar"])),
        nodes_ab_xy(),
        [ep("p-a1", "node-a", "foo"), ep("p-a2", "node-a", "foo", bar="a"),
         ep("p-b1", "node-b", "foo"), ep("p-y1", "node-y", "foo", bar="a"),
         ep("p-y2", "node-y", "bar")], None, None,
        ([C(1, "zone", {"matchExpressions": [{"key": "foo", "operator": "Exists"}],
                        "matchLabels": {"bar": "a"}})],
         [{"zone1": 1, "zone2": 1}], [paths(("zone2", 1), ("zone1", 1))]),
        id="matchLabelKeys are ANDed with a non-empty label selector"),
    pytest.param(
        pod({"foo": "a"}, sc(1, "zone", DNS, {}, match_label_keys=["foo"])), nodes_ab_xy(),
        [ep("p-a1", "node-a", foo="a"), ep("p-a2", "node-a", foo="a"),
         ep("p-b1", "node-b", foo="a"), ep("p-y1", "node-y", foo="a"),
         ep("p-y2", "node-y", foo="a")], None, None,
        ([C(1, "zone", {"matchLabels": {"foo": "a"}})], [{"zone1": 3, "zone2": 2}],
         [paths(("zone2", 2), ("zone1", 3))]),
        id="matchLabelKeys are ANDed with an empty label selector"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", DNS, None, match_label_keys=["bar"])), nodes_ab_xy(),
        [ep("p-a1", "node-a", foo="a"), ep("p-a2", "node-a", foo="a"),
         ep("p-b1", "node-b", foo="a"), ep("p-y1", "node-y", foo="a"),
         ep("p-y2", "node-y", foo="a")], None, None,
        ([C(1, "zone", None)], [{"zone1": 0, "zone2": 0}], [paths(("zone2", 0), ("zone1", 0))]),
        id="matchLabelKeys with a nil label selector still match no pod"),
    pytest.param(
        pod({"foo": "a"}, sc(1, "zone", DNS, None, match_label_keys=["foo"])), nodes_ab_xy(),
        [ep("p-a1", "node-a", foo="a"), ep("p-y1", "node-y", foo="a")], None, None,
        ([C(1, "zone", None)], [{"zone1": 0, "zone2": 0}], [paths(("zone2", 0), ("zone1", 0))]),
        id="the pod's matchLabelKeys values are not merged into a nil label selector"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", DNS, FOO, match_label_keys=["bar"])), nodes_ab_xy(),
        [ep("p-a1", "node-a", foo="a"), ep("p-a2", "node-a", foo="a"),
         ep("p-b1", "node-b", foo="a"), ep("p-y1", "node-y", foo="a"),
         ep("p-y2", "node-y", foo="a")], None, None,
        ([C(1, "zone", FOO)], [{"zone1": 3, "zone2": 2}], [paths(("zone2", 2), ("zone1", 3))]),
        id="matchLabelKeys missing from the pod's labels are ignored"),
    pytest.param(
        pod({"foo": ""}), [zn("node-a", "zone1")], [], None, None, "skip",
        id="a pod without constraints skips the plugin"),
]


@pytest.mark.parametrize("incoming, nodes, existing, defaults, objs, want",
                         PRE_FILTER_STATE_CASES)
def test_pre_filter_state(incoming, nodes, existing, defaults, objs, want):
    from scheduler_core.testing.podtopologyspread import objects
    args = {"defaultingType": "List", "defaultConstraints": defaults or []}
    pl, snapshot = setup(nodes, existing, args, objects(Service=objs or []))
    state = CycleState()
    result, status = pl.pre_filter(state, incoming, snapshot.list())
    assert result is None
    if want == "skip":
        assert status is not None and status.code == Code.SKIP
        assert state.get(PRE_FILTER_STATE_KEY) is None
        return
    assert status is None
    assert_state(state.read(PRE_FILTER_STATE_KEY), want)


NODE_FOO = C(1, "node", FOO)
ZONE_FOO = C(1, "zone", FOO)

ADD_POD_CASES = [
    pytest.param(
        pod({"foo": ""}, sc(1, "node", DNS, FOO)), ep("p-a1", "node-a", "foo"), [], 0,
        [zn("node-a", "zone1"), zn("node-b", "zone1")],
        ([NODE_FOO], [{"node-a": 1, "node-b": 0}], [paths(("node-b", 0), ("node-a", 1))]),
        id="adding to one of two empty nodes moves the minimum to the other"),
    pytest.param(
        pod({"foo": ""}, sc(1, "node", DNS, FOO)), ep("p-a1", "node-a", "foo"),
        [ep("p-b1", "node-b", "foo")], 0, [zn("node-a", "zone1"), zn("node-b", "zone1")],
        ([NODE_FOO], [{"node-a": 1, "node-b": 1}], [paths(("node-a", 1), ("node-b", 1))]),
        id="only node a impacts the current minimum"),
    pytest.param(
        pod({"foo": ""}, sc(1, "node", DNS, FOO)), ep("p-a1", "node-a", "foo", ns="ns1"),
        [ep("p-b1", "node-b", "foo")], 0, [zn("node-a", "zone1"), zn("node-b", "zone1")],
        ([NODE_FOO], [{"node-a": 0, "node-b": 1}], [paths(("node-a", 0), ("node-b", 1))]),
        id="adding a pod of another namespace changes nothing"),
    pytest.param(
        pod({"foo": ""}, sc(1, "node", DNS, FOO)), ep("p-b2", "node-b", "foo"),
        [ep("p-b1", "node-b", "foo")], 1, [zn("node-a", "zone1"), zn("node-b", "zone1")],
        ([NODE_FOO], [{"node-a": 0, "node-b": 2}], [paths(("node-a", 0), ("node-b", 2))]),
        id="adding to a non-critical node keeps the minimum"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", DNS, FOO), sc(1, "node", DNS, FOO)),
        ep("p-a1", "node-a", "foo"), [], 0, [zn("node-a", "zone1"), zn("node-x", "zone2")],
        ([ZONE_FOO, NODE_FOO], [{"zone1": 1, "zone2": 0}, {"node-a": 1, "node-x": 0}],
         [paths(("zone2", 0), ("zone1", 1)), paths(("node-x", 0), ("node-a", 1))]),
        id="node a and x both impact the minimum on zone and node"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", DNS, FOO), sc(1, "node", DNS, FOO)),
        ep("p-a1", "node-a", "foo"), [ep("p-x1", "node-x", "foo")], 0,
        [zn("node-a", "zone1"), zn("node-x", "zone2")],
        ([ZONE_FOO, NODE_FOO], [{"zone1": 1, "zone2": 1}, {"node-a": 1, "node-x": 1}],
         [paths(("zone1", 1), ("zone2", 1)), paths(("node-a", 1), ("node-x", 1))]),
        id="only node a impacts the minimum on zone and node"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", DNS, FOO), sc(1, "node", DNS, FOO)),
        ep("p-a1", "node-a", "foo"),
        [ep("p-b1", "node-b", "foo"), ep("p-b2", "node-b", "foo"), ep("p-x1", "node-x", "foo")],
        0, [zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-x", "zone2")],
        ([ZONE_FOO, NODE_FOO],
         [{"zone1": 3, "zone2": 1}, {"node-a": 1, "node-b": 2, "node-x": 1}],
         [paths(("zone2", 1), ("zone1", 3)), paths(("node-a", 1), ("node-x", 1))]),
        id="node a impacts the minimum on node and node x the one on zone"),
    pytest.param(
        pod({"foo": "", "bar": ""}, sc(1, "zone", DNS, FOO), sc(1, "node", DNS, BAR)),
        ep("p-a1", "node-a", "foo"),
        [ep("p-b1", "node-b", "foo", "bar"), ep("p-x1", "node-x", "foo", "bar"),
         ep("p-x2", "node-x", "bar")],
        0, [zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-x", "zone2")],
        ([ZONE_FOO, C(1, "node", BAR)],
         [{"zone1": 2, "zone2": 1}, {"node-a": 0, "node-b": 1, "node-x": 2}],
         [paths(("zone2", 1), ("zone1", 2)), paths(("node-a", 0), ("node-b", 1))]),
        id="with different selectors the added pod counts only where it matches"),
    pytest.param(
        pod({"foo": "", "bar": ""}, sc(1, "zone", DNS, FOO), sc(1, "node", DNS, BAR)),
        ep("p-a1", "node-a", "foo", "bar"),
        [ep("p-b1", "node-b", "bar"), ep("p-x1", "node-x", "foo", "bar"),
         ep("p-x2", "node-x", "bar")],
        0, [zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-x", "zone2")],
        ([ZONE_FOO, C(1, "node", BAR)],
         [{"zone1": 1, "zone2": 1}, {"node-a": 1, "node-b": 1, "node-x": 2}],
         [paths(("zone1", 1), ("zone2", 1)), paths(("node-a", 1), ("node-b", 1))]),
        id="with different selectors the added pod counts for both constraints"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", DNS, FOO), affinity_not_in=("foo", ["bar"])),
        ep("p-a1", "node-a", "foo", zone="zone1"),
        [ep("p-a2", "node-a", "foo", zone="zone1"), ep("p-b1", "node-b", "foo", zone="zone2")],
        0, [zn("node-a", "zone1", foo="bar"), zn("node-b", "zone2", foo="")],
        ([ZONE_FOO], [{"zone2": 1}], [paths(("zone2", 1))]),
        id="adding to a node the preemptor's node affinity excludes changes nothing"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", DNS, FOO)), ep("p-b1", "node-b", "foo", zone="zone2"),
        [ep("p-a1", "node-a", "foo", zone="zone1"), ep("p-b2", "node-b", "foo", zone="zone2")],
        1, [zn("node-a", "zone1", foo="bar"), zn("node-b", "zone2", foo="")],
        ([ZONE_FOO], [{"zone1": 1, "zone2": 2}], [paths(("zone1", 1), ("zone2", 2))]),
        id="adding to a node the preemptor's node affinity selects counts"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", DNS, FOO)), ep("p-b1", "node-b", zone="zone2"),
        [ep("p-a1", "node-a", "foo", zone="zone1"), ep("p-b2", "node-b", "foo", zone="zone2")],
        1, [zn("node-a", "zone1", foo="bar"), zn("node-b", "zone2", foo="")],
        ([ZONE_FOO], [{"zone1": 1, "zone2": 1}], [paths(("zone1", 1), ("zone2", 1))]),
        id="adding a pod the selector does not match changes nothing"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", DNS, FOO)), ep("p-b1", "node-b", "foo", zone="zone2"),
        [ep("p-a1", "node-a", "foo", zone="zone1"), ep("p-b2", "node-b", "foo", zone="zone2")],
        1, [zn("node-a", "zone1", TAINTS), zn("node-b", "zone2")],
        ([ZONE_FOO], [{"zone1": 1, "zone2": 2}], [paths(("zone1", 1), ("zone2", 2))]),
        id="taints are ignored by default when adding a pod"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", DNS, FOO), tolerate="node.kubernetes.io/unschedulable"),
        ep("p-b1", "node-b", "foo", zone="zone2"),
        [ep("p-a1", "node-a", "foo", zone="zone1"), ep("p-b2", "node-b", "foo", zone="zone2")],
        1, [zn("node-a", "zone1", TAINTS), zn("node-b", "zone2")],
        ([ZONE_FOO], [{"zone1": 1, "zone2": 2}], [paths(("zone1", 1), ("zone2", 2))]),
        id="a tolerating preemptor counts a pod added beside tainted nodes"),
]


@pytest.mark.parametrize("preemptor, added, existing, node_idx, nodes, want", ADD_POD_CASES)
def test_pre_filter_state_add_pod(preemptor, added, existing, node_idx, nodes, want):
    pl, snapshot = setup(nodes, existing)
    state = CycleState()
    _, status = pl.pre_filter(state, preemptor, snapshot.list())
    assert status is None
    node_info = snapshot.get(nodes[node_idx]["metadata"]["name"])
    assert pl.pre_filter_extensions().add_pod(state, preemptor, added, node_info) is None
    assert_state(state.read(PRE_FILTER_STATE_KEY), want)


def _remove_cases():
    three = [zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-x", "zone2")]
    one_each = [ep("p-a1", "node-a", "foo"), ep("p-b1", "node-b", "foo"),
                ep("p-x1", "node-x", "foo")]
    four_pods = one_each + [ep("p-y1", "node-y", "foo")]
    zone_pod = pod({"foo": ""}, sc(1, "zone", DNS, FOO))
    two = [ep("p-a1", "node-a", "foo"), ep("p-a2", "node-a", "foo"),
           ep("p-b1", "node-b", "foo"), ep("p-x1", "node-x", "foo"), ep("p-x2", "node-x", "foo")]
    affinity_nodes = [zn("node-a", "zone1", foo="bar"), zn("node-b", "zone2", foo="")]
    return [
        pytest.param(
            zone_pod, three, one_each, 0, None, 0,
            ([ZONE_FOO], [{"zone1": 1, "zone2": 1}], [paths(("zone1", 1), ("zone2", 1))]),
            id="removing from zone1 evens the zones"),
        pytest.param(
            zone_pod, nodes_ab_xy(), four_pods, 0, None, 0,
            ([ZONE_FOO], [{"zone1": 1, "zone2": 2}], [paths(("zone1", 1), ("zone2", 2))]),
            id="removing from zone1 makes it the critical path"),
        pytest.param(
            zone_pod, nodes_ab_xy(), [ep("p-a0", "node-a", "bar")] + four_pods, 0, None, 0,
            ([ZONE_FOO], [{"zone1": 2, "zone2": 2}], [paths(("zone1", 2), ("zone2", 2))]),
            id="removing a pod the selector does not match won't help"),
        pytest.param(
            zone_pod, nodes_ab_xy(), four_pods, -1, ep("p-a0", "node-a", "bar"), 0,
            ([ZONE_FOO], [{"zone1": 2, "zone2": 2}], [paths(("zone1", 2), ("zone2", 2))]),
            id="removing a pod that does not exist won't help"),
        pytest.param(
            pod({"foo": ""}, sc(1, "zone", DNS, FOO), sc(1, "node", DNS, FOO)), three, two, 3,
            None, 2,
            ([ZONE_FOO, NODE_FOO],
             [{"zone1": 3, "zone2": 1}, {"node-a": 2, "node-b": 1, "node-x": 1}],
             [paths(("zone2", 1), ("zone1", 3)), paths(("node-b", 1), ("node-x", 1))]),
            id="removing from node-x updates both constraints"),
        pytest.param(
            pod({"foo": ""}, sc(1, "zone", DNS, FOO), affinity_not_in=("foo", ["bar"])),
            affinity_nodes,
            [ep("p-a2", "node-a", "foo", zone="zone1"), ep("p-b1", "node-b", "foo", zone="zone2")],
            -1, ep("p-a1", "node-a", "foo", zone="zone1"), 0,
            ([ZONE_FOO], [{"zone2": 1}], [paths(("zone2", 1))]),
            id="removing from a node the preemptor's node affinity excludes changes nothing"),
        pytest.param(
            zone_pod, affinity_nodes,
            [ep("p-a1", "node-a", "foo", zone="zone1"), ep("p-b2", "node-b", "foo", zone="zone2")],
            -1, ep("p-b1", "node-b", "foo", zone="zone2"), 1,
            ([ZONE_FOO], [{"zone1": 1, "zone2": 0}], [paths(("zone2", 0), ("zone1", 1))]),
            id="removing from a node the preemptor's node affinity selects counts"),
    ]


@pytest.mark.parametrize("preemptor, nodes, existing, deleted_idx, deleted, node_idx, want",
                         _remove_cases())
def test_pre_filter_state_remove_pod(preemptor, nodes, existing, deleted_idx, deleted, node_idx,
                                     want):
    pl, snapshot = setup(nodes, existing)
    state = CycleState()
    _, status = pl.pre_filter(state, preemptor, snapshot.list())
    assert status is None
    if 0 <= deleted_idx < len(existing):
        deleted = existing[deleted_idx]
    node_info = snapshot.get(nodes[node_idx]["metadata"]["name"])
    assert pl.pre_filter_extensions().remove_pod(state, preemptor, deleted, node_info) is None
    assert_state(state.read(PRE_FILTER_STATE_KEY), want)


def test_cloned_state_is_independent_of_add_and_remove():
    pl, snapshot = setup([zn("node-a", "zone1"), zn("node-b", "zone2")],
                         [ep("p-a1", "node-a", "foo")])
    preemptor = pod({"foo": ""}, sc(1, "zone", DNS, FOO))
    state = CycleState()
    pl.pre_filter(state, preemptor, snapshot.list())
    clone = state.clone()
    pl.remove_pod(clone, preemptor, ep("p-a1", "node-a", "foo"), snapshot.get("node-a"))
    assert state.read(PRE_FILTER_STATE_KEY).tp_value_to_match_num == [{"zone1": 1, "zone2": 0}]
    assert clone.read(PRE_FILTER_STATE_KEY).tp_value_to_match_num == [{"zone1": 0, "zone2": 0}]
    assert state.read(PRE_FILTER_STATE_KEY).critical_paths[0].num0 == 0
    assert sorted(clone.read(PRE_FILTER_STATE_KEY).critical_paths[0].pairs()) == paths(
        ("zone1", 0), ("zone2", 0))


def _codes(**codes):
    return codes


SINGLE_CONSTRAINT_CASES = [
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", DNS, FOO)), nodes_ab_xy(), [],
        _codes(a=SUCCESS, b=SUCCESS, x=SUCCESS, y=SUCCESS),
        id="no existing pods lets every node fit"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", DNS, BAR)), nodes_ab_xy(), [],
        _codes(a=SUCCESS, b=SUCCESS, x=SUCCESS, y=SUCCESS),
        id="no existing pods and the incoming pod does not match itself"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", DNS, FOO)), nodes_ab_xy(),
        [ep("p-a1", "node-a", "foo", ns="ns1"), ep("p-b1", "node-a", "foo", ns="ns2"),
         ep("p-x1", "node-x", "foo"), ep("p-y1", "node-y", "foo")],
        _codes(a=SUCCESS, b=SUCCESS, x=UNSCHED, y=UNSCHED),
        id="existing pods in a different namespace do not count"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", DNS, None)), nodes_ab_xy(),
        [ep("p-x1", "node-x", "foo"), ep("p-y1", "node-y", "foo")],
        _codes(a=SUCCESS, b=SUCCESS, x=SUCCESS, y=SUCCESS),
        id="existing pods do not match a null selector"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", DNS, {})), nodes_ab_xy(),
        [ep("p-a1", "node-a", "foo"), ep("p-a2", "node-a", "bar"), ep("p-y1", "node-y"),
         ep("p-x1", "node-x", ns="other")],
        _codes(a=UNSCHED, b=UNSCHED, x=SUCCESS, y=SUCCESS),
        id="an empty label selector counts every pod of the namespace"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", DNS, FOO)), nodes_ab_xy(),
        spread_a2_b1_y2() + [ep("p-y3", "node-y", "foo")],
        _codes(a=SUCCESS, b=SUCCESS, x=SUCCESS, y=SUCCESS),
        id="pods spread across zones as 3/3 let all nodes fit"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", DNS, FOO)),
        [zn("node-a", "zone1"), mk_node("node-b", {"zon": "zone1", "node": "node-b"}),
         zn("node-x", "zone2"), zn("node-y", "zone2")],
        [ep("p-a1", "node-a", "foo"), ep("p-b1", "node-b", "foo"), ep("p-x1", "node-x", "foo"),
         ep("p-y1", "node-y", "foo")],
        _codes(a=SUCCESS, b=UNRESOLVABLE, x=UNSCHED, y=UNSCHED),
        id="pods spread across zones as 1/2 because node-b lacks the zone label"),
    pytest.param(
        pod({"foo": ""}, sc(1, "rack", DNS, FOO)),
        [zn("node-a", "zone1"), zn("node-x", "zone2")], [],
        _codes(a=UNRESOLVABLE, x=UNRESOLVABLE),
        id="no node has the rack label so none can hold the pod"),
    pytest.param(
        pod({"foo": ""}, sc(1, "node", DNS, FOO)), nodes_ab_xy(),
        spread_a2_b1_y2() + [ep("p-y3", "node-y", "foo")],
        _codes(a=UNSCHED, b=UNSCHED, x=SUCCESS, y=UNSCHED),
        id="pods spread across nodes as 2/1/0/3 only node-x fits"),
    pytest.param(
        pod({"foo": ""}, sc(2, "node", DNS, FOO)), nodes_ab_xy(),
        spread_a2_b1_y2() + [ep("p-y3", "node-y", "foo")],
        _codes(a=UNSCHED, b=SUCCESS, x=SUCCESS, y=UNSCHED),
        id="pods spread across nodes as 2/1/0/3 with maxSkew 2 node-b and node-x fit"),
    pytest.param(
        pod({"bar": ""}, sc(1, "node", DNS, FOO)), nodes_ab_xy(),
        spread_a2_b1_y2() + [ep("p-y3", "node-y", "foo")],
        _codes(a=UNSCHED, b=SUCCESS, x=SUCCESS, y=UNSCHED),
        id="pods spread as 2/1/0/3 and the pod does not match itself"),
    pytest.param(
        pod({"foo": ""}, sc(1, "node", DNS, FOO), affinity_in=("node", ["node-a", "node-y"])),
        nodes_ab_xy(), spread_a2_b1_y2() + [ep("p-y3", "node-y", "foo")],
        _codes(a=SUCCESS, b=SUCCESS, x=SUCCESS, y=UNSCHED),
        id="with node affinity only node-a and node-y are domains so node-a fits"),
    pytest.param(
        pod({"foo": ""}, sc(1, "node", DNS, FOO)),
        [mk_node("node-a", {"node": "node-a"}), mk_node("node-b", {"node": "node-b"})],
        [ep("p-a", "node-a", "foo", terminating=True), ep("p-b", "node-b", "foo")],
        _codes(a=SUCCESS, b=UNSCHED),
        id="terminating pods are not counted"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", DNS, FOO), affinity_not_in=("node", ["node-b"])),
        nodes_ab_xy(),
        [ep("p-b1", "node-b", "foo"), ep("p-b2", "node-b", "foo"), ep("p-y1", "node-y", "foo")],
        _codes(a=SUCCESS, b=SUCCESS, x=UNSCHED, y=UNSCHED),
        id="with node affinity pods spread as 0/~2~/0/1 so zone1 fits"),
    pytest.param(
        pod({"foo": ""}, sc(2, "node", DNS, FOO, min_domains=4)),
        [mk_node("node-a", {"node": "node-a"}), mk_node("node-b", {"node": "node-b"}),
         mk_node("node-c", {"node": "node-c"})],
        [ep("p-a1", "node-a", "foo"), ep("p-a2", "node-a", "foo"), ep("p-b1", "node-b", "foo"),
         ep("p-b2", "node-b", "foo"), ep("p-c1", "node-c", "foo")],
        _codes(a=UNSCHED, b=UNSCHED, c=SUCCESS),
        id="fewer domains than minDomains makes the global minimum zero"),
    pytest.param(
        pod({"foo": ""}, sc(2, "node", DNS, FOO, min_domains=2)),
        [mk_node("node-a", {"node": "node-a"}), mk_node("node-b", {"node": "node-b"}),
         mk_node("node-c", {"node": "node-c"})],
        [ep("p-a1", "node-a", "foo"), ep("p-a2", "node-a", "foo"), ep("p-b1", "node-b", "foo"),
         ep("p-b2", "node-b", "foo"), ep("p-c1", "node-c", "foo")],
        _codes(a=SUCCESS, b=SUCCESS, c=SUCCESS),
        id="more domains than minDomains keeps the real global minimum"),
    pytest.param(
        pod({"foo": ""}, sc(2, "zone", DNS, FOO, min_domains=3)), nodes_ab_xy(),
        [ep("p-b1", "node-a", "foo"), ep("p-b2", "node-b", "foo"), ep("p-y1", "node-y", "foo")],
        _codes(a=UNSCHED, b=UNSCHED, x=SUCCESS, y=SUCCESS),
        id="zones spread as 2/1 with fewer zones than minDomains only zone2 fits"),
    pytest.param(
        pod({"foo": ""}, sc(2, "zone", DNS, FOO, min_domains=1)), nodes_ab_xy(),
        [ep("p-b1", "node-a", "foo"), ep("p-b2", "node-b", "foo"), ep("p-y1", "node-y", "foo")],
        _codes(a=SUCCESS, b=SUCCESS, x=SUCCESS, y=SUCCESS),
        id="zones spread as 2/1 with more zones than minDomains all nodes fit"),
    pytest.param(
        pod({"foo": ""}, sc(1, "node", DNS, FOO), node_selector={"foo": ""}),
        [mk_node("node-a", {"node": "node-a", "foo": ""}),
         mk_node("node-b", {"node": "node-b", "foo": ""}),
         mk_node("node-x", {"node": "node-x", "foo": ""}), mk_node("node-y", {"node": "node-y"})],
        [ep("p-b1", "node-a", "foo"), ep("p-b2", "node-b", "foo"), ep("p-y1", "node-y", "foo")],
        _codes(a=UNSCHED, b=UNSCHED, x=SUCCESS, y=SUCCESS),
        id="node affinity policy honored with a node selector spreads as 1/1/0/~0~"),
    pytest.param(
        pod({"foo": ""}, sc(1, "node", DNS, FOO, affinity_policy=IGNORE),
            node_selector={"foo": ""}),
        [mk_node("node-a", {"node": "node-a", "foo": ""}),
         mk_node("node-b", {"node": "node-b", "foo": ""}),
         mk_node("node-x", {"node": "node-x", "foo": ""}), mk_node("node-y", {"node": "node-y"})],
        [ep("p-b1", "node-a", "foo"), ep("p-b2", "node-b", "foo"), ep("p-y1", "node-y", "foo")],
        _codes(a=UNSCHED, b=UNSCHED, x=SUCCESS, y=UNSCHED),
        id="node affinity policy ignored with a node selector spreads as 1/1/0/1"),
    pytest.param(
        pod({"foo": ""}, sc(1, "node", DNS, FOO), affinity_in=("foo", [""])),
        [mk_node("node-a", {"node": "node-a", "foo": ""}),
         mk_node("node-b", {"node": "node-b", "foo": ""}),
         mk_node("node-x", {"node": "node-x", "foo": ""}), mk_node("node-y", {"node": "node-y"})],
        [ep("p-b1", "node-a", "foo"), ep("p-b2", "node-b", "foo"), ep("p-y1", "node-y", "foo")],
        _codes(a=UNSCHED, b=UNSCHED, x=SUCCESS, y=SUCCESS),
        id="node affinity policy honored with a required node affinity"),
    pytest.param(
        pod({"foo": ""}, sc(1, "node", DNS, FOO, affinity_policy=IGNORE),
            affinity_in=("foo", [""])),
        [mk_node("node-a", {"node": "node-a", "foo": ""}),
         mk_node("node-b", {"node": "node-b", "foo": ""}),
         mk_node("node-x", {"node": "node-x", "foo": ""}), mk_node("node-y", {"node": "node-y"})],
        [ep("p-b1", "node-a", "foo"), ep("p-b2", "node-b", "foo"), ep("p-y1", "node-y", "foo")],
        _codes(a=UNSCHED, b=UNSCHED, x=SUCCESS, y=UNSCHED),
        id="node affinity policy ignored with a required node affinity"),
    pytest.param(
        pod({"foo": ""}, sc(1, "node", DNS, FOO, taints_policy=HONOR)),
        [mk_node("node-a", {"node": "node-a", "foo": ""}),
         mk_node("node-b", {"node": "node-b", "foo": ""}),
         mk_node("node-x", {"node": "node-x", "foo": ""}),
         mk_node("node-y", {"node": "node-y"}, TAINTS)],
        [ep("p-b1", "node-a", "foo"), ep("p-b2", "node-b", "foo"), ep("p-y1", "node-y", "foo")],
        _codes(a=UNSCHED, b=UNSCHED, x=SUCCESS, y=SUCCESS),
        id="node taints policy honored leaves the tainted node out"),
    pytest.param(
        pod({"foo": ""}, sc(1, "node", DNS, FOO)),
        [mk_node("node-a", {"node": "node-a", "foo": ""}),
         mk_node("node-b", {"node": "node-b", "foo": ""}),
         mk_node("node-x", {"node": "node-x", "foo": ""}),
         mk_node("node-y", {"node": "node-y"}, TAINTS)],
        [ep("p-b1", "node-a", "foo"), ep("p-b2", "node-b", "foo"), ep("p-y1", "node-y", "foo")],
        _codes(a=UNSCHED, b=UNSCHED, x=SUCCESS, y=UNSCHED),
        id="node taints policy ignored counts the tainted node"),
]

MULTIPLE_CONSTRAINTS_CASES = [
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", DNS, FOO), sc(1, "node", DNS, FOO)), nodes_ab_xy(),
        spread_a2_b1_y2() + [ep("p-y3", "node-y", "foo")],
        _codes(a=UNSCHED, b=UNSCHED, x=SUCCESS, y=UNSCHED),
        id="zone and node constraints spread as 3/3 and 2/1/0/3 leave node-x"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", DNS, FOO), sc(1, "node", DNS, FOO)), nodes_ab_xy(),
        spread_a2_b1_y4(),
        _codes(a=UNSCHED, b=UNSCHED, x=UNSCHED, y=UNSCHED),
        id="zone and node constraints spread as 3/4 and 2/1/0/4 leave no node"),
    pytest.param(
        pod({"foo": "", "bar": ""}, sc(1, "zone", DNS, FOO), sc(1, "node", DNS, BAR)),
        nodes_ab_xy(), [ep("p-a1", "node-a", "foo"), ep("p-y1", "node-y", "bar")],
        _codes(a=UNSCHED, b=UNSCHED, x=SUCCESS, y=UNSCHED),
        id="different selectors spread as 1/0 and 1/0/0/1 leave node-x"),
    pytest.param(
        pod({"foo": "", "bar": ""}, sc(1, "zone", DNS, FOO), sc(1, "node", DNS, BAR)),
        nodes_ab_xy(),
        [ep("p-a1", "node-a", "foo"), ep("p-x1", "node-x", "bar"), ep("p-y1", "node-y", "bar")],
        _codes(a=UNSCHED, b=UNSCHED, x=UNSCHED, y=UNSCHED),
        id="different selectors spread as 1/0 and 0/0/1/1 leave no node"),
    pytest.param(
        pod({"foo": "", "bar": ""}, sc(1, "zone", DNS, FOO), sc(1, "node", DNS, BAR)),
        nodes_ab_xy(),
        [ep("p-a1", "node-a", "foo"), ep("p-a2", "node-a", "foo", "bar"),
         ep("p-y1", "node-y", "foo"), ep("p-y2", "node-y", "foo", "bar"),
         ep("p-y3", "node-y", "foo")],
        _codes(a=UNSCHED, b=SUCCESS, x=UNSCHED, y=UNSCHED),
        id="different selectors spread as 2/3 and 1/0/0/1 leave node-b"),
    pytest.param(
        pod({"bar": ""}, sc(1, "zone", DNS, FOO), sc(1, "node", DNS, BAR)), nodes_ab_xy(),
        [ep("p-a1", "node-a", "foo"), ep("p-x1", "node-x", "bar"), ep("p-y1", "node-y", "bar")],
        _codes(a=SUCCESS, b=SUCCESS, x=UNSCHED, y=UNSCHED),
        id="the pod not matching the zone selector may go to any zone"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", DNS, FOO), sc(1, "node", DNS, FOO)),
        [zn("node-a", "zone1"), zn("node-b", "zone1"), mk_node("node-x", {"zone": "zone2"}),
         zn("node-y", "zone2")],
        [ep("p-a1", "node-a", "foo"), ep("p-y3", "node-y", "foo")],
        _codes(a=UNSCHED, b=SUCCESS, x=UNRESOLVABLE, y=UNSCHED),
        id="node-x lacking the node label is unresolvable and node-b fits"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", DNS, FOO), sc(1, "node", DNS, FOO, affinity_policy=IGNORE),
            node_selector={"foo": ""}),
        [zn("node-a", "zone1", foo=""), zn("node-b", "zone1", foo=""),
         zn("node-x", "zone2", foo=""), zn("node-y", "zone2")],
        [ep("p-a1", "node-a", "foo"), ep("p-b1", "node-b", "foo"), ep("p-y1", "node-y", "foo")],
        _codes(a=UNSCHED, b=UNSCHED, x=SUCCESS, y=UNSCHED),
        id="zone honor/ignore and node ignore/ignore leave node-x"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", DNS, FOO, taints_policy=HONOR), sc(1, "node", DNS, FOO)),
        [zn("node-a", "zone1", foo=""), zn("node-b", "zone1", foo=""),
         zn("node-x", "zone2", foo=""), zn("node-y", "zone2", TAINTS)],
        [ep("p-a1", "node-a", "foo"), ep("p-b1", "node-b", "foo"), ep("p-y1", "node-y", "foo")],
        _codes(a=UNSCHED, b=UNSCHED, x=SUCCESS, y=UNSCHED),
        id="zone honor/honor and node honor/ignore leave node-x"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", DNS, FOO), sc(1, "node", DNS, FOO),
            node_selector={"foo": ""}),
        [zn("node-a", "zone1", foo=""), zn("node-b", "zone1"), zn("node-x", "zone2", foo=""),
         zn("node-y", "zone2", TAINTS, foo="")],
        [ep("p-a1", "node-a", "foo"), ep("p-b1", "node-b", "foo"), ep("p-y1", "node-y", "foo")],
        _codes(a=UNSCHED, b=SUCCESS, x=SUCCESS, y=UNSCHED),
        id="zone honor/ignore and node honor/ignore leave node-b and node-x"),
    pytest.param(
        pod({"foo": ""}, sc(1, "zone", DNS, FOO, taints_policy=HONOR),
            sc(1, "node", DNS, FOO, affinity_policy=IGNORE), node_selector={"foo": ""}),
        [zn("node-a", "zone1", foo=""), zn("node-b", "zone1"), zn("node-x", "zone2", foo=""),
         zn("node-y", "zone2", TAINTS, foo="")],
        [ep("p-a1", "node-a", "foo"), ep("p-b1", "node-b", "foo"), ep("p-y1", "node-y", "foo")],
        _codes(a=UNSCHED, b=UNSCHED, x=SUCCESS, y=UNSCHED),
        id="zone honor/honor and node ignore/ignore leave node-x"),
]


@pytest.mark.parametrize("incoming, nodes, existing, want",
                         SINGLE_CONSTRAINT_CASES + MULTIPLE_CONSTRAINTS_CASES)
def test_filter(incoming, nodes, existing, want):
    pl, snapshot = setup(nodes, existing)
    state = CycleState()
    _, status = pl.pre_filter(state, incoming, snapshot.list())
    assert status is None
    got = {}
    for n in nodes:
        name = n["metadata"]["name"]
        s = pl.filter(state, incoming, snapshot.get(name))
        got[name.removeprefix("node-")] = Code.SUCCESS if s is None else s.code
    assert got == want


def test_filter_reasons():
    nodes = [zn("node-a", "zone1"), mk_node("node-b", {"node": "node-b"}), zn("node-x", "zone2")]
    pl, snapshot = setup(nodes, [ep("p-a1", "node-a", "foo"), ep("p-a2", "node-a", "foo")])
    incoming = pod({"foo": ""}, sc(1, "zone", DNS, FOO))
    state = CycleState()
    pl.pre_filter(state, incoming, snapshot.list())
    skewed = pl.filter(state, incoming, snapshot.get("node-a"))
    assert (skewed.code, skewed.reasons) == (
        Code.UNSCHEDULABLE, ["node(s) didn't match pod topology spread constraints"])
    missing = pl.filter(state, incoming, snapshot.get("node-b"))
    assert (missing.code, missing.reasons) == (
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
        ["node(s) didn't match pod topology spread constraints (missing required label)"])


def test_filter_without_pre_filter_is_an_error():
    pl, snapshot = setup([zn("node-a", "zone1")])
    status = pl.filter(CycleState(), pod({"foo": ""}), snapshot.get("node-a"))
    assert status.code == Code.ERROR
    assert status.reasons == ['reading "PreFilterPodTopologySpread" from cycleState: not found']


def test_pre_filter_with_an_invalid_selector_is_an_error():
    pl, snapshot = setup([zn("node-a", "zone1")])
    bad = {"matchExpressions": [{"key": "foo", "operator": "In", "values": []}]}
    _, status = pl.pre_filter(CycleState(), pod({"foo": ""}, sc(1, "zone", DNS, bad)),
                              snapshot.list())
    assert status.code == Code.ERROR
    assert status.reasons[0].startswith(
        "get constraints from pod: obtaining pod's hard topology spread constraints: ")


def test_terminating_pod_stops_counting_without_a_node_change():
    """A graceful deletion marks the pod terminating in place; counts must follow."""
    nodes = [mk_node("node-a", {"node": "node-a"}), mk_node("node-b", {"node": "node-b"})]
    victim = ep("p-a", "node-a", "foo")
    pl, snapshot = setup(nodes, [victim, ep("p-b", "node-b", "foo")])
    incoming = pod({"foo": ""}, sc(1, "node", DNS, FOO))
    state = CycleState()
    pl.pre_filter(state, incoming, snapshot.list())
    assert state.read(PRE_FILTER_STATE_KEY).tp_value_to_match_num == [{"node-a": 1, "node-b": 1}]
    victim.deletion_time = 5.0
    state = CycleState()
    pl.pre_filter(state, incoming, snapshot.list())
    assert state.read(PRE_FILTER_STATE_KEY).tp_value_to_match_num == [{"node-a": 0, "node-b": 1}]


def test_counts_follow_pods_added_to_a_node():
    nodes = [mk_node("node-a", {"node": "node-a"}), mk_node("node-b", {"node": "node-b"})]
    pl, snapshot = setup(nodes, [ep("p-b", "node-b", "foo")])
    incoming = pod({"foo": ""}, sc(1, "node", DNS, FOO))
    state = CycleState()
    pl.pre_filter(state, incoming, snapshot.list())
    assert state.read(PRE_FILTER_STATE_KEY).tp_value_to_match_num == [{"node-a": 0, "node-b": 1}]
    snapshot.get("node-a").add_pod(ep("p-a", "node-a", "foo"))
    snapshot.get("node-a").add_pod(ep("p-a2", "node-a", "foo"))
    snapshot.get("node-b").remove_pod(ep("p-b", "node-b", "foo"))
    state = CycleState()
    pl.pre_filter(state, incoming, snapshot.list())
    assert state.read(PRE_FILTER_STATE_KEY).tp_value_to_match_num == [{"node-a": 2, "node-b": 0}]
