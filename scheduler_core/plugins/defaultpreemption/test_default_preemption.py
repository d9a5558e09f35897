"""DefaultPreemption, ported in behaviour from default_preemption_test.go and run end to end.

The plugin is exercised inside a real Scheduler (its handle gives the framework, the nominator,
deletions on the virtual clock) with the real NodeResourcesFit, plus small test plugins like
Go's (a counting FakeFilter, a PreFilter whose AddPod/RemovePod fail on labelled nodes).
"""
from __future__ import annotations

import copy
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

import pytest

from ...build import build_scheduler
from ...config import API_VERSION, parse_configuration
from ...errors import ConfigError
from ...features import feature_gates
from ...framework.cycle_state import CycleState
from ...framework.diagnosis import NodeToStatus
from ...framework.handle import FakeHandle
from ...framework.interfaces import FilterPlugin, PreFilterExtensions, PreFilterPlugin
from ...framework.status import Code, Status
from ...framework.types import PodInfo, Victims
from ...loader import load_documents
from ...observe import MultiObserver, Observer, TraceObserver
from ...plugins.registry import in_tree_registry
from ...scheduler import Scheduler
from ...simulate import simulate
from ...testing import make_node, make_pod
from . import DETAIL_STATE_KEY, default_args, new, validate_args
from .preemption import (
    FIRST_CANDIDATE,
    MIN_CHUNK,
    ONLY_CANDIDATE,
    Evaluator,
    pick_one_node_for_preemption,
)

NEG, LOW, MID, HIGH, VERY_HIGH = -100, 0, 100, 1000, 10000
SMALL = {"cpu": "100m", "memory": "100"}
MEDIUM = {"cpu": "200m", "memory": "200"}
LARGE = {"cpu": "300m", "memory": "300"}
VERY_LARGE = {"cpu": "500m", "memory": "500"}
NODE_RES = {"cpu": "200m", "memory": "400"}
PROFILE = "default-scheduler"
LESSON = Path(__file__).resolve().parents[3] / "fixtures" / "preemption-lesson.yaml"
# DynamicResources' PostFilter answer for a pod without claims (v1.34 default profile).
NO_CLAIMS = {"plugin": "DynamicResources", "code": "Unschedulable", "reasons": []}
RFC3339 = "%Y-%m-%dT%H:%M:%SZ"


# --- builders ----------------------------------------------------------------------------------
def node(name: str, res=None, labels=None, **kw) -> dict:
    """st.MakeNode().Capacity(res): the given resources and 32 pods."""
    res = dict(res or {})
    return make_node(name, cpu=res.pop("cpu", None), memory=res.pop("memory", None),
                     pods=res.pop("pods", "32"), labels=labels, allocatable=res, **kw)


def one_pod_node(name: str) -> dict:
    return node(name, {"pods": "1"})


def topology_node(path: str, res=VERY_LARGE) -> dict:
    """'node-a/zone1' -> node-a labelled hostname=node-a, zone=zone1 (as Go's tests split it)."""
    parts = path.split("/")
    return node(parts[0], res, labels=dict(zip(("hostname", "zone", "region"), parts)))


def pod(name: str, on=None, priority=None, req=None, labels=None, start=None, **spec) -> dict:
    manifest = make_pod(name, node_name=on, priority=priority, requests=req, labels=labels,
                        **spec)
    if start is not None:
        manifest["status"] = {"startTime": datetime.fromtimestamp(start, UTC)
                              .strftime(RFC3339)}
    return manifest


def pdb(name: str, match_labels: dict, allowed: int, disrupted=()) -> dict:
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"selector": {"matchLabels": dict(match_labels)}},
            "status": {"disruptionsAllowed": allowed,
                       "disruptedPods": {p: "2024-01-01T00:00:00Z" for p in disrupted}}}


def spread(key: str) -> dict:
    return {"maxSkew": 1, "topologyKey": key, "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}}


def statuses(unschedulable=(), unresolvable=()) -> NodeToStatus:
    """A NodeToStatus whose absent nodes are UnschedulableAndUnresolvable."""
    out = NodeToStatus()
    for name in unschedulable:
        out.set(name, Status(Code.UNSCHEDULABLE))
    for name in unresolvable:
        out.set(name, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE))
    return out


# --- test plugins (tf.FakeFilterPlugin, TestPlugin, True/False/MatchFilter) --------------------
class FakeFilter(FilterPlugin):
    """Counts Filter calls; fails nodes with the code given for them."""

    NAME = "FakeFilter"

    def __init__(self, codes: dict[str, Code]):
        self.codes = codes
        self.calls = 0

    def filter(self, state, pod, node_info):
        self.calls += 1
        code = self.codes.get(node_info.name, Code.SUCCESS)
        if code == Code.SUCCESS:
            return None
        return Status(code, f"injecting failure for pod {pod.name}")


class ErrorOnLabelledNode(PreFilterPlugin, PreFilterExtensions):
    """Go's TestPlugin: AddPod/RemovePod fail on nodes labelled error=true."""

    NAME = "test-plugin"

    def pre_filter(self, state, pod, nodes):
        return None, None

    def pre_filter_extensions(self):
        return self

    def add_pod(self, state, pod, pod_to_add, node_info):
        if node_info.labels.get("error") == "true":
            return Status.as_error(f"failed to add pod: {pod.name}")
        return None

    def remove_pod(self, state, pod, pod_to_remove, node_info):
        if node_info.labels.get("error") == "true":
            return Status.as_error(f"failed to remove pod: {pod.name}")
        return None


class FuncFilter(FilterPlugin):
    def __init__(self, name: str, passes):
        self.NAME = name
        self.passes = passes

    def filter(self, state, pod, node_info):
        if self.passes(pod, node_info):
            return None
        return Status.unschedulable("Nodes failed the fake plugin")


TRUE_FILTER = ("TrueFilter", lambda pod, ni: True)
FALSE_FILTER = ("FalseFilter", lambda pod, ni: False)
MATCH_FILTER = ("MatchFilter", lambda pod, ni: pod.name == ni.name)


class FakeExtender:
    """tf.FakeExtender for preemption: keeps the candidate nodes its predicate accepts."""

    def __init__(self, keep, *, ignorable=False, interested=True, error=None):
        self.keep, self.ignorable, self.interested, self.error = keep, ignorable, interested, error

    def name(self) -> str:
        return "FakeExtender"

    def supports_preemption(self) -> bool:
        return True

    def is_interested(self, pod) -> bool:
        return self.interested

    def is_ignorable(self) -> bool:
        return self.ignorable

    def process_preemption(self, pod, victims_by_node):
        if self.error:
            raise ValueError(self.error)
        return {n: v for n, v in victims_by_node.items() if self.keep(n)}


def keep_all(node_name: str) -> bool:
    return True


def keep_node1(node_name: str) -> bool:
    return node_name == "node1"


def keep_none(node_name: str) -> bool:
    return False


def _spec(factory):
    return SimpleNamespace(new=factory, default_args=lambda a: dict(a or {}),
                           validate_args=lambda a, p: [])


