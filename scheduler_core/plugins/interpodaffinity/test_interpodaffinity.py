"""InterPodAffinity, ported from kube-scheduler's filtering_test.go, scoring_test.go and
plugin_test.go (pkg/scheduler/framework/plugins/interpodaffinity), plus the args validation and
the matchLabelKeys/mismatchLabelKeys merge the API server applies.

Go's tests leave namespaces empty; a PodInfo without a namespace is in "default", so terms that
name the empty namespace name "default" here.
"""
from __future__ import annotations

import itertools

import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.handle import ClusterObjects, FakeHandle
from scheduler_core.framework.interfaces import MAX_NODE_SCORE
from scheduler_core.framework.snapshot import Snapshot
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import NodeInfo, PodInfo
from scheduler_core.plugins.interpodaffinity import default_args, new, validate_args
from scheduler_core.plugins.interpodaffinity.filtering import (
    ERR_REASON_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
    PRE_FILTER_STATE_KEY,
    PreFilterState,
    incoming_affinity_anti_affinity_counts,
)
from scheduler_core.plugins.interpodaffinity.terms import parsed_affinity
from scheduler_core.testing import make_node, normalized_scores

REQ, PREF = "required", "preferred"
_names = itertools.count()


class MakePod:
    """A pod builder shaped like kube-scheduler's st.MakePod()."""

    def __init__(self, name: str | None = None):
        self.meta = {"name": name or f"pod-{next(_names)}", "namespace": "default", "labels": {}}
        self.spec: dict = {"containers": [{"name": "c", "image": "pause"}]}

    def namespace(self, ns: str) -> MakePod:
        self.meta["namespace"] = ns
        return self

    def labels(self, labels: dict) -> MakePod:
        self.meta["labels"].update(labels)
        return self

    def label(self, key: str, value: str) -> MakePod:
        self.meta["labels"][key] = value
        return self

    def node(self, name: str) -> MakePod:
        self.spec["nodeName"] = name
        return self

    def affinity(self, affinity: dict) -> MakePod:
        self.spec["affinity"] = affinity
        return self

    def term(self, anti: bool, kind: str, term: dict, weight: int = 1) -> MakePod:
        affinity = self.spec.setdefault("affinity", {})
        group = affinity.setdefault("podAntiAffinity" if anti else "podAffinity", {})
        if kind == REQ:
            group.setdefault("requiredDuringSchedulingIgnoredDuringExecution", []).append(term)
        else:
            group.setdefault("preferredDuringSchedulingIgnoredDuringExecution", []).append(
                {"weight": weight, "podAffinityTerm": term})
        return self

    def pod_affinity_in(self, key, topology_key, values, kind=REQ) -> MakePod:
        return self.term(False, kind, expr_term(topology_key, (key, "In", values)))

    def pod_affinity_not_in(self, key, topology_key, values, kind=REQ) -> MakePod:
        return self.term(False, kind, expr_term(topology_key, (key, "NotIn", values)))

    def pod_affinity_exists(self, key, topology_key, kind=REQ) -> MakePod:
        return self.term(False, kind, expr_term(topology_key, (key, "Exists", None)))

    def pod_anti_affinity_in(self, key, topology_key, values, kind=REQ) -> MakePod:
        return self.term(True, kind, expr_term(topology_key, (key, "In", values)))

    def pod_anti_affinity_not_in(self, key, topology_key, values, kind=REQ) -> MakePod:
        return self.term(True, kind, expr_term(topology_key, (key, "NotIn", values)))

    def pod_anti_affinity_exists(self, key, topology_key, kind=REQ) -> MakePod:
        return self.term(True, kind, expr_term(topology_key, (key, "Exists", None)))

    def obj(self) -> dict:
        meta = dict(self.meta, uid=f"{self.meta['namespace']}/{self.meta['name']}")
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": self.spec}


def expr_term(topology_key: str, *exprs, namespaces=None, namespace_selector="unset") -> dict:
    """A PodAffinityTerm whose labelSelector has the (key, operator, values) expressions."""
    match_expressions = []
    for key, operator, values in exprs:
        expr = {"key": key, "operator": operator}
        if values is not None:
            expr["values"] = list(values)
        match_expressions.append(expr)
    term = {"labelSelector": {"matchExpressions": match_expressions}, "topologyKey": topology_key}
    if namespaces is not None:
        term["namespaces"] = namespaces
    if namespace_selector != "unset":
        term["namespaceSelector"] = namespace_selector
    return term


def create_pod_with_affinity_terms(namespace, node_name, labels, affinity, anti_affinity) -> dict:
    """createPodWithAffinityTerms: required terms only."""
    pod = MakePod().namespace(namespace).labels(labels)
    if node_name:
        pod.node(node_name)
    pod.spec["affinity"] = {
        "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": affinity},
        "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": anti_affinity},
    }
    return pod.obj()


def node(name: str, labels: dict) -> dict:
    return make_node(name, labels=labels)


def ns(name: str, labels: dict | None = None) -> dict:
    return {"apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": name, "labels": dict(labels or {})}}


NS_LABEL_T1 = {"team": "team1"}
NS_LABEL_T2 = {"team": "team2"}
NAMESPACES = [ns("subteam1.team1", NS_LABEL_T1), ns("subteam2.team1", NS_LABEL_T1),
              ns("subteam1.team2", NS_LABEL_T2), ns("subteam2.team2", NS_LABEL_T2)]
TEAM1_SELECTOR = {"matchExpressions": [{"key": "team", "operator": "In", "values": ["team1"]}]}


def setup(pods: list[dict], nodes: list[dict], namespaces=(), args: dict | None = None):
    snapshot = Snapshot.from_objects(nodes, [PodInfo(p) for p in pods])
    objects = ClusterObjects()
    objects.namespaces = {n["metadata"]["name"]: n for n in namespaces}
    plugin = new(default_args(args or {}), FakeHandle(snapshot, objects))
    return plugin, snapshot


def status_tuple(status: Status | None):
    if status is None or status.code == Code.SUCCESS:
        return None
    return status.code, status.reasons


def unresolvable(reason):
    return Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [reason]


def unschedulable(reason):
    return Code.UNSCHEDULABLE, [reason]


SKIP = (Code.SKIP, [])
AFFINITY_NOT_MATCH = unresolvable(ERR_REASON_AFFINITY_RULES_NOT_MATCH)
ANTI_AFFINITY_NOT_MATCH = unschedulable(ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)
EXISTING_ANTI_AFFINITY_NOT_MATCH = unschedulable(ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)
BAD_VALUE_MESSAGE = (
    'values[0][service]: Invalid value: "{{.bad-value.}}": a valid label must be an empty string '
    "or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
    "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")


# --- TestRequiredAffinitySingleNode -------------------------------------------------------------

POD_LABEL = {"service": "securityscan"}
POD_LABEL2 = {"security": "S1"}
NODE1 = node("node1", {"region": "r1", "zone": "z11"})


def _scan_pod():
    return MakePod().labels(POD_LABEL).node("node1").obj()


