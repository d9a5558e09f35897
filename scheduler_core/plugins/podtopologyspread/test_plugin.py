"""Args, default selectors and requeueing hints, ported from plugin_test.go, helper/spread_test.go
and apis/config/validation's TestValidatePodTopologySpreadArgs."""
import pytest

from scheduler_core.testing.podtopologyspread import (
    BAR,
    DNS,
    FOO,
    HONOR,
    IGNORE,
    SA,
    ep,
    hn,
    objects,
    pod,
    replica_set,
    sc,
    service,
    setup,
    zn,
)

from ...framework.cycle_state import CycleState
from ...framework.status import Code
from ...labels import LabelSelector
from ...validation import is_qualified_name
from . import default_args, new, validate_args
from .common import default_selector, selector_key
from .plugin import QUEUE, QUEUE_SKIP, SYSTEM_DEFAULT_CONSTRAINTS


def test_default_args_default_to_system_defaulting():
    assert default_args({}) == {"defaultingType": "System"}
    assert default_args({"defaultingType": "List"}) == {"defaultingType": "List"}


def _c(max_skew=1, key="node", when=DNS, **extra):
    return {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": when, **extra}


P = "profiles[0].pluginConfig[0].args"

VALIDATION_CASES = [
    pytest.param({"defaultingType": "List", "defaultConstraints": [_c(), _c(2, "zone", SA)]}, [],
                 id="a valid list of default constraints"),
    pytest.param(
        {"defaultingType": "List", "defaultConstraints": [_c(-1)]},
        [f"{P}.defaultConstraints[0].maxSkew: Invalid value: -1: not in valid range (0, inf)"],
        id="maxSkew less than zero"),
    pytest.param(
        {"defaultingType": "List", "defaultConstraints": [_c(key="")]},
        [f"{P}.defaultConstraints[0].topologyKey: Required value: can not be empty"],
        id="empty topology key"),
    pytest.param(
        {"defaultingType": "List", "defaultConstraints": [_c(key="a/b/c")]},
        [(f'{P}.defaultConstraints[0].topologyKey: Invalid value: "a/b/c": a qualified name must '
          "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
          "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
          "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS "
          "subdomain prefix and '/' (e.g. 'example.com/MyName')")],
        id="topology key that is not a qualified name"),
    pytest.param(
        {"defaultingType": "List", "defaultConstraints": [_c(when="")]},
        [f"{P}.defaultConstraints[0].whenUnsatisfiable: Required value: can not be empty"],
        id="whenUnsatisfiable is empty"),
    pytest.param(
        {"defaultingType": "List", "defaultConstraints": [_c(when="unknown action")]},
        [(f'{P}.defaultConstraints[0].whenUnsatisfiable: Unsupported value: "unknown action": '
          'supported values: "DoNotSchedule", "ScheduleAnyway"')],
        id="whenUnsatisfiable contains an unsupported action"),
    pytest.param(
        {"defaultingType": "List", "defaultConstraints": [_c(), _c(2)]},
        [f'{P}.defaultConstraints[1]: Duplicate value: "{{node, DoNotSchedule}}"'],
        id="duplicated constraints"),
    pytest.param(
        {"defaultingType": "List",
         "defaultConstraints": [_c(key="key", labelSelector={"matchLabels": {"a": "b"}})]},
        [(f"{P}.defaultConstraints[0].labelSelector: Forbidden: constraint must not define a "
          "selector, as they deduced for each pod")],
        id="label selector present"),
    pytest.param({"defaultingType": "List"}, [], id="list defaulting without constraints"),
    pytest.param({"defaultingType": "System"}, [], id="system defaulting"),
    pytest.param(
        {"defaultingType": "unknown"},
        [f'{P}.defaultingType: Unsupported value: "unknown": supported values: "System", "List"'],
        id="unknown defaulting type"),
    pytest.param(
        {"defaultingType": "System", "defaultConstraints": [_c(key="key")]},
        [f'{P}.defaultingType: Invalid value: "System": when .defaultConstraints are not empty'],
        id="system defaulting with default constraints"),
    pytest.param(
        default_args({"defaultConstraints": [_c(key="key")]}),
        [f'{P}.defaultingType: Invalid value: "System": when .defaultConstraints are not empty'],
        id="default constraints need defaultingType List"),
]


@pytest.mark.parametrize("args, want", VALIDATION_CASES)
def test_validate_args(args, want):
    assert validate_args(args, P) == want


@pytest.mark.parametrize("value, want", [
    pytest.param("topology.kubernetes.io/zone", [], id="a prefixed key is qualified"),
    pytest.param("example.com/", ["name part must be non-empty",
                                  ("name part must consist of alphanumeric characters, '-', '_' "
                                   "or '.', and must start and end with an alphanumeric character "
                                   "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
                                   "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")],
                 id="an empty name part"),
    pytest.param("a" * 64, ["name part must be no more than 63 characters"],
                 id="a too long name part"),
    pytest.param("/zone", ["prefix part must be non-empty"], id="an empty prefix part"),
])
def test_qualified_name_errors(value, want):
    assert is_qualified_name(value) == want


def test_new_rejects_invalid_args():
    with pytest.raises(ValueError, match="maxSkew: Invalid value: 0"):
        new({"defaultingType": "List", "defaultConstraints": [_c(0)]}, None)


def test_system_defaulting_uses_hostname_and_zone_soft_constraints():
    pl, _ = setup([], [], {"defaultingType": "System"})
    assert pl.system_defaulted
    assert pl.default_constraints["DoNotSchedule"] == []
    assert [(c.topology_key, c.max_skew) for c in pl.default_constraints["ScheduleAnyway"]] == [
        ("kubernetes.io/hostname", 3), ("topology.kubernetes.io/zone", 5)]
    assert SYSTEM_DEFAULT_CONSTRAINTS[0]["whenUnsatisfiable"] == SA


def test_system_defaulting_skips_the_filter_for_a_pod_a_service_selects():
    pl, snapshot = setup([zn("node-a", "zone1")], [], {"defaultingType": "System"},
                         objects(Service=[service({"foo": "bar"})]))
    _, status = pl.pre_filter(CycleState(), pod({"foo": "bar"}), snapshot.list())
    assert status.code == Code.SKIP


def _selector(labels=None, *exprs):
    return selector_key(LabelSelector({"matchLabels": labels or {},
                                       "matchExpressions": list(exprs)}))


EXISTS_TAR = {"key": "tar", "operator": "Exists"}

DEFAULT_SELECTOR_CASES = [
    pytest.param(pod({"app": "test-0"}, ns="test"),
                 [service({"app": "test-0"}, ns="test", name="service-0"),
                  service({"app": "test-1"}, ns="test", name="service-1")],
                 [], _selector({"app": "test-0"}), id="the service selecting the pod"),
    pytest.param(pod({"app": "test-3"}, ns="test"),
                 [service({"app": "test-0"}, ns="test", name="service-0")], [], _selector(),
                 id="no service selects the pod"),
    pytest.param(pod({"app": "a"}), [service({"app": "a"}, ns="other")], [], _selector(),
                 id="services of another namespace are not used"),
    pytest.param(pod({"app": "a"}), [{"metadata": {"name": "nil"}, "spec": {}}], [],
                 _selector(), id="a service with a nil selector selects nothing"),
    pytest.param(pod({"app": "a", "tier": "web"}),
                 [service({"app": "a"}, name="s1"), service({"tier": "web"}, name="s2")], [],
                 _selector({"app": "a", "tier": "web"}),
                 id="selectors of all services selecting the pod are merged"),
    pytest.param(pod({"app": "a", "tar": ""}, owner=("apps/v1", "ReplicaSet", "rs1")),
                 [service({"app": "a"})],
                 [replica_set("rs1", {"matchExpressions": [EXISTS_TAR]})],
                 _selector({"app": "a"}, EXISTS_TAR),
                 id="the owning replicaset's requirements are added"),
    pytest.param(pod({"app": "a"}, owner=("apps/v1", "ReplicaSet", "rs2")), [],
                 [replica_set("rs1", FOO)], _selector(),
                 id="a replicaset that is not the owner is not used"),
    pytest.param(pod({"app": "a"}, owner=("apps/v1", "Deployment", "rs1")), [],
                 [replica_set("rs1", FOO)], _selector(),
                 id="owners of unsupported kinds are not used"),
]


@pytest.mark.parametrize("incoming, services, replica_sets, want", DEFAULT_SELECTOR_CASES)
def test_default_selector(incoming, services, replica_sets, want):
    objs = objects(Service=services, ReplicaSet=replica_sets)
    assert selector_key(default_selector(incoming, objs)) == want


def test_default_selector_uses_replication_controllers_and_stateful_sets():
    rc = {"metadata": {"name": "rc1"}, "spec": {"selector": {"rc": "x"}}}
    ss = {"metadata": {"name": "ss1"}, "spec": {"selector": {"matchLabels": {"ss": "y"}}}}
    objs = objects(ReplicationController=[rc], StatefulSet=[ss])
    by_rc = pod({"rc": "x"}, owner=("v1", "ReplicationController", "rc1"))
    by_ss = pod({"ss": "y"}, owner=("apps/v1", "StatefulSet", "ss1"))
    assert selector_key(default_selector(by_rc, objs)) == _selector({"rc": "x"})
    ss_req = {"key": "ss", "operator": "In", "values": ["y"]}
    assert selector_key(default_selector(by_ss, objs)) == _selector({}, ss_req)


def test_owner_reference_must_be_the_controller():
    incoming = pod({"app": "a"}, owner=("apps/v1", "ReplicaSet", "rs1"))
    incoming.obj["metadata"]["ownerReferences"][0]["controller"] = False
    objs = objects(ReplicaSet=[replica_set("rs1", FOO)])
    assert default_selector(incoming, objs).is_empty()


def test_events_to_register():
    pl, _ = setup([])
    assert pl.events_to_register() == {
        "AssignedPodAdd", "AssignedPodUpdate", "AssignedPodDelete", "UnscheduledPodUpdate",
        "NodeAdd", "NodeUpdate"}


def _node(name, **labels):
    return {"metadata": {"name": name, "labels": labels}, "spec": {}}


def _tainted(node, key):
    node["spec"]["taints"] = [{"key": key, "value": "bbb", "effect": "NoSchedule"}]
    return node


ZONE_POD = pod(None, sc(1, "zone", DNS, FOO))
ZONE_NODE_POD = pod(None, sc(1, "zone", DNS, FOO), sc(1, "node", DNS, FOO))

NODE_CHANGE_CASES = [
    pytest.param(ZONE_POD, _node("node-a", zone="zone1"), _node("node-a", zone="zone2"), QUEUE,
                 id="a node update changing the topology label requeues"),
    pytest.param(ZONE_POD, _node("node-a", foo="bar1"), _node("node-a", foo="bar2"), QUEUE_SKIP,
                 id="an unrelated label update on a node without the key is skipped"),
    pytest.param(ZONE_NODE_POD, _node("node-a", zone="zone1", node="node1", foo="bar"),
                 _node("node-a", zone="zone1", node="node1"), QUEUE_SKIP,
                 id="an unrelated label update on a matching node is skipped"),
    pytest.param(ZONE_POD, None, _node("node-a", foo="bar"), QUEUE_SKIP,
                 id="a created node without the topology key is skipped"),
    pytest.param(ZONE_POD, None, _node("node-a", zone="zone1"), QUEUE,
                 id="a created node with the topology key requeues"),
    pytest.param(ZONE_POD, _node("node-a", foo="bar"), None, QUEUE_SKIP,
                 id="a deleted node without the topology key is skipped"),
    pytest.param(ZONE_POD, _node("node-a", zone="zone1"), None, QUEUE,
                 id="a deleted node with the topology key requeues"),
    pytest.param(ZONE_NODE_POD, None, _node("node-a", zone="zone1"), QUEUE_SKIP,
                 id="a created node with only one of the topology keys is skipped"),
    pytest.param(ZONE_NODE_POD, None, _node("node-a", zone="zone1", node="node1"), QUEUE,
                 id="a created node with all topology keys requeues"),
    pytest.param(ZONE_NODE_POD, _node("node-a", zone="zone1"), _node("node-a", zone="zone1"),
                 QUEUE_SKIP, id="an update of a node with only one topology key is skipped"),
    pytest.param(ZONE_NODE_POD, _node("node-a", zone="zone1", node="node1"),
                 _node("node-a", zone="zone1", node="node2"), QUEUE,
                 id="an update changing one of all the topology keys requeues"),
    pytest.param(ZONE_NODE_POD, _tainted(_node("node-a", zone="zone1", node="node1"), "aaa"),
                 _tainted(_node("node-a", zone="zone1", node="node1"), "ccc"), QUEUE,
                 id="a taint change on a node with all topology keys requeues"),
    pytest.param(ZONE_NODE_POD, _tainted(_node("node-a", node="node1"), "aaa"),
                 _tainted(_node("node-a", node="node1"), "ccc"), QUEUE_SKIP,
                 id="a taint change on a node with only one topology key is skipped"),
]


@pytest.mark.parametrize("incoming, old, new_node, want", NODE_CHANGE_CASES)
def test_is_schedulable_after_node_change(incoming, old, new_node, want):
    pl, _ = setup([])
    assert pl.is_schedulable_after_node_change(incoming, old, new_node) == want


FOO_ZONE_POD = pod({"foo": ""}, sc(1, "zone", DNS, FOO))
FOO_BAR_POD = pod({"foo": ""}, sc(1, "zone", DNS, FOO), sc(1, "node", DNS, BAR))


def _assigned(*keys, name="q", ns="default", **labels):
    return ep(name, "fake-node", *keys, ns=ns, **labels)


def _unassigned(*keys, **labels):
    return pod({**dict.fromkeys(keys, ""), **labels}, name="q")


def _pending(taints_policy):
    """The pending pod p, spread by zone (with this taints policy) and by node."""
    return pod({"foo": ""}, sc(1, "zone", DNS, FOO, taints_policy=taints_policy),
               sc(1, "node", DNS, BAR))


def _self(*keys, tolerate=None):
    """An old or new version of the pending pod p."""
    return pod(dict.fromkeys(keys, ""), tolerate=tolerate)


POD_CHANGE_CASES = [
    pytest.param(FOO_ZONE_POD, None, _assigned("foo"), QUEUE,
                 id="an added assigned pod matching the selector requeues"),
    pytest.param(FOO_ZONE_POD, None, _unassigned("foo"), QUEUE_SKIP,
                 id="an added unscheduled pod is skipped"),
    pytest.param(FOO_ZONE_POD, _unassigned("bar"), _unassigned("foo"), QUEUE_SKIP,
                 id="an updated unscheduled pod is skipped"),
    pytest.param(FOO_ZONE_POD, _unassigned("foo"), None, QUEUE_SKIP,
                 id="a deleted unscheduled pod is skipped"),
    pytest.param(FOO_ZONE_POD, None, _assigned("foo", ns="fake-namespace"), QUEUE_SKIP,
                 id="an added pod of another namespace is skipped"),
    pytest.param(FOO_ZONE_POD, None, _assigned("bar"), QUEUE_SKIP,
                 id="an added pod not matching the selector is skipped"),
    pytest.param(FOO_ZONE_POD, _assigned("foo"), None, QUEUE,
                 id="a deleted pod matching the selector requeues"),
    pytest.param(FOO_ZONE_POD, _assigned("bar"), None, QUEUE_SKIP,
                 id="a deleted pod not matching the selector is skipped"),
    pytest.param(FOO_ZONE_POD, _assigned("foo", bar="bar1"), _assigned("foo", bar="bar2"),
                 QUEUE_SKIP, id="an unrelated label change is skipped"),
    pytest.param(FOO_ZONE_POD, _assigned(), _assigned("foo"), QUEUE,
                 id="adding a label the selector matches requeues"),
    pytest.param(FOO_ZONE_POD, _assigned("foo"), _assigned(), QUEUE,
                 id="removing a label the selector matches requeues"),
    pytest.param(FOO_ZONE_POD, _assigned(foo="foo1"), _assigned(foo="foo2"), QUEUE_SKIP,
                 id="changing the value of an existence-matched label is skipped"),
    pytest.param(FOO_BAR_POD, _assigned("foo"), _assigned("foo", bar="bar2"), QUEUE,
                 id="adding a label of the second constraint's selector requeues"),
    pytest.param(FOO_BAR_POD, _assigned("foo"), _assigned("foo", "baz"), QUEUE_SKIP,
                 id="adding a label no constraint selects is skipped"),
    pytest.param(FOO_BAR_POD, _assigned("foo", "bar"), _assigned("foo", bar="bar2"), QUEUE_SKIP,
                 id="changing a label value both before and after matching is skipped"),
    pytest.param(_pending(HONOR), _self("foo"),
                 _self("foo", tolerate="node.kubernetes.io/unschedulable"), QUEUE,
                 id="the pending pod's new toleration requeues under NodeTaintsPolicy Honor"),
    pytest.param(_pending(IGNORE), _self("foo"),
                 _self("foo", tolerate="node.kubernetes.io/unschedulable"), QUEUE_SKIP,
                 id="the pending pod's new toleration is skipped without NodeTaintsPolicy Honor"),
    pytest.param(_pending(IGNORE), _self(), _self("foo"), QUEUE,
                 id="the pending pod's new label matching a selector requeues"),
    pytest.param(_pending(IGNORE), _self(), _self("unrelated"), QUEUE_SKIP,
                 id="the pending pod's new unrelated label is skipped"),
]


@pytest.mark.parametrize("incoming, old, new_pod, want", POD_CHANGE_CASES)
def test_is_schedulable_after_pod_change(incoming, old, new_pod, want):
    pl, _ = setup([])
    assert pl.is_schedulable_after_pod_change(incoming, old, new_pod) == want


def test_parsed_constraints_are_cached_on_the_pod_info():
    pl, snapshot = setup([zn("node-a", "zone1")], [ep("p-a1", "node-a", "foo")])
    incoming = pod({"foo": ""}, sc(1, "zone", DNS, FOO), sc(1, "zone", SA, FOO))
    pl.pre_filter(CycleState(), incoming, snapshot.list())
    pl.pre_score(CycleState(), incoming, snapshot.list())
    cached = incoming.parsed["PodTopologySpread"]
    assert set(cached) == {"DoNotSchedule", "ScheduleAnyway"}
    assert pl.get_constraints(incoming) is cached["DoNotSchedule"]


def test_hostname_spreading_needs_no_zone_with_system_defaulting():
    """Nodes without a zone label still get hostname spreading under system defaults."""
    pl, snapshot = setup([hn("node-a"), hn("node-b")], [ep("p-a1", "node-a", "foo")],
                         {"defaultingType": "System"}, objects(Service=[service({"foo": ""})]))
    incoming = pod({"foo": ""})
    state = CycleState()
    assert pl.pre_score(state, incoming, snapshot.list()) is None
    raw = [pl.score(state, incoming, ni)[0] for ni in snapshot.list()]
    assert raw[0] > raw[1]