# --- the test environment ----------------------------------------------------------------------
class Env:
    """A Scheduler whose profile runs PrioritySort, the given plugins, DefaultPreemption and
    DefaultBinder, for calling the plugin as the framework would."""

    def __init__(self, nodes, pods, *, plugins=("NodeResourcesFit",), pdbs=(), args=None,
                 fake_codes=None, funcs=(), extenders=None, seed=0, observer=None,
                 release="1.37"):
        registry = in_tree_registry()
        names = ["PrioritySort"]
        if fake_codes is not None:
            registry.register("FakeFilter", _spec(lambda a, h: FakeFilter(fake_codes)))
            names.append("FakeFilter")
        for name, passes in funcs:
            registry.register(name, _spec(lambda a, h, n=name, f=passes: FuncFilter(n, f)))
            names.append(name)
        registry.register("test-plugin", _spec(lambda a, h: ErrorOnLabelledNode()))
        names += [*plugins, "DefaultPreemption", "DefaultBinder"]
        profile = {"schedulerName": PROFILE, "plugins": {"multiPoint": {
            "enabled": [{"name": n} for n in names], "disabled": [{"name": "*"}]}}}
        if args is not None:
            profile["pluginConfig"] = [{"name": "DefaultPreemption", "args": args}]
        config = {"apiVersion": API_VERSION, "kind": "KubeSchedulerConfiguration",
                  "profiles": [profile]}
        docs = copy.deepcopy([*nodes, *pods, *pdbs, config])
        cluster = load_documents([("test.yaml", docs)], features=feature_gates(release))
        self.sched = Scheduler(cluster, parse_configuration(cluster.config, registry), seed=seed,
                               observer=observer, registry=registry, extenders=extenders)
        self.fwk = self.sched.frameworks[PROFILE]
        self.plugin = self.fwk.instances["DefaultPreemption"]

    def pod(self, name: str) -> PodInfo:
        return next(p for p in self.sched.pods if p.name == name)

    def node_infos(self):
        return sorted(self.sched.snapshot.list(), key=lambda ni: ni.name)

    def pre_filter(self, pod: PodInfo) -> CycleState:
        """A CycleState the PreFilter plugins have filled, as the scheduling cycle leaves it."""
        state = CycleState()
        _, status, _ = self.fwk.run_pre_filter_plugins(state, pod, self.sched.snapshot.list())
        assert status.is_success(), status
        return state

    def terminating(self) -> list[str]:
        return sorted(p.name for p in self.sched.pods if p.terminating)


def by_name(candidates) -> dict:
    """{node: ([victim names sorted], PDB violations)}, the shape Go's test compares."""
    return {c.name: (sorted(p.name for p in c.victims.pods), c.victims.num_pdb_violations)
            for c in candidates}


# --- PostFilter (TestPostFilter) ---------------------------------------------------------------
POST_FILTER_CASES = [
    pytest.param(
        pod("p", priority=HIGH), [pod("p1", on="node1")], [one_pod_node("node1")], (),
        statuses(["node1"]), {}, "node1", Status(), id="pod with higher priority can be made "
        "schedulable"),
    pytest.param(
        pod("p"), [pod("p1", on="node1")], [one_pod_node("node1")], (), statuses(["node1"]), {},
        "", Status(Code.UNSCHEDULABLE, "preemption: 0/1 nodes are available: 1 No preemption "
                   "victims found for incoming pod."),
        id="pod with tied priority is still unschedulable"),
    pytest.param(
        pod("p", priority=HIGH), [pod("p1", on="node1")], [one_pod_node("node1")], (),
        statuses(unresolvable=["node1"]), {}, "",
        Status(Code.UNSCHEDULABLE, "preemption: 0/1 nodes are available: 1 Preemption is not "
               "helpful for scheduling."),
        id="preemption respects an UnschedulableAndUnresolvable node status"),
    pytest.param(
        pod("p", priority=HIGH), [pod("p1", on="node1")], [one_pod_node("node1")], (),
        statuses(), {}, "",
        Status(Code.UNSCHEDULABLE, "preemption: 0/1 nodes are available: 1 Preemption is not "
               "helpful for scheduling."),
        id="an absent node counts as UnschedulableAndUnresolvable"),
    pytest.param(
        pod("p", priority=MID),
        [pod("p1", on="node1", priority=HIGH), pod("p2", on="node2", priority=LOW)],
        [one_pod_node("node1"), one_pod_node("node2")], (), statuses(["node1", "node2"]), {},
        "node2", Status(), id="pod can be made schedulable on one node"),
    pytest.param(
        pod("p", priority=VERY_HIGH),
        [pod("p1", on="node1", priority=HIGH, labels={"pdb": "non-violating"}),
         pod("p2", on="node1", priority=LOW, labels={"pdb": "violating"}),
         pod("p3", on="node2", priority=MID, labels={"pdb": "violating"})],
        [one_pod_node("node1"), one_pod_node("node2")],
        (pdb("violating-pdb", {"pdb": "violating"}, 0),
         pdb("non-violating-pdb", {"pdb": "non-violating"}, 2**31 - 1)),
        statuses(["node1", "node2"]), {}, "node2", Status(),
        id="pod can be made schedulable on minHighestPriority node"),
    pytest.param(
        pod("p", priority=HIGH), [pod("p1", on="node1"), pod("p2", on="node2")],
        [one_pod_node("node1"), one_pod_node("node2")], (), statuses(["node1", "node2"]),
        {"extenders": [FakeExtender(keep_node1)]}, "node1", Status(),
        id="preemption result filtered out by extenders"),
    pytest.param(
        pod("p", priority=HIGH, req=LARGE), [pod("p1", on="node1"), pod("p2", on="node2")],
        [node("node1", NODE_RES), node("node2", NODE_RES)], (), statuses(["node1", "node2"]),
        {}, "", Status(Code.UNSCHEDULABLE, "preemption: 0/2 nodes are available: 2 "
                       "Insufficient cpu."),
        id="no candidate nodes: not enough cpu even without the lower priority pods"),
    pytest.param(
        pod("p", priority=HIGH, req=LARGE),
        [pod("p1", on="node1", priority=HIGH), pod("p2", on="node2"),
         pod("p3", on="node3", priority=HIGH)],
        [one_pod_node("node1"), node("node2", NODE_RES), one_pod_node("node3")], (),
        statuses(["node1", "node2", "node3"]), {}, "",
        Status(Code.UNSCHEDULABLE, "preemption: 0/3 nodes are available: 1 Insufficient cpu, "
               "2 No preemption victims found for incoming pod."),
        id="no candidate nodes with mixed reasons: no lower priority pod and not enough cpu"),
    pytest.param(
        pod("p", priority=HIGH, req=LARGE), [pod("p1", on="node1"), pod("p2", on="node2")],
        [node(f"node{i}", NODE_RES) for i in range(1, 5)], (),
        statuses(["node1", "node2"], ["node4"]), {}, "",
        Status(Code.UNSCHEDULABLE, "preemption: 0/4 nodes are available: 2 Insufficient cpu, "
               "2 Preemption is not helpful for scheduling."),
        id="no candidate nodes: 2 unresolvable nodes and 2 without enough cpu"),
    pytest.param(
        pod("p", priority=HIGH, req=LARGE),
        [pod("p1", on="node1"), pod("p2", on="node2", req=MEDIUM)],
        [node("node1", LARGE, labels={"error": "true"}), node("node2", LARGE)], (),
        statuses(["node1", "node2"]), {"plugins": ("NodeResourcesFit", "test-plugin")}, "node2",
        Status(), id="one node fails with an error in RemovePod and the other is chosen"),
]


@pytest.mark.parametrize("preemptor, pods, nodes, pdbs, node_to_status, env, want_node, "
                         "want_status", POST_FILTER_CASES)
def test_post_filter(preemptor, pods, nodes, pdbs, node_to_status, env, want_node, want_status):
    # Go's TestPostFilter before v1.37: a successful preemption has no message (v1.37's is
    # checked in tests/test_release_messages.py).
    e = Env(nodes, [preemptor, *pods], pdbs=pdbs, release="1.36", **env)
    p = e.pod("p")
    result, status = e.plugin.post_filter(e.pre_filter(p), p, node_to_status)
    assert status == want_status
    assert result is not None and result.nominated_node_name == want_node


def test_post_filter_error_in_remove_pod_on_the_only_node():
    e = Env([node("node1", LARGE, labels={"error": "true"})],
            [pod("p", priority=HIGH, req=LARGE), pod("p1", on="node1")],
            plugins=("NodeResourcesFit", "test-plugin"))
    p = e.pod("p")
    result, status = e.plugin.post_filter(e.pre_filter(p), p, statuses(["node1"]))
    assert result is None
    assert status.code == Code.ERROR
    # Go: 'preemption: running RemovePod on PreFilter plugin "test-plugin": failed to remove
    # pod: p'; the runtime names the extension point itself.
    assert status.message().startswith("preemption: running ")
    assert status.message().endswith('PreFilter plugin "test-plugin": failed to remove pod: p')
    assert e.terminating() == []