SINGLE_NODE_CASES = [
    pytest.param(
        MakePod().obj(), [], SKIP, None,
        id="a pod with no required pod affinity rules is skipped on a node with no pods"),
    pytest.param(
        MakePod().labels(POD_LABEL2)
        .pod_affinity_in("service", "region", ["securityscan", "value2"]).obj(),
        [_scan_pod()], None, None,
        id="required pod affinity with In matching the existing pod is satisfied"),
    pytest.param(
        MakePod().labels(POD_LABEL2)
        .pod_affinity_not_in("service", "region", ["securityscan3", "value3"]).obj(),
        [_scan_pod()], None, None,
        id="required pod affinity with NotIn matching the existing pod is satisfied"),
    pytest.param(
        create_pod_with_affinity_terms("default", "", POD_LABEL2, [
            {"labelSelector": {"matchExpressions": [
                {"key": "service", "operator": "In", "values": ["securityscan", "value2"]}]},
             "namespaces": ["DiffNameSpace"]}], None),
        [MakePod().namespace("ns").label("service", "securityscan").node("node1").obj()],
        None, AFFINITY_NOT_MATCH,
        id="pod affinity fails because the matching pod is in a different namespace"),
    pytest.param(
        MakePod().labels(POD_LABEL)
        .pod_affinity_in("service", "", ["antivirusscan", "value2"]).obj(),
        [_scan_pod()], None, AFFINITY_NOT_MATCH,
        id="pod affinity fails because its label selector does not match the existing pod"),
    pytest.param(
        create_pod_with_affinity_terms("default", "", POD_LABEL2, [
            expr_term("region", ("service", "Exists", None), ("wrongkey", "DoesNotExist", None)),
            expr_term("region", ("service", "In", ["securityscan"]),
                      ("service", "NotIn", ["WrongValue"])),
        ], None),
        [_scan_pod()], None, None,
        id="pod affinity with different operators in several required terms is satisfied"),
    pytest.param(
        create_pod_with_affinity_terms("default", "", POD_LABEL2, [
            expr_term("region", ("service", "Exists", None), ("wrongkey", "DoesNotExist", None)),
            expr_term("region", ("service", "In", ["securityscan2"]),
                      ("service", "NotIn", ["WrongValue"])),
        ], None),
        [_scan_pod()], None, AFFINITY_NOT_MATCH,
        id="match expressions are ANDed so one unmatched expression fails pod affinity"),
    pytest.param(
        MakePod().labels(POD_LABEL2)
        .pod_affinity_in("service", "region", ["securityscan", "value2"])
        .pod_anti_affinity_in("service", "node", ["antivirusscan", "value2"]).obj(),
        [_scan_pod()], None, None,
        id="pod affinity and pod anti-affinity are both satisfied by the existing pod"),
    pytest.param(
        MakePod().labels(POD_LABEL2)
        .pod_affinity_in("service", "region", ["securityscan", "value2"])
        .pod_anti_affinity_in("service", "node", ["antivirusscan", "value2"]).obj(),
        [MakePod().node("node1").labels(POD_LABEL)
         .pod_anti_affinity_in("service", "node", ["antivirusscan", "value2"]).obj()],
        None, None,
        id="pod affinity, anti-affinity and the existing pod's anti-affinity are satisfied"),
    pytest.param(
        MakePod().labels(POD_LABEL2)
        .pod_affinity_in("service", "region", ["securityscan", "value2"])
        .pod_anti_affinity_in("service", "zone", ["securityscan", "value2"]).obj(),
        [_scan_pod()], None, ANTI_AFFINITY_NOT_MATCH,
        id="pod affinity is satisfied but pod anti-affinity is not"),
    pytest.param(
        MakePod().labels(POD_LABEL)
        .pod_affinity_in("service", "region", ["securityscan", "value2"])
        .pod_anti_affinity_in("service", "node", ["antivirusscan", "value2"]).obj(),
        [MakePod().labels(POD_LABEL).node("node1")
         .pod_anti_affinity_in("service", "zone", ["securityscan", "value2"]).obj()],
        None, EXISTING_ANTI_AFFINITY_NOT_MATCH,
        id="the pod's rules are satisfied but the existing pod's anti-affinity is not"),
    pytest.param(
        MakePod().labels(POD_LABEL)
        .pod_affinity_not_in("service", "region", ["securityscan", "value2"]).obj(),
        [MakePod().label("service", "securityscan").node("node2").obj()],
        None, AFFINITY_NOT_MATCH,
        id="a pod whose affinity does not select itself cannot be the first of its group"),
    pytest.param(
        MakePod().labels(POD_LABEL).obj(),
        [MakePod().node("node1").labels(POD_LABEL)
         .pod_anti_affinity_in("service", "zone", ["securityscan", "value2"]).obj()],
        None, EXISTING_ANTI_AFFINITY_NOT_MATCH,
        id="an existing pod's anti-affinity rejects a pod that has no anti-affinity of its own"),
    pytest.param(
        MakePod().labels(POD_LABEL).obj(),
        [MakePod().node("node1").labels(POD_LABEL)
         .pod_anti_affinity_not_in("service", "zone", ["securityscan", "value2"]).obj()],
        SKIP, None,
        id="an existing pod's anti-affinity that does not select the pod skips the plugin"),
    pytest.param(
        MakePod().labels(POD_LABEL)
        .pod_anti_affinity_exists("service", "region")
        .pod_anti_affinity_exists("security", "region").obj(),
        [MakePod().node("node1").labels(POD_LABEL2)
         .pod_anti_affinity_exists("security", "zone").obj()],
        None, ANTI_AFFINITY_NOT_MATCH,
        id="the pod's anti-affinity rejects the existing pod before symmetry is checked"),
    pytest.param(
        MakePod().labels(POD_LABEL)
        .pod_anti_affinity_exists("service", "zone")
        .pod_anti_affinity_exists("security", "zone").obj(),
        [MakePod().node("node1").labels(POD_LABEL2)
         .pod_anti_affinity_exists("security", "zone").obj()],
        None, ANTI_AFFINITY_NOT_MATCH,
        id="anti-affinity symmetry a1: the pod and the existing pod partially match each other"),
    pytest.param(
        MakePod().labels(POD_LABEL2).pod_anti_affinity_exists("security", "zone").obj(),
        [MakePod().node("node1").labels(POD_LABEL)
         .pod_anti_affinity_exists("service", "zone")
         .pod_anti_affinity_exists("security", "zone").obj()],
        None, EXISTING_ANTI_AFFINITY_NOT_MATCH,
        id="anti-affinity symmetry a2: the pod and the existing pod partially match each other"),
    pytest.param(
        MakePod().labels({"abc": "", "xyz": ""})
        .pod_anti_affinity_exists("abc", "zone").pod_anti_affinity_exists("def", "zone").obj(),
        [MakePod().node("node1").labels({"def": "", "xyz": ""})
         .pod_anti_affinity_exists("abc", "zone").pod_anti_affinity_exists("def", "zone").obj()],
        None, ANTI_AFFINITY_NOT_MATCH,
        id="anti-affinity symmetry b1: the pod and the existing pod partially match each other"),
    pytest.param(
        MakePod().labels({"def": "", "xyz": ""})
        .pod_anti_affinity_exists("abc", "zone").pod_anti_affinity_exists("def", "zone").obj(),
        [MakePod().node("node1").labels({"abc": "", "xyz": ""})
         .pod_anti_affinity_exists("abc", "zone").pod_anti_affinity_exists("def", "zone").obj()],
        None, ANTI_AFFINITY_NOT_MATCH,
        id="anti-affinity symmetry b2: the pod and the existing pod partially match each other"),
    pytest.param(
        MakePod().labels(POD_LABEL)
        .pod_affinity_in("service", "region", ["{{.bad-value.}}"])
        .pod_affinity_in("service", "node", ["antivirusscan", "value2"]).obj(),
        [], unresolvable(f"parsing pod: requiredAffinityTerms: {BAD_VALUE_MESSAGE}"), None,
        id="an invalid label value in pod affinity fails PreFilter"),
    pytest.param(
        MakePod().labels(POD_LABEL)
        .pod_affinity_in("service", "region", ["foo"])
        .pod_affinity_in("service", "node", ["{{.bad-value.}}"]).obj(),
        [], unresolvable(f"parsing pod: requiredAffinityTerms: {BAD_VALUE_MESSAGE}"), None,
        id="an invalid label value in a later pod affinity term fails PreFilter"),
    pytest.param(
        create_pod_with_affinity_terms("default", "", POD_LABEL2, [
            expr_term("region", ("service", "In", ["securityscan", "value2"]),
                      namespace_selector=TEAM1_SELECTOR)], None),
        [MakePod().node("node1").namespace("subteam1.team1").labels(POD_LABEL).obj()],
        None, None,
        id="pod affinity matches a pod in a namespace its namespace selector picks"),
    pytest.param(
        create_pod_with_affinity_terms("default", "", POD_LABEL2, [
            expr_term("region", ("service", "In", ["securityscan", "value2"]),
                      namespace_selector=TEAM1_SELECTOR)], None),
        [MakePod().node("node1").namespace("subteam1.team2").labels(POD_LABEL).obj()],
        None, AFFINITY_NOT_MATCH,
        id="pod affinity ignores a pod in a namespace its namespace selector does not pick"),
    pytest.param(
        create_pod_with_affinity_terms("subteam1.team1", "", POD_LABEL2, None, [
            expr_term("zone", ("service", "In", ["securityscan", "value2"]),
                      namespace_selector=TEAM1_SELECTOR)]),
        [MakePod().node("node1").namespace("subteam2.team1").labels(POD_LABEL).obj()],
        None, ANTI_AFFINITY_NOT_MATCH,
        id="pod anti-affinity matches a pod in a namespace its namespace selector picks"),
    pytest.param(
        create_pod_with_affinity_terms("subteam1.team1", "", POD_LABEL2, None, [
            expr_term("zone", ("service", "In", ["securityscan", "value2"]),
                      namespace_selector={})]),
        [MakePod().node("node1").namespace("subteam2.team1").labels(POD_LABEL).obj()],
        None, ANTI_AFFINITY_NOT_MATCH,
        id="an empty namespace selector makes pod anti-affinity match every namespace"),
    pytest.param(
        create_pod_with_affinity_terms("subteam1.team1", "", POD_LABEL2, None, [
            expr_term("zone", ("service", "In", ["securityscan", "value2"]),
                      namespace_selector=TEAM1_SELECTOR)]),
        [MakePod().node("node1").namespace("subteam1.team2").labels(POD_LABEL).obj()],
        None, None,
        id="pod anti-affinity ignores a pod in a namespace its namespace selector does not pick"),
]


@pytest.mark.parametrize("pod, pods, want_pre_filter, want_filter", SINGLE_NODE_CASES)
def test_required_affinity_single_node(pod, pods, want_pre_filter, want_filter):
    plugin, snapshot = setup(pods, [NODE1], NAMESPACES)
    state = CycleState()
    pi = PodInfo(pod)
    result, status = plugin.pre_filter(state, pi, snapshot.list())
    assert result is None
    assert status_tuple(status) == want_pre_filter
    if status is not None:
        return
    assert status_tuple(plugin.filter(state, pi, snapshot.get("node1"))) == want_filter