def test_post_filter_leaves_the_detail_in_cycle_state():
    e = Env([one_pod_node("node1"), one_pod_node("node2")],
            [pod("p", priority=MID), pod("p1", on="node1", priority=HIGH),
             pod("p2", on="node2", priority=LOW)])
    p = e.pod("p")
    state = e.pre_filter(p)
    e.plugin.post_filter(state, p, statuses(["node1", "node2"]))
    detail = state.read(DETAIL_STATE_KEY)
    assert detail["potentialNodes"] == 2 and detail["numCandidates"] == 2
    assert detail["candidates"] == [
        {"node": "node2", "victims": ["default/p2"], "pdbViolations": 0}]
    assert detail["rejected"] == {
        "node1": "UnschedulableAndUnresolvable: No preemption victims found for incoming pod"}
    assert detail["decision"] == {"node": "node2", "criterion": ONLY_CANDIDATE,
                                  "runnerUp": None, "why": "node2 is the only candidate"}


# --- DryRunPreemption (TestDryRunPreemption) ---------------------------------------------------
def _dry(name, nodes, preemptors, pods, expected, calls, *, offsets=None, pdbs=(), args=None,
         plugins=("NodeResourcesFit",), funcs=(), fake_code=Code.SUCCESS):
    return pytest.param(nodes, preemptors, pods, expected, calls, offsets, pdbs, args, plugins,
                        funcs, fake_code, id=name)