# --- TestRequiredAffinityMultipleNodes ----------------------------------------------------------

RG_CHINA = {"region": "China"}
RG_CHINA_AZ1 = {"region": "China", "az": "az1"}
RG_INDIA = {"region": "India"}


def _abc_nodes(*zones):
    """nodeA, nodeB, ... in region r1 with the given zones and a hostname label each."""
    return [node(name, {"region": "r1", "zone": zone, "hostname": name})
            for name, zone in zip(("nodeA", "nodeB", "nodeC")[:len(zones)], zones, strict=True)]


MULTI_NODE_CASES = [
    pytest.param(
        MakePod().pod_affinity_in("foo", "region", ["bar"]).obj(),
        [MakePod("p1").node("node1").labels({"foo": "bar"}).obj()],
        [node("node1", RG_CHINA), node("node2", RG_CHINA_AZ1), node("node3", RG_INDIA)],
        None, [None, None, AFFINITY_NOT_MATCH],
        id="every node in the topology domain of a matching pod satisfies pod affinity"),
    pytest.param(
        MakePod().labels({"foo": "bar", "service": "securityscan"})
        .pod_affinity_in("foo", "zone", ["bar"])
        .pod_affinity_in("service", "zone", ["securityscan"]).obj(),
        [MakePod("p1").node("nodeA").labels({"foo": "bar"}).obj()],
        [node("nodeA", {"zone": "az1", "hostname": "h1"}),
         node("nodeB", {"zone": "az2", "hostname": "h2"})],
        None, [None, None],
        id="the first pod of a group whose affinity selects itself may go to any node"),
    pytest.param(
        MakePod().labels({"foo": "bar", "service": "securityscan"})
        .pod_affinity_in("foo", "zone", ["bar"])
        .pod_affinity_in("service", "zone", ["securityscan"]).obj(),
        [MakePod("p1").node("nodeA").labels({"foo": "bar"}).obj()],
        [node("nodeA", {"zoneLabel": "az1", "hostname": "h1"}),
         node("nodeB", {"zoneLabel": "az2", "hostname": "h2"})],
        None, [AFFINITY_NOT_MATCH, AFFINITY_NOT_MATCH],
        id="the first pod of a group still needs nodes with the requested topology keys"),
    pytest.param(
        MakePod().pod_anti_affinity_in("foo", "region", ["abc"]).obj(),
        [MakePod().node("nodeA").labels({"foo": "abc"}).obj()],
        [node("nodeA", {"region": "r1", "hostname": "nodeA"}),
         node("nodeB", {"region": "r1", "hostname": "nodeB"})],
        None, [ANTI_AFFINITY_NOT_MATCH, ANTI_AFFINITY_NOT_MATCH],
        id="pod anti-affinity rejects every node in the domain of the matching pod"),
    pytest.param(
        MakePod().pod_anti_affinity_in("foo", "region", ["abc"])
        .pod_anti_affinity_in("service", "zone", ["securityscan"]).obj(),
        [MakePod().node("nodeA").labels({"foo": "abc", "service": "securityscan"}).obj()],
        [node("nodeA", {"region": "r1", "zone": "z1", "hostname": "nodeA"}),
         node("nodeB", {"region": "r1", "zone": "z2", "hostname": "nodeB"})],
        None, [ANTI_AFFINITY_NOT_MATCH, ANTI_AFFINITY_NOT_MATCH],
        id="pod anti-affinity matches a pod when any of its terms matches"),
    pytest.param(
        MakePod().pod_anti_affinity_in("foo", "region", ["abc"]).obj(),
        [MakePod().node("nodeA").labels({"foo": "abc"}).obj()],
        [node("nodeA", RG_CHINA), node("nodeB", RG_CHINA_AZ1), node("nodeC", RG_INDIA)],
        None, [ANTI_AFFINITY_NOT_MATCH, ANTI_AFFINITY_NOT_MATCH, None],
        id="pod anti-affinity leaves the nodes of other regions schedulable"),
    pytest.param(
        MakePod().namespace("NS1").labels({"foo": "123"})
        .pod_anti_affinity_in("foo", "region", ["bar"]).obj(),
        [MakePod().node("nodeA").namespace("NS1").labels({"foo": "bar"}).obj(),
         MakePod().node("nodeC").namespace("NS2")
         .pod_anti_affinity_in("foo", "region", ["123"]).obj()],
        [node("nodeA", RG_CHINA), node("nodeB", RG_CHINA_AZ1), node("nodeC", RG_INDIA)],
        None, [ANTI_AFFINITY_NOT_MATCH, ANTI_AFFINITY_NOT_MATCH, None],
        id="an existing pod's anti-affinity only selects pods of its own namespace"),
    pytest.param(
        MakePod().label("foo", "").obj(),
        [MakePod().node("nodeA").pod_anti_affinity_exists("foo", "invalid-node-label").obj()],
        _abc_nodes("z1", "z1"),
        SKIP, [None, None],
        id="an existing pod's anti-affinity term needs its topology key on the nodes"),
    pytest.param(
        MakePod().node("nodeA").pod_anti_affinity_exists("foo", "invalid-node-label").obj(),
        [MakePod().node("nodeA").labels({"foo": ""}).obj()],
        _abc_nodes("z1", "z1"),
        None, [None, None],
        id="the pod's anti-affinity term needs its topology key even when its selector matches"),
    pytest.param(
        MakePod().label("foo", "").label("bar", "").obj(),
        [MakePod().node("nodeA").pod_anti_affinity_exists("foo", "zone").obj(),
         MakePod().node("nodeA").pod_anti_affinity_exists("bar", "region").obj()],
        _abc_nodes("z1", "z2"),
        None, [EXISTING_ANTI_AFFINITY_NOT_MATCH, EXISTING_ANTI_AFFINITY_NOT_MATCH],
        id="a pod violating existing pods' anti-affinity terms fits no node"),
    pytest.param(
        MakePod().pod_anti_affinity_exists("foo", "zone")
        .pod_anti_affinity_exists("bar", "region").obj(),
        [MakePod().node("nodeA").labels({"foo": ""}).obj(),
         MakePod().node("nodeB").labels({"bar": ""}).obj()],
        _abc_nodes("z1", "z2"),
        None, [ANTI_AFFINITY_NOT_MATCH, ANTI_AFFINITY_NOT_MATCH],
        id="a pod whose anti-affinity selects existing pods in both domains fits no node"),
    pytest.param(
        MakePod().label("foo", "").label("bar", "").obj(),
        [MakePod().node("nodeA").pod_anti_affinity_exists("foo", "invalid-node-label")
         .pod_anti_affinity_exists("bar", "zone").obj()],
        _abc_nodes("z1", "z2"),
        None, [EXISTING_ANTI_AFFINITY_NOT_MATCH, None],
        id="an existing pod's term counts only when selector and topology key both match"),
    pytest.param(
        MakePod().pod_anti_affinity_exists("foo", "invalid-node-label")
        .pod_anti_affinity_exists("bar", "zone").obj(),
        [MakePod("podA").node("nodeA").labels({"foo": "", "bar": ""}).obj()],
        _abc_nodes("z1", "z2"),
        None, [ANTI_AFFINITY_NOT_MATCH, None],
        id="the pod's anti-affinity term counts only when selector and topology key both match"),
    pytest.param(
        MakePod().label("foo", "").label("bar", "").obj(),
        [MakePod().node("nodeA").pod_anti_affinity_exists("foo", "region")
         .pod_anti_affinity_exists("bar", "zone").obj()],
        _abc_nodes("z1", "z2"),
        None, [EXISTING_ANTI_AFFINITY_NOT_MATCH, EXISTING_ANTI_AFFINITY_NOT_MATCH],
        id="existing pod's terms with valid topology keys each reject their domain"),
    pytest.param(
        MakePod().pod_anti_affinity_exists("foo", "region")
        .pod_anti_affinity_exists("bar", "zone").obj(),
        [MakePod().node("nodeA").labels({"foo": "", "bar": ""}).obj()],
        _abc_nodes("z1", "z2"),
        None, [ANTI_AFFINITY_NOT_MATCH, ANTI_AFFINITY_NOT_MATCH],
        id="the pod's anti-affinity terms with valid topology keys each reject their domain"),
    pytest.param(
        MakePod().label("foo", "").label("bar", "").obj(),
        [MakePod().node("nodeA").pod_anti_affinity_exists("foo", "zone")
         .pod_anti_affinity_exists("labelA", "zone").obj(),
         MakePod().node("nodeB").pod_anti_affinity_exists("bar", "zone")
         .pod_anti_affinity_exists("labelB", "zone").obj()],
        _abc_nodes("z1", "z2", "z3"),
        None, [EXISTING_ANTI_AFFINITY_NOT_MATCH, EXISTING_ANTI_AFFINITY_NOT_MATCH, None],
        id="existing pods with one matching anti-affinity term leave only the third zone"),
    pytest.param(
        MakePod().pod_affinity_exists("foo", "region").pod_affinity_exists("bar", "zone").obj(),
        [MakePod("pod1").labels({"foo": "", "bar": ""}).node("nodeA").obj()],
        _abc_nodes("z1", "z1"),
        None, [None, None],
        id="a pod matching all affinity terms satisfies every node of its domains"),
    pytest.param(
        MakePod().pod_affinity_exists("foo", "region").pod_affinity_exists("bar", "zone").obj(),
        [MakePod("pod1").node("nodeA").labels({"foo": ""}).obj(),
         MakePod("pod2").node("nodeB").labels({"bar": ""}).obj()],
        _abc_nodes("z1", "z2"),
        None, [AFFINITY_NOT_MATCH, AFFINITY_NOT_MATCH],
        id="all affinity terms must be matched by the same existing pod"),
]


@pytest.mark.parametrize("pod, pods, nodes, want_pre_filter, want_filters", MULTI_NODE_CASES)
def test_required_affinity_multiple_nodes(pod, pods, nodes, want_pre_filter, want_filters):
    plugin, snapshot = setup(pods, nodes, [ns("NS1")])
    state = CycleState()
    pi = PodInfo(pod)
    _, status = plugin.pre_filter(state, pi, snapshot.list())
    assert status_tuple(status) == want_pre_filter
    if status is not None:
        return
    got = [status_tuple(plugin.filter(state, pi, snapshot.get(n["metadata"]["name"])))
           for n in nodes]
    assert got == want_filters


def test_filter_without_pre_filter_is_an_error():
    plugin, _ = setup([], [])
    ni = NodeInfo(make_node("n"))
    status = plugin.filter(CycleState(), PodInfo(MakePod().obj()), ni)
    assert status.code == Code.ERROR
    assert status.message() == \
        'error reading "PreFilterInterPodAffinity" from cycleState: not found'


# --- TestPreFilterStateAddRemovePod -------------------------------------------------------------

LABEL1 = {"region": "r1", "zone": "z11"}
LABEL2 = {"region": "r1", "zone": "z12"}
LABEL3 = {"region": "r2", "zone": "z21"}
SELECTOR1 = {"foo": "bar"}
ANTI_FOO_BAR = {"requiredDuringSchedulingIgnoredDuringExecution": [
    expr_term("region", ("foo", "In", ["bar"]))]}
COMPLEX_TERMS = [expr_term("region", ("foo", "In", ["bar", "buzz"])),
                 expr_term("zone", ("service", "NotIn", ["bar", "security", "test"]))]
ANTI_COMPLEX = {"requiredDuringSchedulingIgnoredDuringExecution": COMPLEX_TERMS}
AFFINITY_COMPLEX = {"requiredDuringSchedulingIgnoredDuringExecution": COMPLEX_TERMS}
ADD_REMOVE_NODES = [node("nodeA", LABEL1), node("nodeB", LABEL2), node("nodeC", LABEL3)]

ADD_REMOVE_CASES = [
    pytest.param(
        MakePod("pending").labels(SELECTOR1).affinity({"podAntiAffinity": ANTI_FOO_BAR}).obj(),
        [MakePod("p1").labels(SELECTOR1).node("nodeA").obj(),
         MakePod("p2").node("nodeC").affinity({"podAntiAffinity": ANTI_FOO_BAR}).obj()],
        MakePod("addedPod").labels(SELECTOR1).node("nodeB")
        .affinity({"podAntiAffinity": ANTI_FOO_BAR}).obj(),
        {("region", "r1"): 2}, {},
        id="anti-affinity counts are updated when a pod is added and removed"),
    pytest.param(
        MakePod("pending").labels(SELECTOR1).affinity({"podAntiAffinity": ANTI_COMPLEX}).obj(),
        [MakePod("p1").labels(SELECTOR1).node("nodeA").obj(),
         MakePod("p2").node("nodeC").affinity({"podAntiAffinity": ANTI_FOO_BAR}).obj()],
        MakePod("addedPod").labels(SELECTOR1).node("nodeA")
        .affinity({"podAntiAffinity": ANTI_COMPLEX}).obj(),
        {("region", "r1"): 2, ("zone", "z11"): 2, ("zone", "z21"): 1}, {},
        id="anti-affinity counts of several terms are updated when a pod is added and removed"),
    pytest.param(
        MakePod("pending").labels(SELECTOR1).affinity({"podAffinity": AFFINITY_COMPLEX}).obj(),
        [MakePod("p1").labels(SELECTOR1).node("nodeA").obj(),
         MakePod("p2").node("nodeC").affinity(
             {"podAntiAffinity": ANTI_FOO_BAR, "podAffinity": AFFINITY_COMPLEX}).obj()],
        MakePod("addedPod").labels(SELECTOR1).node("nodeA")
        .affinity({"podAntiAffinity": ANTI_COMPLEX}).obj(),
        {}, {("region", "r1"): 2, ("zone", "z11"): 2},
        id="affinity and anti-affinity counts are updated when a pod is added and removed"),
]


def _counts(s: PreFilterState):
    return (s.existing_anti_affinity_counts, s.affinity_counts, s.anti_affinity_counts)


@pytest.mark.parametrize("pending, existing, added, want_anti, want_affinity", ADD_REMOVE_CASES)
def test_pre_filter_state_add_remove_pod(pending, existing, added, want_anti, want_affinity):
    def pre_filter(pods):
        plugin, snapshot = setup(pods, ADD_REMOVE_NODES)
        state = CycleState()
        _, status = plugin.pre_filter(state, PodInfo(pending), snapshot.list())
        assert status is None
        return plugin, state, snapshot

    _, all_pods_state, _ = pre_filter([*existing, added])
    plugin, state, snapshot = pre_filter(existing)
    original = state.read(PRE_FILTER_STATE_KEY).clone()
    node_info = snapshot.get(added["spec"]["nodeName"])
    pending_info, added_info = PodInfo(pending), PodInfo(added)

    assert plugin.add_pod(state, pending_info, added_info, node_info) is None
    got = state.read(PRE_FILTER_STATE_KEY)
    assert got.anti_affinity_counts == want_anti
    assert got.affinity_counts == want_affinity
    assert _counts(got) == _counts(all_pods_state.read(PRE_FILTER_STATE_KEY))

    assert plugin.remove_pod(state, pending_info, added_info, node_info) is None
    assert _counts(state.read(PRE_FILTER_STATE_KEY)) == _counts(original)


def test_add_pod_without_pre_filter_is_an_error():
    plugin, _ = setup([], [])
    ni = NodeInfo(make_node("n"))
    status = plugin.add_pod(CycleState(), PodInfo(MakePod().obj()), PodInfo(MakePod().obj()), ni)
    assert status.code == Code.ERROR


def test_pre_filter_state_clone_copies_the_counts():
    source = PreFilterState(
        PodInfo(MakePod().obj()), [], [], {},
        {("name", "node1"): 1, ("name", "node2"): 1},
        {("name", "nodeA"): 1, ("name", "nodeC"): 2},
        {("name", "nodeN"): 3, ("name", "nodeM"): 1})
    clone = source.clone()
    assert clone is not source
    assert _counts(clone) == _counts(source)
    clone.affinity_counts[("name", "nodeA")] = 5
    assert source.affinity_counts[("name", "nodeA")] == 1


def test_cloned_cycle_state_is_independent_of_add_pod():
    """Preemption clones CycleState and adds/removes pods on the clone only."""
    pending = MakePod("pending").labels(SELECTOR1).affinity({"podAntiAffinity": ANTI_FOO_BAR})
    plugin, snapshot = setup([], ADD_REMOVE_NODES)
    state = CycleState()
    pending_info = PodInfo(pending.obj())
    plugin.pre_filter(state, pending_info, snapshot.list())
    clone = state.clone()
    added = PodInfo(MakePod().labels(SELECTOR1).node("nodeA").obj())
    plugin.add_pod(clone, pending_info, added, snapshot.get("nodeA"))
    assert state.read(PRE_FILTER_STATE_KEY).anti_affinity_counts == {}
    assert clone.read(PRE_FILTER_STATE_KEY).anti_affinity_counts == {("region", "r1"): 1}
    node_b = snapshot.get("nodeB")
    assert plugin.filter(state, pending_info, node_b) is None
    assert status_tuple(plugin.filter(clone, pending_info, node_b)) == ANTI_AFFINITY_NOT_MATCH


# --- TestGetTPMapMatchingIncomingAffinityAntiAffinity -------------------------------------------

def _normal_pod(*labels):
    pod = MakePod("normal").node("nodeA")
    for label in labels:
        pod.label(label, "")
    return pod.obj()


NODE_A = node("nodeA", {"hostname": "nodeA"})
HOST_A = ("hostname", "nodeA")