NODES_2 = ["node1", "node2"]
NODES_5 = [f"node{i}" for i in range(1, 6)]
LIMIT_2 = {"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 1}

DRY_RUN_CASES = [
    _dry("a pod that does not fit on any node", NODES_2, [pod("p", priority=HIGH)],
         [pod("p1", on="node1", priority=MID), pod("p2", on="node2", priority=MID)],
         [{}], [2], plugins=(), funcs=[FALSE_FILTER]),
    _dry("a pod that fits with no preemption", NODES_2, [pod("p", priority=HIGH)],
         [pod("p1", on="node1", priority=MID), pod("p2", on="node2", priority=MID)],
         [{}], [2], plugins=(), funcs=[TRUE_FILTER], fake_code=Code.UNSCHEDULABLE),
    _dry("a pod that fits on one node with no preemption", NODES_2,
         [pod("node1", priority=HIGH)],
         [pod("p1", on="node1", priority=MID), pod("p2", on="node2", priority=MID)],
         [{}], [2], plugins=(), funcs=[MATCH_FILTER], fake_code=Code.UNSCHEDULABLE),
    _dry("a pod that fits on both nodes when lower priority pods are preempted", NODES_2,
         [pod("p", priority=HIGH, req=LARGE)],
         [pod("p1", on="node1", priority=MID, req=LARGE),
          pod("p2", on="node2", priority=MID, req=LARGE)],
         [{"node1": (["p1"], 0), "node2": (["p2"], 0)}], [4]),
    _dry("other pods running are higher priority, no preemption would happen", NODES_2,
         [pod("p", priority=LOW, req=LARGE)],
         [pod("p1", on="node1", priority=MID, req=LARGE),
          pod("p2", on="node2", priority=MID, req=LARGE)],
         [{}], [0]),
    _dry("medium priority pod is preempted, but lower priority one stays as it is small",
         NODES_2, [pod("p", priority=HIGH, req=LARGE)],
         [pod("p1.1", on="node1", priority=LOW, req=SMALL),
          pod("p1.2", on="node1", priority=MID, req=LARGE),
          pod("p2", on="node2", priority=MID, req=LARGE)],
         [{"node1": (["p1.2"], 0), "node2": (["p2"], 0)}], [5]),
    _dry("mixed priority pods are preempted", NODES_2, [pod("p", priority=HIGH, req=LARGE)],
         [pod("p1.1", on="node1", priority=MID, req=SMALL),
          pod("p1.2", on="node1", priority=LOW, req=SMALL),
          pod("p1.3", on="node1", priority=MID, req=MEDIUM),
          pod("p1.4", on="node1", priority=HIGH, req=SMALL),
          pod("p2", on="node2", priority=HIGH, req=LARGE)],
         [{"node1": (["p1.2", "p1.3"], 0)}], [4]),
    _dry("mixed priority pods are preempted, the later start time goes when priorities tie",
         NODES_2, [pod("p", priority=HIGH, req=LARGE)],
         [pod("p1.1", on="node1", priority=LOW, req=SMALL, start=5),
          pod("p1.2", on="node1", priority=LOW, req=SMALL, start=4),
          pod("p1.3", on="node1", priority=MID, req=MEDIUM, start=3),
          pod("p1.4", on="node1", priority=HIGH, req=SMALL, start=2),
          pod("p2", on="node2", priority=HIGH, req=LARGE, start=1)],
         [{"node1": (["p1.1", "p1.3"], 0)}], [4]),
    _dry("pod with anti-affinity is preempted", NODES_2,
         [pod("p", priority=HIGH, req=SMALL, labels={"foo": ""})],
         [pod("p1.1", on="node1", priority=LOW, req=SMALL, labels={"foo": ""},
              affinity={"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                  {"labelSelector": {"matchExpressions": [{"key": "foo", "operator": "Exists"}]},
                   "topologyKey": "hostname"}]}}),
          pod("p1.2", on="node1", priority=MID, req=SMALL),
          pod("p1.3", on="node1", priority=HIGH, req=SMALL),
          pod("p2", on="node2", priority=HIGH, req=SMALL)],
         [{"node1": (["p1.1"], 0)}], [3], plugins=("NodeResourcesFit", "InterPodAffinity")),
    _dry("preemption to resolve pod topology spread filter failure",
         ["node-a/zone1", "node-b/zone1", "node-x/zone2"],
         [pod("p", priority=HIGH, labels={"foo": ""},
              topologySpreadConstraints=[spread("zone"), spread("hostname")])],
         [pod("pod-a1", on="node-a", priority=MID, labels={"foo": ""}),
          pod("pod-a2", on="node-a", priority=LOW, labels={"foo": ""}),
          pod("pod-b1", on="node-b", priority=LOW, labels={"foo": ""}),
          pod("pod-x1", on="node-x", priority=HIGH, labels={"foo": ""}),
          pod("pod-x2", on="node-x", priority=HIGH, labels={"foo": ""})],
         [{"node-a": (["pod-a2"], 0), "node-b": (["pod-b1"], 0)}], [5],
         plugins=("PodTopologySpread",)),
    _dry("Unschedulable from the filter plugins during the dry run", NODES_2,
         [pod("p", priority=HIGH, req=LARGE)],
         [pod("p1", on="node1", priority=MID, req=LARGE),
          pod("p2", on="node2", priority=MID, req=LARGE)],
         [{}], [2], fake_code=Code.UNSCHEDULABLE),
    _dry("preemption with violation of the same pdb", ["node1"],
         [pod("p", priority=HIGH, req=VERY_LARGE)],
         [pod("p1.1", on="node1", priority=MID, req=MEDIUM, labels={"app": "foo"}),
          pod("p1.2", on="node1", priority=MID, req=MEDIUM, labels={"app": "foo"})],
         [{"node1": (["p1.1", "p1.2"], 1)}], [3], pdbs=[pdb("foo", {"app": "foo"}, 1)]),
    _dry("a pdb whose disruptedPods lists another pod still counts the victims", ["node1"],
         [pod("p", priority=HIGH, req=VERY_LARGE)],
         [pod("p1.1", on="node1", priority=MID, req=MEDIUM, labels={"app": "foo"}),
          pod("p1.2", on="node1", priority=MID, req=MEDIUM, labels={"app": "foo"})],
         [{"node1": (["p1.1", "p1.2"], 1)}], [3],
         pdbs=[pdb("foo", {"app": "foo"}, 1, disrupted=["p2"])]),
    _dry("a victim already in the pdb's disruptedPods spends no budget", ["node1"],
         [pod("p", priority=HIGH, req=VERY_LARGE)],
         [pod("p1.1", on="node1", priority=MID, req=MEDIUM, labels={"app": "foo"}),
          pod("p1.2", on="node1", priority=MID, req=MEDIUM, labels={"app": "foo"})],
         [{"node1": (["p1.1", "p1.2"], 0)}], [3],
         pdbs=[pdb("foo", {"app": "foo"}, 1, disrupted=["p1.2"])]),
    _dry("a victim in disruptedPods is non-violating, the others still spend the budget",
         ["node1"], [pod("p", priority=HIGH, req=VERY_LARGE)],
         [pod("p1.1", on="node1", priority=MID, req=MEDIUM, labels={"app": "foo"}),
          pod("p1.2", on="node1", priority=MID, req=MEDIUM, labels={"app": "foo"}),
          pod("p1.3", on="node1", priority=MID, req=MEDIUM, labels={"app": "foo"})],
         [{"node1": (["p1.1", "p1.2", "p1.3"], 1)}], [4],
         pdbs=[pdb("foo", {"app": "foo"}, 1, disrupted=["p1.3"])]),
    _dry("all nodes are candidates, but the args limit the search to 2", NODES_5,
         [pod("p", priority=HIGH, req=LARGE)],
         [pod(f"p{i}", on=f"node{i}", priority=MID, req=LARGE) for i in range(1, 6)],
         # offset 4: node5 (yes), node1 (yes)
         [{"node1": (["p1"], 0), "node5": (["p5"], 0)}], [4], offsets=[4], args=LIMIT_2),
    _dry("some nodes are not candidates, the args limit the search to 2", NODES_5,
         [pod("p", priority=HIGH, req=LARGE)],
         [pod("p1", on="node1", priority=MID, req=LARGE),
          pod("p2", on="node2", priority=VERY_HIGH, req=LARGE),
          pod("p3", on="node3", priority=MID, req=LARGE),
          pod("p4", on="node4", priority=MID, req=LARGE),
          pod("p5", on="node5", priority=VERY_HIGH, req=LARGE)],
         # offset 4: node5 (no), node1 (yes), node2 (no), node3 (yes)
         [{"node1": (["p1"], 0), "node3": (["p3"], 0)}], [4], offsets=[4], args=LIMIT_2),
    _dry("the offset moves across scheduling cycles and wraps around", NODES_5,
         [pod("tp1", priority=HIGH, req=LARGE), pod("tp2", priority=HIGH, req=LARGE),
          pod("tp3", priority=HIGH, req=LARGE)],
         [pod(f"p{i}", on=f"node{i}", priority=MID, req=LARGE) for i in range(1, 6)],
         [{"node1": (["p1"], 0), "node5": (["p5"], 0)},
          {"node2": (["p2"], 0), "node3": (["p3"], 0)},
          {"node4": (["p4"], 0), "node5": (["p5"], 0)}],
         [4, 4, 4], offsets=[4, 1, 3], args=LIMIT_2),
    _dry("the search looks past numCandidates until a node violating no pdb is found", NODES_5,
         [pod("p", priority=HIGH, req=LARGE)],
         [pod("p1", on="node1", priority=MID, req=LARGE, labels={"app": "foo"}),
          pod("p2", on="node2", priority=MID, req=LARGE, labels={"app": "foo"}),
          pod("p3", on="node3", priority=MID, req=LARGE),
          pod("p4", on="node4", priority=MID, req=LARGE),
          pod("p5", on="node5", priority=MID, req=LARGE, labels={"app": "foo"})],
         # offset 4: node5 (pdb), node1 (pdb), node2 (pdb, over the limit), node3 (no pdb)
         [{"node1": (["p1"], 1), "node3": (["p3"], 0), "node5": (["p5"], 1)}], [8],
         offsets=[4], pdbs=[pdb("foo", {"app": "foo"}, 0)],
         args={"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 2}),
]


@pytest.mark.parametrize("node_names, preemptors, pods, expected, calls, offsets, pdbs, args, "
                         "plugins, funcs, fake_code", DRY_RUN_CASES)
def test_dry_run_preemption(node_names, preemptors, pods, expected, calls, offsets, pdbs,
                            args, plugins, funcs, fake_code):
    nodes = [topology_node(n) for n in node_names]
    codes = {n["metadata"]["name"]: fake_code for n in nodes}
    e = Env(nodes, [*preemptors, *pods], plugins=plugins, funcs=funcs, args=args,
            fake_codes=codes)
    fake = e.fwk.instances["FakeFilter"]
    node_infos = e.node_infos()
    for cycle, manifest in enumerate(preemptors):
        p = e.pod(manifest["metadata"]["name"])
        state = e.pre_filter(p)
        before = fake.calls
        offset = offsets[cycle] if offsets else 0
        num = e.plugin.calculate_num_candidates(len(node_infos))
        got, _, _ = e.plugin.evaluator.dry_run_preemption(
            state, p, node_infos, [copy.deepcopy(x) for x in pdbs], offset, num)
        assert by_name(got) == expected[cycle]
        assert fake.calls - before == calls[cycle]


def test_dry_run_orders_victims_by_importance_and_non_violating_candidates_first():
    e = Env([node("node1", VERY_LARGE), node("node2", VERY_LARGE)],
            [pod("p", priority=HIGH, req=LARGE),
             pod("p1.1", on="node1", priority=MID, req=SMALL),
             pod("p1.2", on="node1", priority=LOW, req=SMALL),
             pod("p1.3", on="node1", priority=MID, req=MEDIUM),
             pod("p1.4", on="node1", priority=HIGH, req=SMALL),
             pod("p2", on="node2", priority=MID, req=LARGE, labels={"app": "foo"})])
    p = e.pod("p")
    got, _, _ = e.plugin.evaluator.dry_run_preemption(
        e.pre_filter(p), p, e.node_infos(), [pdb("foo", {"app": "foo"}, 0)], 1, 2)
    assert [(c.name, [v.name for v in c.victims.pods]) for c in got] == [
        ("node1", ["p1.3", "p1.2"]), ("node2", ["p2"])]


class _DecidingInBatches:
    """An interface that decides the dry run's nodes a list at a time, as the columns do:
    every node gives one victim but those in `refused`."""

    def __init__(self, refused: set[str]):
        self.refused, self.asked = refused, []

    def victims_on_nodes(self, state, pod, pdbs):
        def select(nodes):
            self.asked.append([n.name for n in nodes])
            return [(None, 0, Status(Code.UNSCHEDULABLE, "no")) if n.name in self.refused
                    else (["victim"], 0, Status()) for n in nodes]
        return select


def test_a_candidate_short_after_the_first_chunk_asks_for_a_small_chunk_not_another_whole():
    nodes = [SimpleNamespace(name=f"node{i}") for i in range(40)]
    interface = _DecidingInBatches({"node3"})
    evaluator = Evaluator("DefaultPreemption", None, interface)
    got, statuses, _ = evaluator.dry_run_preemption(CycleState(), None, nodes, [], 0, 10)
    assert [c.name for c in got] == [f"node{i}" for i in (0, 1, 2, 4, 5, 6, 7, 8, 9, 10)]
    assert list(statuses.items())[0][0] == "node3"
    # numCandidates nodes first, then one candidate missing: MIN_CHUNK nodes, not ten.
    assert interface.asked == [[f"node{i}" for i in range(10)],
                               [f"node{i}" for i in range(10, 10 + MIN_CHUNK)]]


# --- SelectVictimsOnNode -----------------------------------------------------------------------
SELECT_VICTIMS_CASES = [
    pytest.param(
        MEDIUM,
        [pod("h", on="node1", priority=VERY_HIGH, req=SMALL),
         pod("b", on="node1", priority=MID, req=MEDIUM, start=5),
         pod("c", on="node1", priority=MID, req=MEDIUM, start=1)],
        (), ["b"], 0, id="equal priorities: the pod that started earlier is reprieved"),
    pytest.param(
        VERY_LARGE,
        [pod("a", on="node1", priority=LOW, req=MEDIUM, labels={"app": "db"}),
         pod("b", on="node1", priority=MID, req=LARGE)],
        [pdb("db", {"app": "db"}, 0)], ["b", "a"], 1,
        id="pdb-protected pods are reprieved first, victims end up most important first"),
    pytest.param(
        LARGE,
        [pod("a", on="node1", priority=MID, req=MEDIUM, labels={"app": "db"}),
         pod("b", on="node1", priority=LOW, req=MEDIUM, labels={"app": "db"}),
         pod("c", on="node1", priority=LOW, req=SMALL)],
        [pdb("db", {"app": "db"}, 1)], ["a", "c"], 0,
        id="the pod a pdb has no budget left for is reprieved before more important ones"),
    pytest.param(
        VERY_LARGE,
        [pod("a", on="node1", priority=LOW, req=MEDIUM, labels={"app": "db"}),
         pod("b", on="node1", priority=LOW, req=LARGE)],
        [{**pdb("db", {"app": "db"}, 0), "spec": {"selector": {}}}], ["a", "b"], 0,
        id="a pdb with an empty selector protects nothing"),
    pytest.param(
        VERY_LARGE,
        [pod("a", on="node1", priority=LOW, req=MEDIUM, labels={"app": "db"}),
         pod("b", on="node1", priority=LOW, req=LARGE)],
        [{**pdb("db", {"app": "db"}, 0), "metadata": {"name": "db", "namespace": "other"}}],
        ["a", "b"], 0, id="a pdb in another namespace protects nothing"),
]


@pytest.mark.parametrize("preemptor_request, pods, pdbs, want_victims, want_violations",
                         SELECT_VICTIMS_CASES)
def test_select_victims_on_node(preemptor_request, pods, pdbs, want_victims, want_violations):
    e = Env([node("node1", VERY_LARGE)], [pod("p", priority=HIGH, req=preemptor_request), *pods])
    p = e.pod("p")
    ni = e.sched.snapshot.get("node1")
    victims, violations, status = e.plugin.select_victims_on_node(
        e.pre_filter(p), p, ni.clone(), pdbs)
    assert status.is_success()
    assert [v.name for v in victims] == want_victims
    assert violations == want_violations
    assert len(ni.pods) == len(pods)  # the snapshot's own NodeInfo is untouched


# --- SelectCandidate / pickOneNodeForPreemption (TestSelectBestCandidate) ----------------------
def _three_nodes(*pods):
    return [node(f"node{i}", VERY_LARGE) for i in (1, 2, 3)], list(pods)


SELECT_CANDIDATE_CASES = [
    pytest.param(
        [node("node1", VERY_LARGE), node("node2", VERY_LARGE)],
        [pod("p", priority=HIGH, req=LARGE),
         pod("p1", on="node1", priority=MID, req=LARGE, start=0),
         pod("p2", on="node2", priority=MID, req=LARGE, start=0)],
        "node1", FIRST_CANDIDATE, id="every criterion ties: the first candidate"),
    pytest.param(
        *_three_nodes(
            pod("p", priority=HIGH, req=VERY_LARGE),
            pod("p1.1", on="node1", priority=MID, req=MEDIUM, start=0),
            pod("p1.2", on="node1", priority=MID, req=LARGE, start=0),
            pod("p2.1", on="node2", priority=MID, req=MEDIUM, start=0),
            pod("p2.2", on="node2", priority=LOW, req=MEDIUM, start=0),
            pod("p3.1", on="node3", priority=LOW, req=MEDIUM, start=0),
            pod("p3.2", on="node3", priority=LOW, req=MEDIUM, start=0)),
        "node3", "lowest highest-priority victim", id="node with min highest priority pod is "
        "picked"),
    pytest.param(
        *_three_nodes(
            pod("p", priority=HIGH, req=VERY_LARGE),
            pod("p1.1", on="node1", priority=MID, req=MEDIUM, start=0),
            pod("p1.2", on="node1", priority=MID, req=LARGE, start=0),
            pod("p2.1", on="node2", priority=MID, req=LARGE, start=0),
            pod("p2.2", on="node2", priority=LOW, req=MEDIUM, start=0),
            pod("p3.1", on="node3", priority=MID, req=MEDIUM, start=0),
            pod("p3.2", on="node3", priority=MID, req=MEDIUM, start=0)),
        "node2", "smallest sum of victim priorities (each + 2^31)",
        id="when highest priorities are the same, minimum sum of priorities is picked"),
    pytest.param(
        *_three_nodes(
            pod("p", priority=HIGH, req=VERY_LARGE),
            pod("p1.1", on="node1", priority=MID, req=SMALL, start=0),
            pod("p1.2", on="node1", priority=NEG, req=SMALL, start=0),
            pod("p1.3", on="node1", priority=MID, req=SMALL, start=0),
            pod("p1.4", on="node1", priority=NEG, req=SMALL, start=0),
            pod("p2.1", on="node2", priority=MID, req=LARGE, start=0),
            pod("p2.2", on="node2", priority=NEG, req=MEDIUM, start=0),
            pod("p3.1", on="node3", priority=MID, req=MEDIUM, start=0),
            pod("p3.2", on="node3", priority=NEG, req=SMALL, start=0),
            pod("p3.3", on="node3", priority=LOW, req=SMALL, start=0)),
        # Go names this case after the number of pods, but the adjusted sums already differ.
        "node2", "smallest sum of victim priorities (each + 2^31)",
        id="when highest priority and sum are the same, minimum number of pods is picked"),
    pytest.param(
        *_three_nodes(
            pod("p", priority=HIGH, req=VERY_LARGE),
            pod("p1.1", on="node1", priority=MID, req=SMALL, start=0),
            pod("p1.2", on="node1", priority=NEG, req=SMALL, start=0),
            pod("p1.3", on="node1", priority=NEG, req=SMALL, start=0),
            pod("p2.1", on="node2", priority=MID, req=LARGE, start=0),
            pod("p2.2", on="node2", priority=NEG, req=MEDIUM, start=0),
            pod("p3.1", on="node3", priority=MID, req=MEDIUM, start=0),
            pod("p3.2", on="node3", priority=NEG, req=SMALL, start=0),
            pod("p3.3", on="node3", priority=LOW, req=SMALL, start=0)),
        "node2", "smallest sum of victim priorities (each + 2^31)",
        id="sum of adjusted priorities is considered"),
    pytest.param(
        [node(f"node{i}", VERY_LARGE) for i in (1, 2, 3, 4)],
        [pod("p", priority=VERY_HIGH, req=VERY_LARGE),
         pod("p1.1", on="node1", priority=MID, req=SMALL, start=0),
         pod("p1.2", on="node1", priority=LOW, req=SMALL, start=0),
         pod("p1.3", on="node1", priority=LOW, req=SMALL, start=0),
         pod("p2.1", on="node2", priority=HIGH, req=LARGE, start=0),
         pod("p3.1", on="node3", priority=MID, req=MEDIUM, start=0),
         pod("p3.2", on="node3", priority=LOW, req=SMALL, start=0),
         pod("p3.3", on="node3", priority=LOW, req=SMALL, start=0),
         pod("p3.4", on="node3", priority=LOW, req=MEDIUM, start=0),
         pod("p4.1", on="node4", priority=MID, req=MEDIUM, start=0),
         pod("p4.2", on="node4", priority=MID, req=SMALL, start=0),
         pod("p4.3", on="node4", priority=MID, req=SMALL, start=0),
         pod("p4.4", on="node4", priority=NEG, req=SMALL, start=0)],
        "node1", "smallest sum of victim priorities (each + 2^31)",
        id="non-overlapping lowest high priority, sum priorities, and number of pods"),
    pytest.param(
        *_three_nodes(
            pod("p", priority=HIGH, req=VERY_LARGE),
            pod("p1.1", on="node1", priority=MID, req=MEDIUM, start=2),
            pod("p1.2", on="node1", priority=MID, req=MEDIUM, start=2),
            pod("p2.1", on="node2", priority=MID, req=MEDIUM, start=3),
            pod("p2.2", on="node2", priority=MID, req=MEDIUM, start=3),
            pod("p3.1", on="node3", priority=MID, req=MEDIUM, start=1),
            pod("p3.2", on="node3", priority=MID, req=MEDIUM, start=1)),
        "node2", "latest start time of the highest-priority victims",
        id="same priority and number of victims, different start time per node"),
    pytest.param(
        *_three_nodes(
            pod("p", priority=HIGH, req=VERY_LARGE),
            pod("p1.1", on="node1", priority=MID, req=MEDIUM, start=4),
            pod("p1.2", on="node1", priority=MID, req=MEDIUM, start=2),
            pod("p2.1", on="node2", priority=MID, req=MEDIUM, start=5),
            pod("p2.2", on="node2", priority=MID, req=MEDIUM, start=1),
            pod("p3.1", on="node3", priority=MID, req=MEDIUM, start=3),
            pod("p3.2", on="node3", priority=MID, req=MEDIUM, start=6)),
        "node3", "latest start time of the highest-priority victims",
        id="same priority and number of victims, different start time for all pods"),
    pytest.param(
        *_three_nodes(
            pod("p", priority=HIGH, req=VERY_LARGE),
            pod("p1.1", on="node1", priority=LOW, req=MEDIUM, start=4),
            pod("p1.2", on="node1", priority=MID, req=MEDIUM, start=2),
            pod("p2.1", on="node2", priority=MID, req=MEDIUM, start=6),
            pod("p2.2", on="node2", priority=LOW, req=MEDIUM, start=1),
            pod("p3.1", on="node3", priority=LOW, req=MEDIUM, start=3),
            pod("p3.2", on="node3", priority=MID, req=MEDIUM, start=5)),
        "node2", "latest start time of the highest-priority victims",
        id="different priority, same number of victims, different start time for all pods"),
    pytest.param(
        [node("node1", VERY_LARGE), node("node2", VERY_LARGE)],
        [pod("p", priority=HIGH, req=VERY_LARGE),
         pod("p1.1", on="node1", priority=LOW, req=LARGE, start=0),
         pod("p2.1", on="node2", priority=LOW, req=MEDIUM, start=0),
         pod("p2.2", on="node2", priority=-(2**31), req=MEDIUM, start=0)],
        "node1", "fewest victims",
        id="adjusted sums tie (a victim at the lowest int32 priority): fewest victims"),
    pytest.param(
        [node("node1", VERY_LARGE), node("node2", VERY_LARGE)],
        [pod("p", priority=HIGH, req=VERY_LARGE),
         pod("p1.1", on="node1", priority=LOW, req=LARGE, labels={"app": "db"}),
         pod("p2.1", on="node2", priority=MID, req=MEDIUM),
         pod("p2.2", on="node2", priority=MID, req=MEDIUM)],
        "node2", "fewest PDB violations", id="fewest PDB violations comes first"),
]


@pytest.mark.parametrize("nodes, pods, want, criterion", SELECT_CANDIDATE_CASES)
def test_select_candidate(nodes, pods, want, criterion):
    e = Env(nodes, pods)
    p = e.pod("p")
    node_infos = e.node_infos()
    pdbs = [pdb("db", {"app": "db"}, 0)]
    candidates, _, _ = e.plugin.evaluator.dry_run_preemption(
        e.pre_filter(p), p, node_infos, pdbs, 0, e.plugin.calculate_num_candidates(len(nodes)))
    best, decision = e.plugin.evaluator.select_candidate(candidates)
    assert best.name == want
    assert decision["node"] == want and decision["criterion"] == criterion


PICK_CASES = [
    pytest.param({"n1": ([MID], 0)}, "n1", ONLY_CANDIDATE, None, "n1 is the only candidate",
                 id="only candidate"),
    pytest.param({"n1": ([MID], 0), "n2": ([MID], 0)}, "n1", FIRST_CANDIDATE, "n2",
                 "n1 and n2 tie on every criterion; n1 comes first", id="every criterion ties"),
    pytest.param({"n1": ([LOW], 0), "n2": ([LOW, -(2**31)], 0)}, "n1", "fewest victims", "n2",
                 "n1 beats n2 on fewest victims: 1 vs 2", id="fewest victims"),
    pytest.param({"n1": ([LOW], 1), "n2": ([MID, MID], 0), "n3": ([LOW], 2)}, "n2",
                 "fewest PDB violations", "n1", "n2 beats n1 on fewest PDB violations: 0 vs 1",
                 id="fewest PDB violations"),
    pytest.param({"n1": ([HIGH], 0), "n2": ([MID, LOW], 0), "n3": ([LOW], 0)}, "n3",
                 "lowest highest-priority victim", "n2",
                 "n3 beats n2 on lowest highest-priority victim: 0 vs 100",
                 id="lowest highest-priority victim"),
    pytest.param({"n1": ([MID, LOW], 0), "n2": ([MID], 0)}, "n2",
                 "smallest sum of victim priorities (each + 2^31)", "n1",
                 "n2 beats n1 on smallest sum of victim priorities (each + 2^31): 2147483748 vs "
                 "4294967396", id="smallest adjusted sum"),
]


@pytest.mark.parametrize("victims, want, criterion, runner_up, why", PICK_CASES)
def test_pick_one_node_for_preemption(victims, want, criterion, runner_up, why):
    def victim(priority: int) -> PodInfo:
        return PodInfo(make_pod("v"), priority=priority)

    nodes = {n: Victims([victim(p) for p in prios], pdb_count)
             for n, (prios, pdb_count) in victims.items()}
    chosen, decision = pick_one_node_for_preemption(nodes)
    assert chosen == want
    assert decision["criterion"] == criterion and decision["runnerUp"] == runner_up
    assert decision["why"] == why


# --- PodEligibleToPreemptOthers ----------------------------------------------------------------
def _terminating(manifest: dict, by_preemption: bool) -> dict:
    if by_preemption:
        manifest["status"] = {"conditions": [{"type": "DisruptionTarget", "status": "True",
                                              "reason": "PreemptionByScheduler"}]}
    return manifest


ELIGIBLE_CASES = [
    pytest.param(pod("p", priority=HIGH), [], None, True, "", id="pod without nominated node"),
    pytest.param(pod("p", priority=HIGH, preemptionPolicy="Never"), [], None, False,
                 "not eligible due to preemptionPolicy=Never.",
                 id="pod with 'PreemptNever' preemption policy"),
    pytest.param(pod("p", priority=HIGH), [_terminating(pod("p1", on="node1"), True)],
                 Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                        "node(s) had untolerated taint {foo: bar}"),
                 True, "", id="nominated node now unresolvable: preempt again"),
    pytest.param(pod("p", priority=HIGH), [_terminating(pod("p1", on="node1"), True)],
                 Status(Code.UNSCHEDULABLE), False,
                 "not eligible due to a terminating pod on the nominated node.",
                 id="a preemption victim is terminating on the nominated node"),
    pytest.param(pod("p", priority=HIGH), [_terminating(pod("p1", on="node1"), False)],
                 Status(Code.UNSCHEDULABLE), True, "",
                 id="a pod terminating for another reason does not block"),
    pytest.param(pod("p", priority=HIGH),
                 [_terminating(pod("p1", on="node1", priority=HIGH), True)],
                 Status(Code.UNSCHEDULABLE), True, "",
                 id="a terminating pod of equal priority does not block"),
]