INCOMING_COUNTS_CASES = [
    pytest.param([], MakePod("aaa-normal").obj(), {}, {}, id="nil test"),
    pytest.param(
        [_normal_pod("aaa")], MakePod("aaa-normal").obj(), {}, {},
        id="an incoming pod without affinity or anti-affinity counts nothing"),
    pytest.param(
        [_normal_pod("bbb")],
        MakePod("aaa-anti").pod_affinity_exists("aaa", "hostname")
        .pod_anti_affinity_exists("aaa", "hostname").obj(),
        {}, {},
        id="no existing pod has a label the incoming pod's terms select"),
    pytest.param(
        [_normal_pod("aaa")],
        MakePod("affi-antiaffi").pod_affinity_exists("aaa", "hostname")
        .pod_anti_affinity_exists("aaa", "hostname").obj(),
        {HOST_A: 1}, {HOST_A: 1},
        id="an existing pod matches the incoming affinity and anti-affinity single terms"),
    pytest.param(
        [_normal_pod("aaa", "bbb")],
        MakePod("affi-antiaffi").pod_affinity_exists("aaa", "hostname")
        .pod_affinity_exists("bbb", "hostname")
        .pod_anti_affinity_exists("aaa", "hostname").obj(),
        {HOST_A: 2}, {HOST_A: 1},
        id="an existing pod matching several affinity terms is counted once per term"),
    pytest.param(
        [_normal_pod("aaa")],
        MakePod("affi-antiaffi").pod_affinity_exists("aaa", "hostname")
        .pod_affinity_exists("bbb", "hostname")
        .pod_anti_affinity_exists("aaa", "hostname")
        .pod_anti_affinity_exists("bbb", "hostname").obj(),
        {}, {HOST_A: 1},
        id="an existing pod matching some affinity terms counts only for anti-affinity"),
    pytest.param(
        [_normal_pod("aaa", "bbb")],
        MakePod("anaffi-antiaffiti").pod_affinity_exists("aaa", "hostname")
        .pod_affinity_exists("ccc", "hostname")
        .pod_anti_affinity_exists("aaa", "hostname")
        .pod_anti_affinity_exists("ccc", "hostname").obj(),
        {}, {HOST_A: 1},
        id="an existing pod violating part of the anti-affinity terms, case 1"),
    pytest.param(
        [_normal_pod("bbb")],
        MakePod("affi-antiaffi").pod_affinity_exists("aaa", "hostname")
        .pod_affinity_exists("bbb", "hostname")
        .pod_anti_affinity_exists("aaa", "hostname")
        .pod_anti_affinity_exists("bbb", "hostname").obj(),
        {}, {HOST_A: 1},
        id="an existing pod violating part of the anti-affinity terms, case 2"),
]


@pytest.mark.parametrize("existing, pod, want_affinity, want_anti", INCOMING_COUNTS_CASES)
def test_incoming_affinity_anti_affinity_counts(existing, pod, want_affinity, want_anti):
    snapshot = Snapshot.from_objects([NODE_A], [PodInfo(p) for p in existing])
    parsed = parsed_affinity(PodInfo(pod))
    got = incoming_affinity_anti_affinity_counts(
        parsed.required_affinity, parsed.required_anti_affinity, snapshot.list())
    assert got == (want_affinity, want_anti)


# --- TestPreferredAffinity ----------------------------------------------------------------------

AZ1 = {"az": "az1"}
AZ2 = {"az": "az2"}
S1 = {"security": "S1"}
S2 = {"security": "S2"}


def _preferred(weight, term):
    return {"weight": weight, "podAffinityTerm": term}


def _pref_affinity(*weighted):
    return {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": list(weighted)}}


def _pref_anti(*weighted):
    return {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": list(weighted)}}


STAY_WITH_S1_IN_REGION = _pref_affinity(
    _preferred(5, expr_term("region", ("security", "In", ["S1"]))))
STAY_WITH_S2_IN_REGION = _pref_affinity(
    _preferred(6, expr_term("region", ("security", "In", ["S2"]))))
AFFINITY3 = _pref_affinity(
    _preferred(8, expr_term("region", ("security", "NotIn", ["S1"]),
                            ("security", "In", ["S2"]))),
    _preferred(2, expr_term("region", ("security", "Exists", None),
                            ("wrongkey", "DoesNotExist", None))))
HARD_AFFINITY = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    expr_term("region", ("security", "In", ["S1", "value2"])),
    expr_term("region", ("security", "Exists", None), ("wrongkey", "DoesNotExist", None))]}}
AWAY_FROM_S1_IN_AZ = _pref_anti(_preferred(5, expr_term("az", ("security", "In", ["S1"]))))
AWAY_FROM_S2_IN_AZ = _pref_anti(_preferred(5, expr_term("az", ("security", "In", ["S2"]))))
STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ = {
    **_pref_affinity(_preferred(8, expr_term("region", ("security", "In", ["S1"])))),
    **_pref_anti(_preferred(5, expr_term("az", ("security", "In", ["S2"])))),
}
_NS_SELECTOR_TERM = expr_term("region", ("security", "In", ["S1"]),
                              namespaces=["subteam2.team2"], namespace_selector=TEAM1_SELECTOR)
AFFINITY_NAMESPACE_SELECTOR = _pref_affinity(_preferred(5, _NS_SELECTOR_TERM))
ANTI_AFFINITY_NAMESPACE_SELECTOR = _pref_anti(_preferred(5, _NS_SELECTOR_TERM))
INVALID_AFFINITY_LABELS = _pref_affinity(
    _preferred(8, expr_term("region", ("security", "In", ["{{.bad-value.}}"]))))
INVALID_ANTI_AFFINITY_LABELS = _pref_anti(
    _preferred(5, expr_term("az", ("security", "In", ["{{.bad-value.}}"]))))

MAX = MAX_NODE_SCORE


def _p(node_name=None, labels=None, affinity=None, namespace="default"):
    pod = MakePod().namespace(namespace).labels(labels or {})
    if node_name:
        pod.node(node_name)
    if affinity:
        pod.affinity(affinity)
    return pod.obj()


def _nodes(*specs):
    return [node(f"node{i}", labels) for i, labels in enumerate(specs, start=1)]