@pytest.mark.parametrize("preemptor, pods, nominated_status, want, message", ELIGIBLE_CASES)
def test_pod_eligible_to_preempt_others(preemptor, pods, nominated_status, want, message):
    e = Env([node("node1", VERY_LARGE)], [preemptor, *pods])
    for p in e.sched.pods:
        if p.node_name:
            p.deletion_time = 0.0
    p = e.pod("p")
    if nominated_status is not None:
        e.sched.queue.add_nominated(p, "node1")
    assert e.plugin.pod_eligible_to_preempt_others(p, nominated_status) == (want, message)


# --- Preempt with its side effects (TestPreempt) -----------------------------------------------
PREEMPT_BASE = [
    pod("p1.1", on="node1", priority=MID, req=SMALL),
    pod("p1.2", on="node1", priority=LOW, req=SMALL),
    pod("p2.1", on="node2", priority=MID, req=LARGE),
]
PREEMPT_CASES = [
    pytest.param(
        pod("p", priority=HIGH, req=VERY_LARGE, preemptionPolicy="PreemptLowerPriority"),
        [pod("p1.1", on="node1", priority=LOW, req=SMALL),
         pod("p1.2", on="node1", priority=LOW, req=SMALL),
         pod("p2.1", on="node2", priority=HIGH, req=LARGE),
         pod("p3.1", on="node3", priority=MID, req=MEDIUM)],
        ["node1", "node2", "node3"], {}, "node1", ["p1.1", "p1.2"],
        id="basic preemption logic"),
    pytest.param(
        pod("p", priority=HIGH, labels={"foo": ""},
            topologySpreadConstraints=[spread("zone"), spread("hostname")]),
        [pod("p-a1", on="node-a", priority=HIGH, labels={"foo": ""}),
         pod("p-a2", on="node-a", priority=HIGH, labels={"foo": ""}),
         pod("p-b1", on="node-b", priority=LOW, labels={"foo": ""}),
         pod("p-x1", on="node-x", priority=HIGH, labels={"foo": ""}),
         pod("p-x2", on="node-x", priority=HIGH, labels={"foo": ""})],
        ["node-a/zone1", "node-b/zone1", "node-x/zone2"], {"plugins": ("PodTopologySpread",)},
        "node-b", ["p-b1"], id="preemption for topology spread constraints"),
    pytest.param(
        pod("p", priority=HIGH, req=VERY_LARGE),
        [*PREEMPT_BASE[:2], pod("p2.1", on="node3", priority=MID, req=LARGE)],
        ["node1", "node2", "node3"],
        {"extenders": [FakeExtender(keep_all), FakeExtender(keep_node1)]},
        "node1", ["p1.1", "p1.2"],
        id="extenders allow only node1, otherwise node3 would have been chosen"),
    pytest.param(
        pod("p", priority=HIGH, req=VERY_LARGE), PREEMPT_BASE, ["node1", "node2", "node3"],
        {"extenders": [FakeExtender(keep_none)]}, None, [],
        id="extenders do not allow any preemption"),
    pytest.param(
        pod("p", priority=HIGH, req=VERY_LARGE), PREEMPT_BASE, ["node1", "node2", "node3"],
        {"extenders": [FakeExtender(keep_all, ignorable=True, error="boom"),
                       FakeExtender(keep_node1)]},
        "node1", ["p1.1", "p1.2"],
        id="one extender allows only node1, the other fails but is ignorable"),
    pytest.param(
        pod("p", priority=HIGH, req=VERY_LARGE), PREEMPT_BASE, ["node1", "node2"],
        {"extenders": [FakeExtender(keep_node1, interested=False),
                       FakeExtender(keep_all)]},
        "node2", ["p2.1"],
        id="an extender allowing only node1 is not interested in the pod"),
    pytest.param(
        pod("p", priority=HIGH, req=VERY_LARGE, preemptionPolicy="Never"),
        PREEMPT_BASE, ["node1", "node2", "node3"], {}, None, [], id="no preempting in pod"),
    pytest.param(
        pod("p", priority=HIGH, req=VERY_LARGE), PREEMPT_BASE, ["node1", "node2", "node3"], {},
        "node2", ["p2.1"], id="preemptionPolicy unset preempts"),
]


@pytest.mark.parametrize("preemptor, pods, node_names, env, want_node, want_victims",
                         PREEMPT_CASES)
def test_preempt(preemptor, pods, node_names, env, want_node, want_victims):
    nodes = [topology_node(n) for n in node_names]
    e = Env(nodes, [preemptor, *pods], **env)
    p = e.pod("p")
    every_node = statuses([n["metadata"]["name"] for n in nodes])
    result, status = e.plugin.evaluator.preempt(e.pre_filter(p), p, every_node)
    assert status.is_success() or status.is_rejected()
    assert (result.nominated_node_name if result else None) == want_node
    assert e.terminating() == want_victims
    for victim in (v for v in e.sched.pods if v.terminating):
        assert victim.obj["status"]["conditions"] == [{
            "type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
            "message": "default-scheduler: preempting to accommodate a higher priority pod"}]
    if want_node:
        # Nominated, with its victims terminating: another attempt preempts nothing more.
        e.sched.queue.add_nominated(p, want_node)
        result, status = e.plugin.post_filter(e.pre_filter(p), p, every_node)
        assert result is None
        assert status == Status(Code.UNSCHEDULABLE, "preemption: not eligible due to a "
                                "terminating pod on the nominated node.")
        assert e.terminating() == want_victims


def test_a_failing_extender_that_is_not_ignorable_stops_preemption():
    e = Env([node("node1", VERY_LARGE)],
            [pod("p", priority=HIGH, req=VERY_LARGE), *PREEMPT_BASE[:2]],
            extenders=[FakeExtender(keep_all, error="connection refused")])
    p = e.pod("p")
    result, status = e.plugin.post_filter(e.pre_filter(p), p, statuses(["node1"]))
    assert result is None
    assert (status.code, status.message()) == (Code.ERROR, "preemption: connection refused")
    assert e.terminating() == []