PREFERRED_CASES = [
    pytest.param(
        _p(labels=S1), [], _nodes(RG_CHINA, RG_INDIA, AZ1), None, SKIP, False,
        id="all nodes are skipped when nobody has affinity"),
    pytest.param(
        _p(labels=S1, affinity=STAY_WITH_S1_IN_REGION),
        [_p("node1", S1), _p("node2", S2), _p("node3", S1)],
        _nodes(RG_CHINA, RG_INDIA, AZ1), [MAX, 0, 0], None, False,
        id="affinity favours the node matching both the topology key and the pods"),
    pytest.param(
        _p(affinity=STAY_WITH_S1_IN_REGION), [_p("node1", S1)],
        _nodes(RG_CHINA, RG_CHINA_AZ1, RG_INDIA), [MAX, MAX, 0], None, False,
        id="nodes sharing the topology value of a matching pod score the same"),
    pytest.param(
        _p(labels=S1, affinity=STAY_WITH_S2_IN_REGION),
        [_p("node1", S2), _p("node1", S2), _p("node2", S2), _p("node3", S2), _p("node4", S2),
         _p("node5", S2)],
        _nodes(RG_CHINA, RG_INDIA, RG_CHINA, RG_CHINA, RG_INDIA), [MAX, 0, MAX, MAX, 0], None,
        False,
        id="affinity favours the region with more matching pods"),
    pytest.param(
        _p(labels=S1, affinity=AFFINITY3),
        [_p("node1", S1), _p("node2", S2), _p("node3", S1)],
        _nodes(RG_CHINA, RG_INDIA, AZ1), [20, MAX, 0], None, False,
        id="affinity with different operators sums the weights of the matching terms"),
    pytest.param(
        _p(labels=S2),
        [_p("node1", S1, STAY_WITH_S1_IN_REGION), _p("node2", S2, STAY_WITH_S2_IN_REGION)],
        _nodes(RG_CHINA, RG_INDIA, AZ1), [0, MAX, 0], None, False,
        id="affinity symmetry counts existing pods' preferred terms"),
    pytest.param(
        _p(labels=S1, namespace="subteam1.team1"),
        [_p("node1", S1, AFFINITY_NAMESPACE_SELECTOR), _p("node2", S2, STAY_WITH_S2_IN_REGION)],
        _nodes(RG_CHINA, RG_INDIA, AZ1), [MAX, 0, 0], None, False,
        id="affinity symmetry with a namespace selector"),
    pytest.param(
        _p(labels=S1, namespace="subteam1.team1"),
        [_p("node1", S1, ANTI_AFFINITY_NAMESPACE_SELECTOR),
         _p("node2", S2, STAY_WITH_S2_IN_REGION)],
        _nodes(RG_CHINA, RG_INDIA, AZ1), [0, MAX, MAX], None, False,
        id="anti-affinity symmetry with a namespace selector"),
    pytest.param(
        _p(labels=S1), [_p("node1", S1, HARD_AFFINITY), _p("node2", S2, HARD_AFFINITY)],
        _nodes(RG_CHINA, RG_INDIA, AZ1), [MAX, MAX, 0], None, False,
        id="affinity symmetry counts existing pods' required terms"),
    pytest.param(
        _p(labels=S1, affinity=AWAY_FROM_S1_IN_AZ), [_p("node1", S1), _p("node2", S2)],
        _nodes(AZ1, RG_CHINA), [0, MAX], None, False,
        id="anti-affinity favours the node without matching pods"),
    pytest.param(
        _p(labels=S1, affinity=AWAY_FROM_S1_IN_AZ), [_p("node1", S1), _p("node2", S1)],
        _nodes(AZ1, RG_CHINA), [0, MAX], None, False,
        id="anti-affinity favours the node without the topology key"),
    pytest.param(
        _p(labels=S1, affinity=AWAY_FROM_S1_IN_AZ),
        [_p("node1", S1), _p("node1", S1), _p("node2", S2)],
        _nodes(AZ1, RG_INDIA), [0, MAX], None, False,
        id="anti-affinity favours the node with fewer matching pods"),
    pytest.param(
        _p(labels=S2),
        [_p("node1", S1, AWAY_FROM_S2_IN_AZ), _p("node2", S2, AWAY_FROM_S1_IN_AZ)],
        _nodes(AZ1, AZ2), [0, MAX], None, False,
        id="anti-affinity symmetry counts existing pods' preferred anti-affinity"),
    pytest.param(
        _p(labels=S1, affinity=STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
        [_p("node1", S1), _p("node2", S1)],
        _nodes(RG_CHINA, AZ1), [MAX, 0], None, False,
        id="preferred affinity and anti-affinity together"),
    pytest.param(
        _p(labels=S1, affinity=STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
        [_p("node1", S1), _p("node1", S1), _p("node2", S1), _p("node3", S1), _p("node3", S1),
         _p("node4", S1), _p("node5", S1)],
        _nodes(RG_CHINA_AZ1, RG_INDIA, RG_CHINA, RG_CHINA, RG_INDIA), [MAX, 0, MAX, MAX, 0],
        None, False,
        id="pods of one service stay in one region but apart at node level"),
    pytest.param(
        _p(labels=S1, affinity=STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
        [_p("node1", S1), _p("node2", S2),
         _p("node3", affinity=STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
         _p("node4", affinity=AWAY_FROM_S1_IN_AZ)],
        _nodes(RG_CHINA, AZ1, RG_INDIA, AZ2), [MAX, 0, MAX, 0], None, False,
        id="affinity, anti-affinity and their symmetry together"),
    pytest.param(
        _p(labels=S1),
        [_p("node1", S1), _p("node2", affinity=STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ)],
        _nodes(RG_CHINA, RG_CHINA), [0, 0], None, False,
        id="nodes of a topology without pods with affinity are scored too"),
    pytest.param(
        _p(affinity=INVALID_AFFINITY_LABELS), [], _nodes(RG_CHINA, RG_CHINA), None,
        (Code.ERROR, 'Invalid value: "{{.bad-value.}}"'), False,
        id="an invalid preferred affinity fails PreScore"),
    pytest.param(
        _p(affinity=INVALID_ANTI_AFFINITY_LABELS), [], _nodes(RG_CHINA, RG_CHINA), None,
        (Code.ERROR, 'Invalid value: "{{.bad-value.}}"'), False,
        id="an invalid preferred anti-affinity fails PreScore"),
    pytest.param(
        _p(labels=S1, affinity=AFFINITY_NAMESPACE_SELECTOR, namespace="subteam1.team1"),
        [_p("node1", S1, namespace="subteam1.team1"), _p("node1", S1, namespace="subteam1.team1"),
         _p("node1", S1, namespace="subteam1.team2"), _p("node2", S1, namespace="subteam2.team1")],
        _nodes(RG_CHINA, RG_INDIA), [MAX, 0], None, False,
        id="affinity counts pods in the namespaces its namespace selector picks"),
    pytest.param(
        _p(labels=S1, affinity=AFFINITY_NAMESPACE_SELECTOR, namespace="subteam1.team1"),
        [_p("node1", S1, namespace="subteam1.team1"), _p("node1", S1, namespace="subteam1.team1"),
         _p("node1", S1, namespace="subteam2.team2"), _p("node2", S1, namespace="subteam2.team1")],
        _nodes(RG_CHINA, RG_INDIA), [MAX, 0], None, False,
        id="affinity counts pods in both its namespaces and its selected namespaces"),
    pytest.param(
        _p(labels=S1, affinity=ANTI_AFFINITY_NAMESPACE_SELECTOR, namespace="subteam1.team1"),
        [_p("node1", S1, namespace="subteam1.team1"), _p("node1", S1, namespace="subteam1.team1"),
         _p("node1", S1, namespace="subteam1.team2"), _p("node2", S1, namespace="subteam2.team1")],
        _nodes(RG_CHINA, RG_INDIA), [0, MAX], None, False,
        id="anti-affinity counts pods in the namespaces its namespace selector picks"),
    pytest.param(
        _p(labels=S1, affinity=ANTI_AFFINITY_NAMESPACE_SELECTOR, namespace="subteam1.team1"),
        [_p("node1", S1, namespace="subteam1.team1"), _p("node1", S1, namespace="subteam1.team1"),
         _p("node1", S1, namespace="subteam2.team2"), _p("node2", S1, namespace="subteam2.team1")],
        _nodes(RG_CHINA, RG_INDIA), [0, MAX], None, False,
        id="anti-affinity counts pods in both its namespaces and its selected namespaces"),
    pytest.param(
        _p(labels=S2),
        [_p("node1", S1, STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
         _p("node2", S2, STAY_WITH_S2_IN_REGION)],
        _nodes(RG_CHINA, RG_INDIA), None, SKIP, True,
        id="preferred terms of existing pods are ignored when configured so"),
    pytest.param(
        _p(labels=S2),
        [_p("node1", S1, STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
         _p("node2", S2, STAY_WITH_S2_IN_REGION)],
        _nodes(RG_CHINA, RG_INDIA), [0, MAX], None, False,
        id="preferred terms of existing pods count by default"),
    pytest.param(
        _p(labels=S2), [], [], None, SKIP, False,
        id="no nodes to score skips the plugin"),
]


def _run_scoring(plugin, snapshot, pod: dict, nodes: list[dict]):
    state = CycleState()
    pi = PodInfo(pod)
    status = plugin.pre_score(state, pi, snapshot.list())
    if status is not None:
        return status, None
    scores = normalized_scores(plugin, state, pi,
                               [snapshot.get(n["metadata"]["name"]) for n in nodes])
    return None, [s.score for s in scores]


@pytest.mark.parametrize("pod, pods, nodes, want_scores, want_status, ignore_existing",
                         PREFERRED_CASES)
def test_preferred_affinity(pod, pods, nodes, want_scores, want_status, ignore_existing):
    plugin, snapshot = setup(pods, nodes, NAMESPACES, {
        "hardPodAffinityWeight": 1, "ignorePreferredTermsOfExistingPods": ignore_existing})
    status, scores = _run_scoring(plugin, snapshot, pod, nodes)
    if want_status is not None:
        code, message = want_status if want_status != SKIP else (Code.SKIP, "")
        assert status is not None and status.code == code
        assert message in status.message()
        return
    assert status is None
    assert scores == want_scores


# --- TestPreferredAffinityWithHardPodAffinitySymmetricWeight ------------------------------------

SERVICE_S1 = {"service": "S1"}
# Go's term names the empty namespace its test pods live in; here that is "default".
HARD_POD_AFFINITY = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    expr_term("region", ("service", "In", ["S1"]), namespaces=["default", "subteam2.team2"],
              namespace_selector=TEAM1_SELECTOR)]}}
HARD_NODES = _nodes(RG_CHINA, RG_INDIA, AZ1)
HARD_PODS = [_p("node1", affinity=HARD_POD_AFFINITY), _p("node2", affinity=HARD_POD_AFFINITY)]


@pytest.mark.parametrize("namespace, weight, want_scores", [
    pytest.param("default", 1, [MAX, MAX, 0], id="with the default weight"),
    pytest.param("default", 0, None, id="with zero weight the plugin is skipped"),
    pytest.param("subteam1.team2", 1, None,
                 id="with no matching namespace the plugin is skipped"),
    pytest.param("subteam1.team1", 1, [MAX, MAX, 0], id="with a matching namespace selector"),
    pytest.param("subteam2.team2", 1, [MAX, MAX, 0], id="with matching namespaces"),
])
def test_preferred_affinity_with_hard_pod_affinity_weight(namespace, weight, want_scores):
    plugin, snapshot = setup(HARD_PODS, HARD_NODES, NAMESPACES, {"hardPodAffinityWeight": weight})
    status, scores = _run_scoring(plugin, snapshot, _p(labels=SERVICE_S1, namespace=namespace),
                                  HARD_NODES)
    if want_scores is None:
        assert status_tuple(status) == SKIP
    else:
        assert status is None
        assert scores == want_scores


def test_score_without_pre_score_is_an_error():
    plugin, _ = setup([], [])
    score, status = plugin.score(CycleState(), PodInfo(MakePod().obj()),
                                 NodeInfo(make_node("n")))
    assert score == 0
    assert status.code == Code.ERROR
    assert status.message() == \
        'failed to read "PreScoreInterPodAffinity" from cycleState: not found'


def test_normalize_score_scales_negative_scores_from_min_to_max():
    plugin, snapshot = setup(
        [_p("node1", S1), _p("node1", S1), _p("node2", S1), _p("node3", S2)],
        _nodes({"az": "a"}, {"az": "b"}, {"az": "c"}))
    pod = _p(affinity=_pref_anti(_preferred(7, expr_term("az", ("security", "In", ["S1"])))))
    status, scores = _run_scoring(plugin, snapshot, pod, _nodes({"az": "a"}, {"az": "b"},
                                                                {"az": "c"}))
    # Raw scores -14, -7 and 0: min-max normalization maps them to 0, 50 and 100.
    assert status is None
    assert scores == [0, 50, MAX]


# --- matchLabelKeys / mismatchLabelKeys (merged into the selector as the API server does) -------

def _label_keys_term(topology_key, match=None, mismatch=None):
    term = expr_term(topology_key, ("app", "In", ["web"]))
    if match:
        term["matchLabelKeys"] = match
    if mismatch:
        term["mismatchLabelKeys"] = mismatch
    return term


LABEL_KEY_NODES = [node("node1", {"zone": "z1"}), node("node2", {"zone": "z2"})]


@pytest.mark.parametrize("pod, pods, want_filters", [
    pytest.param(
        MakePod().labels({"app": "web", "rev": "v2"})
        .term(False, REQ, _label_keys_term("zone", match=["rev"])).obj(),
        [MakePod().node("node1").labels({"app": "web", "rev": "v1"}).obj(),
         MakePod().node("node2").labels({"app": "web", "rev": "v2"}).obj()],
        [AFFINITY_NOT_MATCH, None],
        id="matchLabelKeys restricts pod affinity to pods with the same label value"),
    pytest.param(
        MakePod().labels({"app": "web", "rev": "v2"})
        .term(True, REQ, _label_keys_term("zone", mismatch=["rev"])).obj(),
        [MakePod().node("node1").labels({"app": "web", "rev": "v1"}).obj(),
         MakePod().node("node2").labels({"app": "web", "rev": "v2"}).obj()],
        [ANTI_AFFINITY_NOT_MATCH, None],
        id="mismatchLabelKeys restricts pod anti-affinity to pods with another label value"),
    pytest.param(
        MakePod().labels({"app": "web"})
        .term(False, REQ, _label_keys_term("zone", match=["rev"])).obj(),
        [MakePod().node("node1").labels({"app": "web", "rev": "v1"}).obj()],
        [None, AFFINITY_NOT_MATCH],
        id="matchLabelKeys the pod does not carry leave the selector unchanged"),
    pytest.param(
        MakePod().labels({"app": "web", "tenant": "a"}).obj(),
        [MakePod().node("node1").labels({"app": "web", "tenant": "b"})
         .term(True, REQ, _label_keys_term("zone", mismatch=["tenant"])).obj(),
         MakePod().node("node2").labels({"app": "web", "tenant": "a"})
         .term(True, REQ, _label_keys_term("zone", mismatch=["tenant"])).obj()],
        [EXISTING_ANTI_AFFINITY_NOT_MATCH, None],
        id="existing pods' mismatchLabelKeys are merged with their own labels"),
])
def test_match_label_keys(pod, pods, want_filters):
    plugin, snapshot = setup(pods, LABEL_KEY_NODES)
    state = CycleState()
    pi = PodInfo(pod)
    _, status = plugin.pre_filter(state, pi, snapshot.list())
    assert status is None
    got = [status_tuple(plugin.filter(state, pi, snapshot.get(n))) for n in ("node1", "node2")]
    assert got == want_filters


def test_match_label_keys_apply_to_preferred_terms():
    pod = MakePod().labels({"app": "web", "rev": "v2"}).term(
        False, PREF, _label_keys_term("zone", match=["rev"]), weight=10).obj()
    plugin, snapshot = setup(
        [MakePod().node("node1").labels({"app": "web", "rev": "v1"}).obj(),
         MakePod().node("node2").labels({"app": "web", "rev": "v2"}).obj()], LABEL_KEY_NODES)
    status, scores = _run_scoring(plugin, snapshot, pod, LABEL_KEY_NODES)
    assert status is None
    assert scores == [0, MAX]


# --- test/integration/scheduler: filters_test.go and priorities_test.go (matchLabelKeys) ------

INTEGRATION_NAMESPACES = [ns("ns1", NS_LABEL_T1), ns("ns2", NS_LABEL_T1), ns("ns3", NS_LABEL_T2)]
# testnode-0 and anothernode-0 share region and zone but not the "node" label.
INTEGRATION_NODES = [node("testnode-0", {"region": "r1", "zone": "z11", "node": "n1"}),
                     node("anothernode-0", {"region": "r1", "zone": "z11", "node": "n2"})]


def _foo_term(topology_key, match=None, mismatch=None):
    term = expr_term(topology_key, ("foo", "Exists", None))
    if match:
        term["matchLabelKeys"] = match
    if mismatch:
        term["mismatchLabelKeys"] = mismatch
    return term


def _ns1(name, node_name, labels):
    return MakePod(name).namespace("ns1").node(node_name).labels(labels).obj()


INCOMING_LABELS = {"foo": "", "bar": "a"}


@pytest.mark.parametrize("pod, pods, want_filters", [
    pytest.param(
        MakePod("incoming").namespace("ns1").labels(INCOMING_LABELS)
        .term(True, REQ, _foo_term("zone", match=["bar"])).obj(),
        [_ns1("pod1", "testnode-0", {"foo": "", "bar": "fuga"}),
         _ns1("pod2", "testnode-0", {"foo": "", "bar": "hoge"})],
        [None, None],
        id="anti-affinity matchLabelKeys merged as In leave pods with other values alone"),
    pytest.param(
        MakePod("incoming").namespace("ns1").labels(INCOMING_LABELS)
        .term(True, REQ, _foo_term("zone", mismatch=["bar"])).obj(),
        [_ns1("pod1", "testnode-0", {"foo": "", "bar": "a"}),
         _ns1("pod2", "testnode-0", {"foo": "", "bar": "a"})],
        [None, None],
        id="anti-affinity mismatchLabelKeys merged as NotIn leave pods with the same value alone"),
    # In the integration test the matching pod also fills anothernode-0, so the pod fits nowhere.
    pytest.param(
        MakePod("incoming").namespace("ns1").labels(INCOMING_LABELS)
        .term(False, REQ, _foo_term("node", match=["bar"])).obj(),
        [_ns1("pod1", "anothernode-0", {"foo": "", "bar": "a"}),
         _ns1("pod2", "testnode-0", {"foo": "", "bar": "hoge"}),
         _ns1("pod3", "testnode-0", {"foo": "", "bar": "fuga"})],
        [AFFINITY_NOT_MATCH, None],
        id="affinity matchLabelKeys merged as In only count pods with the same value"),
    pytest.param(
        MakePod("incoming").namespace("ns1").labels(INCOMING_LABELS)
        .term(False, REQ, _foo_term("node", mismatch=["bar"])).obj(),
        [_ns1("pod1", "anothernode-0", {"foo": "", "bar": "fuga"}),
         _ns1("pod2", "testnode-0", {"foo": "", "bar": "a"}),
         _ns1("pod3", "testnode-0", {"foo": "", "bar": "a"})],
        [AFFINITY_NOT_MATCH, None],
        id="affinity mismatchLabelKeys merged as NotIn only count pods with another value"),
    pytest.param(
        MakePod().namespace("ns1").pod_anti_affinity_in("foo", "region", ["abc"]).obj(),
        [_ns1("fakename", "testnode-0", {"foo": "abc"})],
        [ANTI_AFFINITY_NOT_MATCH, ANTI_AFFINITY_NOT_MATCH],
        id="nodes sharing the region of a pod the anti-affinity selects both reject the pod"),
])
def test_integration_filters(pod, pods, want_filters):
    plugin, snapshot = setup(pods, INTEGRATION_NODES, INTEGRATION_NAMESPACES)
    state = CycleState()
    pi = PodInfo(pod)
    _, status = plugin.pre_filter(state, pi, snapshot.list())
    assert status is None
    got = [status_tuple(plugin.filter(state, pi, snapshot.get(n["metadata"]["name"])))
           for n in INTEGRATION_NODES]
    assert got == want_filters


TOPOLOGY_KEY = "node-topologykey"


def _topology_nodes(count, others=0):
    nodes = [node(f"node{i}", {TOPOLOGY_KEY: f"topologyvalue{(i - 1) % 5}"})
             for i in range(1, count + 1)]
    return nodes + [node(f"other-node{i}", {}) for i in range(1, others + 1)]


def _topology_nodes_of_three():
    """node1..node6 over three topology values, node4-6 repeating node1-3's."""
    return [node(f"node{i}", {TOPOLOGY_KEY: f"topologyvalue{(i - 1) % 3}"}) for i in range(1, 7)]


_SERVICE_IN_S1_S3 = expr_term(TOPOLOGY_KEY, ("service", "In", ["S1", "S3"]))


@pytest.mark.parametrize("pod, pods, nodes, want_best", [
    pytest.param(
        MakePod("pod1").namespace("ns1").term(False, PREF, _SERVICE_IN_S1_S3, weight=50).obj(),
        [_ns1("attractor-pod", "node1", {"service": "S1"})],
        _topology_nodes(10, others=2), {"node1", "node6"},
        id="preferred pod affinity favours the topology domain of the attractor pod"),
    pytest.param(
        MakePod("pod1").namespace("ns2").term(
            False, PREF, dict(_SERVICE_IN_S1_S3, namespaceSelector={}), weight=50).obj(),
        [_ns1("attractor-pod", "node1", {"service": "S1"})],
        _topology_nodes(10, others=2), {"node1", "node6"},
        id="preferred pod affinity with an all-namespaces selector finds pods elsewhere"),
    pytest.param(
        MakePod("incoming").namespace("ns1").labels(INCOMING_LABELS)
        .term(True, PREF, _foo_term(TOPOLOGY_KEY, match=["bar"]), weight=50).obj(),
        [_ns1("pod1", "node1", {"foo": "", "bar": "fuga"}),
         _ns1("pod2", "node2", {"foo": "", "bar": "a"})],
        _topology_nodes(2), {"node1"},
        id="preferred anti-affinity matchLabelKeys merged as In"),
    pytest.param(
        MakePod("incoming").namespace("ns1").labels(INCOMING_LABELS)
        .term(True, PREF, _foo_term(TOPOLOGY_KEY, mismatch=["bar"]), weight=50).obj(),
        [_ns1("pod1", "node1", {"foo": "", "bar": "fuga"}),
         _ns1("pod2", "node2", {"foo": "", "bar": "a"})],
        _topology_nodes(2), {"node2"},
        id="preferred anti-affinity mismatchLabelKeys merged as NotIn"),
    pytest.param(
        MakePod("incoming").namespace("ns1").labels(INCOMING_LABELS)
        .term(False, PREF, _foo_term(TOPOLOGY_KEY, match=["bar"]), weight=50)
        .term(False, PREF, expr_term(TOPOLOGY_KEY, ("bar", "In", ["hoge"])), weight=10).obj(),
        [_ns1("pod1", "node1", {"foo": "", "bar": "hoge"}),
         _ns1("pod2", "node2", {"foo": "", "bar": "hoge"}),
         _ns1("pod3", "node3", {"foo": "", "bar": "a"})],
        _topology_nodes_of_three(), {"node3", "node6"},
        id="preferred affinity matchLabelKeys merged as In outweigh a weaker term"),
    pytest.param(
        MakePod("incoming").namespace("ns1").labels(INCOMING_LABELS)
        .term(False, PREF, _foo_term(TOPOLOGY_KEY, mismatch=["bar"]), weight=50)
        .term(False, PREF, expr_term(TOPOLOGY_KEY, ("bar", "In", ["hoge"])), weight=10).obj(),
        [_ns1("pod1", "node1", {"foo": "", "bar": "a"}),
         _ns1("pod2", "node2", {"foo": "", "bar": "a"}),
         _ns1("pod3", "node3", {"foo": "", "bar": "hoge"})],
        _topology_nodes_of_three(), {"node3", "node6"},
        id="preferred affinity mismatchLabelKeys merged as NotIn outweigh a weaker term"),
])
def test_integration_pod_affinity_scoring(pod, pods, nodes, want_best):
    plugin, snapshot = setup(pods, nodes, INTEGRATION_NAMESPACES)
    status, scores = _run_scoring(plugin, snapshot, pod, nodes)
    assert status is None
    best = max(scores)
    assert {n["metadata"]["name"] for n, s in zip(nodes, scores, strict=True) if s == best} \
        == want_best


# --- Parsing errors worded as apimachinery words them -------------------------------------------

@pytest.mark.parametrize("expr, want", [
    pytest.param({"key": "k", "operator": "Gt", "values": ["1"]},
                 '"Gt" is not a valid label selector operator',
                 id="an operator label selectors do not know"),
    pytest.param({"key": "k", "operator": "In"},
                 "values: Invalid value: []string(nil): for 'in', 'notin' operators, "
                 "values set can't be empty",
                 id="In without values"),
    pytest.param({"key": "k", "operator": "Exists", "values": ["a"]},
                 'values: Invalid value: []string{"a"}: values set must be empty for exists and '
                 "does not exist",
                 id="Exists with values"),
    pytest.param({"key": "a/b/c", "operator": "Exists"},
                 'key: Invalid value: "a/b/c": a qualified name must consist of alphanumeric '
                 "characters, '-', '_' or '.', and must start and end with an alphanumeric "
                 "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
                 "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS "
                 "subdomain prefix and '/' (e.g. 'example.com/MyName')",
                 id="a key with two slashes"),
    pytest.param({"key": "Example.com/app", "operator": "Exists"},
                 'key: Invalid value: "Example.com/app": prefix part a lowercase RFC 1123 '
                 "subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
                 "must start and end with an alphanumeric character (e.g. 'example.com', regex "
                 "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]"
                 "([-a-z0-9]*[a-z0-9])?)*')",
                 id="a key whose prefix is not a DNS subdomain"),
])
def test_invalid_selectors_fail_pre_filter(expr, want):
    pod = MakePod().term(True, REQ, {"labelSelector": {"matchExpressions": [expr]},
                                     "topologyKey": "zone"}).obj()
    plugin, snapshot = setup([], LABEL_KEY_NODES)
    _, status = plugin.pre_filter(CycleState(), PodInfo(pod), snapshot.list())
    assert status_tuple(status) == unresolvable(
        f"parsing pod: requiredAntiAffinityTerms: {want}")


def test_errors_of_several_term_lists_are_aggregated():
    bad = expr_term("zone", ("k", "In", None))
    pod = MakePod().term(False, REQ, bad).term(True, PREF, bad).obj()
    plugin, snapshot = setup([], LABEL_KEY_NODES)
    _, status = plugin.pre_filter(CycleState(), PodInfo(pod), snapshot.list())
    message = ("values: Invalid value: []string(nil): for 'in', 'notin' operators, values set "
               "can't be empty")
    assert status_tuple(status) == unresolvable(
        f"parsing pod: [requiredAffinityTerms: {message}, preferredAntiAffinityTerms: {message}]")


def test_existing_pods_with_invalid_terms_keep_their_valid_term_lists():
    existing = MakePod().node("node1").labels({"app": "web"}) \
        .term(False, REQ, expr_term("zone", ("k", "In", None))) \
        .pod_anti_affinity_exists("app", "zone").obj()
    plugin, snapshot = setup([existing], LABEL_KEY_NODES)
    state = CycleState()
    pi = PodInfo(MakePod().labels({"app": "web"}).obj())
    _, status = plugin.pre_filter(state, pi, snapshot.list())
    assert status is None
    assert status_tuple(plugin.filter(state, pi, snapshot.get("node1"))) == \
        EXISTING_ANTI_AFFINITY_NOT_MATCH


def test_parsed_terms_are_cached_on_the_pod_info():
    pi = PodInfo(MakePod().pod_affinity_exists("app", "zone").obj())
    assert parsed_affinity(pi) is parsed_affinity(pi)
    assert pi.parsed["InterPodAffinity"].required_affinity[0].topology_key == "zone"


# --- Args and events ----------------------------------------------------------------------------

@pytest.mark.parametrize("args, want", [
    pytest.param({}, {"hardPodAffinityWeight": 1, "ignorePreferredTermsOfExistingPods": False},
                 id="defaults"),
    pytest.param({"hardPodAffinityWeight": 0, "ignorePreferredTermsOfExistingPods": True},
                 {"hardPodAffinityWeight": 0, "ignorePreferredTermsOfExistingPods": True},
                 id="an explicit zero weight is kept"),
])
def test_default_args(args, want):
    assert default_args(args) == want


@pytest.mark.parametrize("weight, want", [
    pytest.param(10, [], id="valid args"),
    pytest.param(-1, "args.hardPodAffinityWeight: Invalid value: -1: not in valid range [0, 100]",
                 id="hardPodAffinityWeight less than min"),
    pytest.param(101, "args.hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]",
                 id="hardPodAffinityWeight more than max"),
])
def test_validate_args(weight, want):
    assert validate_args(default_args({"hardPodAffinityWeight": weight}), "args") == \
        ([want] if want else [])


def test_default_args_rejects_a_weight_that_is_not_a_number():
    want = (r"cannot unmarshal string into Go struct field "
            r"InterPodAffinityArgs\.hardPodAffinityWeight of type int32")
    with pytest.raises(TypeError, match=want):
        default_args({"hardPodAffinityWeight": "high"})


def test_events_to_register():
    plugin, _ = setup([], [])
    assert plugin.events_to_register() == {"AssignedPodAdd", "AssignedPodUpdate",
                                           "AssignedPodDelete", "NodeAdd", "NodeUpdate"}