def test_prepare_candidate_rejects_a_waiting_victim_and_clears_lower_nominations():
    # Room for two pods: the victim must go for the preemptor and the higher nominated pod.
    e = Env([node("node1", {"pods": "2"})],
            [pod("p", priority=HIGH), pod("victim", on="node1"),
             pod("nominated-low", priority=LOW), pod("nominated-high", priority=VERY_HIGH)])
    rejected = []
    victim = e.pod("victim")
    e.sched.waiting[victim.uid] = SimpleNamespace(
        pod=victim, reject=lambda plugin, message: rejected.append((plugin, message)))
    e.sched.queue.add_nominated(e.pod("nominated-low"), "node1")
    e.sched.queue.add_nominated(e.pod("nominated-high"), "node1")
    p = e.pod("p")
    result, status = e.plugin.post_filter(e.pre_filter(p), p, statuses(["node1"]))
    assert status.is_success() and result.nominated_node_name == "node1"
    assert rejected == [("DefaultPreemption", "preempted")]
    assert not victim.terminating and "status" not in victim.obj
    assert e.sched.queue.nominated == {"default/nominated-high": "node1"}


# --- args (ValidateDefaultPreemptionArgs, calculateNumCandidates) ------------------------------
@pytest.mark.parametrize("args, want", [
    pytest.param({"minCandidateNodesPercentage": 10, "minCandidateNodesAbsolute": 50}, [],
                 id="valid config"),
    pytest.param({"minCandidateNodesPercentage": 200, "minCandidateNodesAbsolute": 50},
                 ["minCandidateNodesPercentage: Invalid value: 200: not in valid range [0, 100]"],
                 id="minCandidateNodesPercentage is not within 0-100"),
    pytest.param({"minCandidateNodesPercentage": 10, "minCandidateNodesAbsolute": -1},
                 ["minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)"],
                 id="minCandidateNodesAbsolute is not within 0-inf"),
    pytest.param({"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 0},
                 ["minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same "
                  "time as minCandidateNodesAbsolute",
                  "minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the same "
                  "time as minCandidateNodesPercentage"], id="both zero"),
    pytest.param({"minCandidateNodesPercentage": -1, "minCandidateNodesAbsolute": -1},
                 ["minCandidateNodesPercentage: Invalid value: -1: not in valid range [0, 100]",
                  "minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)"],
                 id="both out of range"),
])
def test_validate_args(args, want):
    assert validate_args(args, "") == want


def test_default_args():
    assert default_args({}) == {"minCandidateNodesPercentage": 10,
                                "minCandidateNodesAbsolute": 100}
    assert default_args({"minCandidateNodesAbsolute": 5.0})["minCandidateNodesAbsolute"] == 5
    with pytest.raises(TypeError, match="DefaultPreemptionArgs.minCandidateNodesPercentage "
                                        "of type int32"):
        default_args({"minCandidateNodesPercentage": "10%"})
    with pytest.raises(ConfigError):
        new({"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 0}, FakeHandle())


def test_invalid_args_in_a_configuration_are_reported_with_their_path():
    config = {"apiVersion": API_VERSION, "kind": "KubeSchedulerConfiguration", "profiles": [
        {"pluginConfig": [{"name": "DefaultPreemption",
                           "args": {"minCandidateNodesPercentage": 101}}]}]}
    with pytest.raises(ConfigError) as err:
        parse_configuration(config)
    assert err.value.errors == [
        "profiles[0].pluginConfig[0].args.minCandidateNodesPercentage: Invalid value: 101: "
        "not in valid range [0, 100]"]


@pytest.mark.parametrize("percentage, absolute, num_nodes, want", [
    pytest.param(10, 100, 0, 0, id="no nodes"),
    pytest.param(50, 10, 100, 50, id="minCandidateNodesPercentage dominates"),
    pytest.param(10, 50, 100, 50, id="minCandidateNodesAbsolute dominates"),
    pytest.param(100, 100, 100, 100, id="all nodes"),
    pytest.param(0, 3, 10, 3, id="absolute with percentage zero"),
    pytest.param(50, 0, 10, 5, id="percentage with absolute zero"),
    pytest.param(10, 100, 7, 7, id="never more than the nodes there are"),
])
def test_calculate_num_candidates(percentage, absolute, num_nodes, want):
    plugin = new({"minCandidateNodesPercentage": percentage,
                  "minCandidateNodesAbsolute": absolute}, FakeHandle())
    assert plugin.calculate_num_candidates(num_nodes) == want


def test_offset_comes_from_the_run_seed():
    offsets = []
    for _ in range(2):
        e = Env([node(f"node{i}", VERY_LARGE) for i in range(1, 6)], [], seed=7)
        offsets.append([e.plugin.get_offset_and_num_candidates(5) for _ in range(4)])
    assert offsets[0] == offsets[1]
    assert all(0 <= o < 5 and n == 5 for o, n in offsets[0])


def test_events_to_register_is_empty():
    assert new({}, FakeHandle()).events_to_register() == set()


# --- end to end with the default profile -------------------------------------------------------
class PodEvents(Observer):
    def __init__(self):
        self.events: list[tuple[float, str, str]] = []

    def pod_event(self, event, pod, time, detail=None):
        self.events.append((time, event, pod.name))


def run(docs, *, seed=0):
    cluster = load_documents([("test.yaml", copy.deepcopy(docs))])
    trace, events = TraceObserver(), PodEvents()
    sched = build_scheduler(cluster, seed=seed, observer=MultiObserver([trace, events]))
    sched.run()
    return sched, trace.to_list(), events.events


def std_node(name: str, cpu="2", **kw) -> dict:
    return make_node(name, cpu=cpu, memory="8Gi", **kw)


def test_preemption_policy_never_is_reported_and_preempts_nothing():
    sched, cycles, events = run([
        std_node("node-1"), pod("low", on="node-1", req={"cpu": "2"}),
        pod("never", priority=HIGH, req={"cpu": "1"}, preemptionPolicy="Never")])
    assert sched.bindings == {"default/never": None}
    assert [c["message"] for c in cycles] == [
        "0/1 nodes are available: 1 Insufficient cpu. preemption: "
        "not eligible due to preemptionPolicy=Never."]
    assert cycles[0]["postFilter"] == [NO_CLAIMS, {
        "plugin": "DefaultPreemption", "code": "Unschedulable",
        "reasons": ["preemption: not eligible due to preemptionPolicy=Never."]}]
    assert cycles[0]["preemption"] is None and events == []


def test_unresolvable_nodes_are_not_preemption_candidates():
    sched, cycles, events = run([
        std_node("node-a"), std_node("node-b", unschedulable=True),
        std_node("node-c", taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]),
        pod("peer", on="node-a", priority=HIGH, req={"cpu": "2"}),
        pod("low-b", on="node-b", req={"cpu": "2"}), pod("low-c", on="node-c", req={"cpu": "2"}),
        pod("web", priority=HIGH, req={"cpu": "1"})])
    assert sched.bindings == {"default/web": None}
    assert cycles[0]["message"] == (
        "0/3 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint "
        "{dedicated: gpu}, 1 node(s) were unschedulable. "
        "preemption: 0/3 nodes are available: "
        "1 No preemption victims found for incoming pod, 2 Preemption is not helpful for "
        "scheduling.")
    assert events == []


def test_a_stale_nomination_is_cleared_when_preemption_cannot_help():
    stale = pod("web", priority=HIGH, req={"cpu": "1"})
    stale["status"] = {"nominatedNodeName": "node-1"}
    sched, cycles, _ = run([
        std_node("node-1"), pod("peer", on="node-1", priority=HIGH, req={"cpu": "2"}), stale])
    assert cycles[0]["message"].endswith(
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.")
    assert sched.queue.nominated == {} and sched.pods[-1].nominated_node_name == ""


def test_a_preemptor_waits_for_its_terminating_victims_then_binds():
    sched, cycles, events = run([
        std_node("node-1"),
        pod("quick", on="node-1", req={"cpu": "1"}, terminationGracePeriodSeconds=10),
        pod("slow", on="node-1", req={"cpu": "1"}, terminationGracePeriodSeconds=100),
        pod("urgent", priority=HIGH, req={"cpu": "2"})])
    assert sched.bindings == {"default/urgent": "node-1"}
    assert [(c["time"], c["outcome"], c["node"]) for c in cycles] == [
        (0.0, "Unschedulable", None), (10.0, "Unschedulable", None), (100.0, "Bound", "node-1")]
    assert cycles[0]["preemption"]["victims"] == ["default/quick", "default/slow"]
    # Woken by the first deletion, it still does not fit and must not preempt again.
    assert cycles[1]["message"].endswith(
        "preemption: not eligible due to a terminating pod on the nominated node.")
    assert cycles[1]["preemption"] is None
    assert events == [
        (0.0, "preempted", "quick"), (0.0, "preempted", "slow"), (0.0, "nominated", "urgent"),
        (10.0, "deleted", "quick"), (100.0, "deleted", "slow"), (100.0, "bound", "urgent")]


def test_the_preemption_lesson():
    result = simulate([str(LESSON)], seed=1)
    out = result.to_json()
    assert out["bindings"] == {"default/urgent": "node-1"}
    first, second = out["cycles"]
    assert (first["time"], first["outcome"], first["message"]) == (
        0.0, "Unschedulable", "0/3 nodes are available: 3 Insufficient cpu. preemption: found a "
        "potential placement for pod on node node-1, preempting 2 victims")
    assert first["postFilter"] == [
        NO_CLAIMS, {"plugin": "DefaultPreemption", "code": "Success", "reasons": [
            "preemption: found a potential placement for pod on node node-1, preempting 2 "
            "victims"]}]
    preemption = first["preemption"]
    assert preemption["nominatedNode"] == "node-1"
    assert preemption["victims"] == ["default/batch-1", "default/batch-2"]
    assert [(c["node"], c["pdbViolations"]) for c in preemption["candidates"]] == [
        ("node-1", 0), ("node-2", 2), ("node-3", 2)]
    assert preemption["decision"] == {
        "node": "node-1", "criterion": "fewest PDB violations", "runnerUp": "node-2",
        "values": {"node-1": 0, "node-2": 2},
        "why": "node-1 beats node-2 on fewest PDB violations: 0 vs 2"}
    # The victims keep their CPUs for the default 30s grace period; then the pod binds.
    assert (second["time"], second["outcome"], second["node"]) == (30.0, "Bound", "node-1")
    sched = result.scheduler
    batch = [p for p in sched.pods if p.name.startswith("batch")]
    assert all(p.deletion_time == 0.0 and p.uid not in sched.cache.pods for p in batch)


@pytest.mark.parametrize("running_priority, dry_run", [
    pytest.param(HIGH, False, id="a node with pods only as important as the preemptor is "
                                 "answered 'no victims' without a dry run"),
    pytest.param(MID, True, id="a node with a less important pod is dry-run"),
])
def test_a_node_without_possible_victims_is_answered_as_select_victims_on_node_would(
        running_priority, dry_run):
    e = Env([node("node1", LARGE)],
            [pod("p", priority=HIGH, req=LARGE), pod("a", on="node1", priority=running_priority,
                                                      req=MEDIUM)])
    p = e.pod("p")
    ni = e.sched.snapshot.get("node1")
    quick = e.plugin.without_victims(p, ni)
    assert (quick is None) == dry_run
    if quick is not None:
        _, _, full = e.plugin.select_victims_on_node(e.pre_filter(p), p, ni.clone(), [])
        assert (quick.code, quick.reasons) == (full.code, full.reasons)
