"""The pod group scheduling cycle (podgroup_cycle.py), ported from kubernetes/kubernetes
pkg/scheduler/schedule_one_podgroup_test.go as each release has it:

- v1.36, the Permit-based algorithm: TestPodGroupSchedulingDefaultAlgorithm (fakePodGroupPlugin
  with Filter, PostFilter and Permit verdicts per pod).
- v1.37, the PlacementFeasible-based algorithm: TestPodGroupSchedulingAlgorithm
  (TopologyAwareWorkloadScheduling=false; fakePlacementFeasiblePlugin giving a code per number
  of members evaluated), TestPodGroupCycle_FillsPodResultsOnFewerResults and
  TestSubmitPodGroupAlgorithmResult (bound and failed members; not the PodGroup conditions).
- v1.36 TestPodGroupInfoForPod: the members popped with the pod, in their order.
- Both: a group whose pods name different schedulers (frameworkForPodGroup in v1.36,
  TestValidatePodGroup "failure for different scheduler names" in v1.37).

The v1.37 cases where a member's PostFilter nominates ("... require(s) preemption") are not
ported: v1.37's algorithm_podgroup.go runs no PostFilter for a member (preemption is the
group's PodGroupPostFilter, workload-aware preemption, not modelled).
"""
from pathlib import Path

import pytest
import yaml

from scheduler_core.config import parse_configuration
from scheduler_core.features import feature_gates
from scheduler_core.framework import interfaces as fw
from scheduler_core.framework.interfaces import PostFilterResult
from scheduler_core.framework.status import Code, Status
from scheduler_core.loader import load_documents
from scheduler_core.observe import TraceObserver
from scheduler_core.podgroup_cycle import Member, PodGroupCycle
from scheduler_core.scheduler import Scheduler
from scheduler_core.session import RunSession
from scheduler_core.simulate import simulate
from scheduler_core.testing import make_node, make_pod
from scheduler_core.testing.fakes import configuration, fake, profile, registry

S, W, U, UU, E = (Code.SUCCESS, Code.WAIT, Code.UNSCHEDULABLE,
                  Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.ERROR)
VERSION = {"1.36": "v1alpha2", "1.37": "v1beta1"}


def _status(code, message=""):
    return None if code in (None, S) else Status(code, *([message] if message else []))


def member(name):
    manifest = make_pod(name)
    manifest["metadata"]["uid"] = name
    manifest["spec"]["schedulingGroup"] = {"podGroupName": "pg"}
    return manifest


def pod_group(release):
    return {"apiVersion": f"scheduling.k8s.io/{VERSION[release]}", "kind": "PodGroup",
            "metadata": {"name": "pg", "namespace": "default"},
            "spec": {"schedulingPolicy": {"basic": {}}}}


def fake_pod_group_plugin(filters, post_filters=None, permits=None):
    """fakePodGroupPlugin: Filter, PostFilter (a nomination to node1 when its status is
    Success, else clearNominatedNode) and Permit verdicts per pod name."""
    post_filters = post_filters or {}

    def post_filter(state, pod, statuses):
        if pod.name in post_filters:
            code = post_filters[pod.name]
            return PostFilterResult("node1" if code is None else ""), _status(code)
        return PostFilterResult(""), Status(U, "default fake postfilter failure")

    points = {"filter": lambda state, pod, ni: _status(filters.get(pod.name, U),
                                                        f"filter error for {pod.name}"),
              "post_filter": post_filter}
    if permits is not None:
        points["permit"] = lambda state, pod, node: (_status(permits.get(pod.name)), 10)
    return fake("FakePodGroupPlugin", **points)


class FakePlacementFeasible(fw.PermitPlugin):
    """fakePlacementFeasiblePlugin: the code for the number of members evaluated so far
    (3 - remaining); past the list, or with none, Success."""
    NAME = "FakePlacementFeasible"

    def __init__(self, codes):
        self.codes = codes

    def placement_feasible(self, key, scheduled, remaining):
        evaluated = 3 - remaining
        code = self.codes[evaluated] if evaluated < len(self.codes) else S
        return _status(code, "injected placementFeasible status")

    def permit(self, state, pod, node_name):
        return Status(E, "unexpected call to permit"), 0


def pod_group_cycle(release, plugins):
    """The pod group cycle of p1, p2, p3 (PodGroup pg) on node1, with only `plugins` (and the
    queue sort and binder) in the profile; GenericWorkload on."""
    features = feature_gates(release, "GenericWorkload=true")
    docs = [make_node("node1"), pod_group(release)] + [member(f"p{i}") for i in (1, 2, 3)]
    cluster = load_documents([("test.yaml", docs)], features=features)
    reg = registry(*plugins)
    config = configuration(profile(*[p.NAME for p in plugins]))
    sched = Scheduler(cluster, parse_configuration(config, reg, features=features),
                      registry=reg, observer=TraceObserver())
    return sched, PodGroupCycle(sched, sched.queue.pop())


def check_members(cyc, expected_status, expected_preemption=None):
    """expectedPodStatus (one entry per member evaluated, by code) and the host of each
    member that has one; expectedPreemption."""
    got = {m.qpi.pod.name: (S if m.placed() else m.status.code) for m in cyc.members}
    assert got == expected_status
    for m in cyc.members:
        has_place = m.placed() or m.requires_preemption
        assert m.host == ("node1" if has_place else "")
        if expected_preemption and m.qpi.pod.name in expected_preemption:
            assert m.requires_preemption == expected_preemption[m.qpi.pod.name]
    assert not cyc.s.cache.pods   # every tentative place was given back


# --- v1.36: TestPodGroupSchedulingDefaultAlgorithm ------------------------------------------
FEASIBLE, UNSCHEDULABLE, REQUIRES_PREEMPTION = "feasible", "unschedulable", "requires_preemption"
V136 = [
    # (name, filters, post filters, permits, group, pod statuses, preemption)
    ("All pods feasible", {"p1": S, "p2": S, "p3": S}, None, {}, FEASIBLE,
     {"p1": S, "p2": S, "p3": S}, None),
    ("All pods feasible, two waiting", {"p1": S, "p2": S, "p3": S}, None,
     {"p1": W, "p2": W}, FEASIBLE, {"p1": S, "p2": S, "p3": S}, None),
    ("All pods feasible, but all waiting", {"p1": S, "p2": S, "p3": S}, None,
     {"p1": W, "p2": W, "p3": W}, UNSCHEDULABLE, {"p1": S, "p2": S, "p3": S}, None),
    ("All pods feasible, but last waiting", {"p1": S, "p2": S, "p3": S}, None,
     {"p3": W}, FEASIBLE, {"p1": S, "p2": S, "p3": S}, None),
    ("All pods feasible, one waiting, one unschedulable", {"p1": S, "p2": S, "p3": S}, None,
     {"p1": W, "p2": U}, FEASIBLE, {"p1": S, "p2": U, "p3": S}, None),
    ("All pods require preemption", {"p1": U, "p2": U, "p3": U},
     {"p1": None, "p2": None, "p3": None}, {}, REQUIRES_PREEMPTION,
     {"p1": U, "p2": U, "p3": U}, {"p1": True, "p2": True, "p3": True}),
    ("All pods require preemption, but waiting", {"p1": U, "p2": U, "p3": U},
     {"p1": None, "p2": None, "p3": None}, {"p1": W, "p2": W, "p3": W}, UNSCHEDULABLE,
     {"p1": U, "p2": U, "p3": U}, {"p1": True, "p2": True, "p3": True}),
    ("One pod requires preemption, but waiting, two are feasible", {"p1": U, "p2": S, "p3": S},
     {"p1": None}, {"p1": W, "p2": W}, REQUIRES_PREEMPTION, {"p1": U, "p2": S, "p3": S},
     {"p1": True, "p2": False, "p3": False}),
    ("One pod unschedulable, one requires preemption, one feasible",
     {"p1": U, "p2": U, "p3": S}, {"p1": None, "p2": U}, {}, REQUIRES_PREEMPTION,
     {"p1": U, "p2": U, "p3": S}, {"p1": True, "p2": False, "p3": False}),
    ("All pods unschedulable", {"p1": UU, "p2": U, "p3": U}, None, {}, UNSCHEDULABLE,
     {"p1": U, "p2": U, "p3": U}, None),
]


@pytest.mark.parametrize("filters, post_filters, permits, group, pods, preemption",
                         [pytest.param(*c[1:], id=c[0]) for c in V136])
def test_v136_pod_group_scheduling_default_algorithm(filters, post_filters, permits, group,
                                                     pods, preemption):
    _, cyc = pod_group_cycle("1.36", [fake_pod_group_plugin(filters, post_filters, permits)])
    cyc.algorithm()
    got = (REQUIRES_PREEMPTION if cyc.waiting_on_preemption
           else FEASIBLE if cyc.status.is_success() else UNSCHEDULABLE)
    assert got == group
    check_members(cyc, pods, preemption)
    for m in cyc.members:   # the Permit verdict of each member that had a place
        if m.placed() or m.requires_preemption:
            assert m.permit.code == (permits.get(m.qpi.pod.name) or S)
        else:
            assert m.permit is None or not (m.permit.is_success() or m.permit.is_wait())


# --- v1.37: TestPodGroupSchedulingAlgorithm (TopologyAwareWorkloadScheduling=false) ----------
ALL_FIT = {"p1": S, "p2": S, "p3": S}
V137 = [
    # (name, filters, PlacementFeasible codes, group code, pod statuses)
    ("All pods feasible", ALL_FIT, [], S, {"p1": S, "p2": S, "p3": S}),
    ("All pods feasible, podGroup already meeting quorum before any pod is evaluated", ALL_FIT,
     [S, S, S, S], S, {"p1": S, "p2": S, "p3": S}),
    ("All pods feasible, podGroup schedulable with 3 schedulable pods", ALL_FIT,
     [W, W, W, S], S, {"p1": S, "p2": S, "p3": S}),
    ("All pods feasible, podGroup waiting", ALL_FIT, [W, W, W, W], U,
     {"p1": S, "p2": S, "p3": S}),
    ("All pods feasible, podGroup unschedulable", ALL_FIT, [W, U], U, {"p1": S}),
    ("All pods feasible, podGroup unschedulable with 2 pods", ALL_FIT, [W, W, U], U,
     {"p1": S, "p2": S}),
    ("All pods unschedulable", {"p1": UU, "p2": U, "p3": U}, [W, S, S, S], U,
     {"p1": U, "p2": U, "p3": U}),
    ("Any filter returned Error", {"p1": S, "p2": E, "p3": S}, [], E, {"p1": S, "p2": E}),
    ("Any placementFeasible returned Error", ALL_FIT, [W, S, E], E, {"p1": S, "p2": S}),
    ("First placementFeasible call returned Unschedulable", ALL_FIT, [U], U, {}),
    ("First placementFeasible call returned Error", ALL_FIT, [E], E, {}),
]


@pytest.mark.parametrize("filters, codes, group, pods",
                         [pytest.param(*c[1:], id=c[0]) for c in V137])
def test_v137_pod_group_scheduling_algorithm(filters, codes, group, pods):
    _, cyc = pod_group_cycle("1.37", [fake_pod_group_plugin(filters),
                                      FakePlacementFeasible(codes)])
    cyc.algorithm()
    assert cyc.status.code == group
    assert not cyc.waiting_on_preemption
    check_members(cyc, pods)


def test_v137_pod_group_cycle_fills_pod_results_on_fewer_results():
    """TestPodGroupCycle_FillsPodResultsOnFewerResults: p2's Filter errors, so p3 is never
    tried; p1 and p3 fail with the group's error, p2 with its own."""
    sched, cyc = pod_group_cycle("1.37", [fake_pod_group_plugin({"p1": S, "p2": E, "p3": S})])
    cyc.algorithm()
    assert len(cyc.members) == 2
    cyc._submit()
    own = 'running "FakePodGroupPlugin" filter plugin: filter error for p2'
    cycles = {c["pod"]: c for c in sched.observer.to_list()}
    assert {k: (c["outcome"], c["message"]) for k, c in cycles.items()} == {
        "default/p1": ("Error", "failed to schedule other pod from a pod group: " + own),
        "default/p2": ("Error", own),
        "default/p3": ("Error", "failed to schedule other pod from a pod group: " + own)}
    assert {c["podGroup"]["result"] for c in cycles.values()} == {"Error"}
    assert not any(sched.bindings.values()) and not sched.cache.pods


# --- v1.37: TestSubmitPodGroupAlgorithmResult ------------------------------------------------
PLACED, NO_FIT = (None, "node1"), (U, "")
SUBMIT = [
    # (name, group status, member results (code, host), bound, failed)
    ("All pods feasible", None, [PLACED, PLACED, PLACED], {"p1", "p2", "p3"}, set()),
    ("All pods feasible, but podGroup unschedulable", (U, "not enough capacity for the gang"),
     [PLACED, PLACED, PLACED], set(), {"p1", "p2", "p3"}),
    ("One unschedulable", None, [PLACED, NO_FIT, PLACED], {"p1", "p3"}, {"p2"}),
    ("All pods unschedulable", (U, "0/3 nodes are available: insufficient cpu"),
     [NO_FIT, NO_FIT, NO_FIT], set(), {"p1", "p2", "p3"}),
    ("Unschedulable for the entire pod group", (U, "node affinity mismatch"),
     [NO_FIT, NO_FIT, NO_FIT], set(), {"p1", "p2", "p3"}),
    ("Error for one pod", (E, "plugin returned error"),
     [PLACED, (E, ""), (E, "")], set(), {"p1", "p2", "p3"}),
]


@pytest.mark.parametrize("group, results, bound, failed",
                         [pytest.param(*c[1:], id=c[0]) for c in SUBMIT])
def test_v137_submit_pod_group_algorithm_result(group, results, bound, failed):
    """The members' results as given, applied: placed members of a feasible group bind, the
    others fail, a placed member of a rejected group with the group's reason."""
    sched, cyc = pod_group_cycle("1.37", [fake_pod_group_plugin(ALL_FIT)])
    cyc.status = Status() if group is None else Status(group[0], group[1])
    for qpi, (code, host) in zip(cyc.queued, results):
        m = Member(qpi, *sched.begin_cycle(qpi, cyc.fwk, popped=False))
        m.state, m.host = sched.new_cycle_state(), host
        m.status = _status(code, "plugin returned error" if code == E else "")
        cyc.members.append(m)
    cyc._submit()
    sched._run_due_events()   # the binding cycles, without scheduling the failed pods again
    assert {k.split("/")[1] for k, node in sched.bindings.items() if node} == bound
    cycles = sched.observer.to_list()
    assert {c["pod"].split("/")[1] for c in cycles if c["outcome"] != "Bound"} == failed
    for c, (code, _) in zip(cycles, results):
        if code is None and group is not None:   # placed, in a group that is not feasible
            assert c["message"] == group[1]


@pytest.mark.parametrize("release, message", [
    ("1.36", 'all pods in a single pod group should have the same .spec.schedulerName set, '
             'got: "sched2" and "sched1"'),
    ("1.37", 'all pods in a pod group hierarchy should have the same .spec.schedulerName set, '
             'got: "sched2" ("p2") and "sched1" ("p1")'),
])
def test_different_scheduler_names_fail_the_whole_group(release, message):
    """frameworkForPodGroup (v1.36) / TestValidatePodGroup "failure for different scheduler
    names" (v1.37): every member fails with the error, none is tried."""
    features = feature_gates(release, "GenericWorkload=true")
    docs = [make_node("node1"), pod_group(release)] + [member(f"p{i}") for i in (1, 2)]
    docs[2]["spec"]["schedulerName"], docs[3]["spec"]["schedulerName"] = "sched1", "sched2"
    plugin = fake_pod_group_plugin(ALL_FIT)
    reg = registry(plugin)
    config = configuration(profile(plugin.NAME, name="sched1"),
                           profile(plugin.NAME, name="sched2"))
    trace = TraceObserver()
    sched = Scheduler(load_documents([("test.yaml", docs)], features=features),
                      parse_configuration(config, reg, features=features), registry=reg,
                      observer=trace)
    PodGroupCycle(sched, sched.queue.pop()).run()
    assert [(c["pod"], c["outcome"], c["message"], c["filter"]) for c in trace.to_list()] == [
        ("default/p1", "Error", message, {}), ("default/p2", "Error", message, {})]


PREEMPTION = """
apiVersion: v1
kind: Node
metadata: {name: node-1}
status: {allocatable: {cpu: "2", memory: 8Gi, pods: "10"}}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: v1
kind: Pod
metadata: {name: low, namespace: default}
spec:
  nodeName: node-1
  containers: [{name: c, image: i, resources: {requests: {cpu: "2"}}}]
---
apiVersion: scheduling.k8s.io/v1alpha2
kind: PodGroup
metadata: {name: g, namespace: default}
spec:
  schedulingPolicy: {gang: {minCount: 2}}
""" + "".join(f"""---
apiVersion: v1
kind: Pod
metadata: {{name: g-{i}, namespace: default}}
spec:
  priorityClassName: high
  schedulingGroup: {{podGroupName: g}}
  containers: [{{name: c, image: i, resources: {{requests: {{cpu: "1"}}}}}}]
""" for i in (0, 1))


def test_v136_a_gang_that_needs_preemption_waits_for_it_then_binds_whole(tmp_path):
    """v1.36: g-0's PostFilter preempts `low` and nominates node-1; g-1 counts g-0 there (its
    nomination dropped by the assume, not counted twice), so Permit says Success and the group
    waits on preemption; once `low` is gone (30s grace) both bind in one group cycle."""
    path = tmp_path / "gang.yaml"
    path.write_text(PREEMPTION)
    result = simulate([str(path)], seed=1, features=feature_gates(
        "1.36", "GenericWorkload=true,GangScheduling=true"))
    cycles = result.to_json()["cycles"]
    first = cycles[:2]
    assert [c["podGroup"]["result"] for c in first] == ["WaitingOnPreemption"] * 2
    assert first[0]["preemption"]["victims"] == ["default/low"]
    assert first[0]["podGroup"]["message"] == (
        "pod group is unschedulable, pod group is waiting for preemption to complete")
    last = cycles[-2:]
    assert [(c["time"], c["outcome"], c["node"]) for c in last] == [
        (30.0, "Bound", "node-1"), (30.0, "Bound", "node-1")]
    assert last[0]["podGroup"]["cycle"] == last[1]["podGroup"]["cycle"] == last[0]["index"]



PAIR = (Path(__file__).resolve().parents[1] / "examples" / "gang-pair-v136.yaml").read_text()


def test_v136_the_step_of_the_group_cycle_ends_with_every_member_bound():
    """v1.36: pair-0 waits at Permit, pair-1's Permit Success allows it; its binding cycle
    goes on at once (Go's binding goroutine), so the one step of the group's cycle ends with
    both bound, nothing queued or waiting and node-1 holding both (the run view's state)."""
    session = RunSession([("pair.yaml", list(yaml.safe_load_all(PAIR)))], None, seed=1,
                         features=feature_gates("1.36", "GenericWorkload=true,GangScheduling=true"))
    assert session.advance(1) == 1
    state = session.state()
    assert state["cycles"] == 2
    assert state["bindings"] == {"default/pair-0": "node-1", "default/pair-1": "node-1"}
    assert state["queues"] == {"activeQ": [], "backoffQ": [], "unschedulablePods": [],
                               "gated": [], "waitingOnPermit": []}
    [node] = state["nodes"]
    assert [p["pod"] for p in node["pods"]] == ["default/pair-0", "default/pair-1"]
    assert node["resources"]["cpu"] == [1000, 2000]

# --- v1.36: TestPodGroupInfoForPod -----------------------------------------------------------
@pytest.mark.parametrize("in_queue, expected", [
    pytest.param({"p2", "p3", "p4"}, ["p2", "p4", "p3", "p1"],
                 id="Success with multiple pods, sorted by priority and timestamp"),
    # Go's second case also leaves p4 out of the pod group state; here a pod's group is its
    # spec.schedulingGroup, so only the half "not in queue" can be expressed.
    pytest.param({"p2", "p4"}, ["p2", "p4", "p1"], id="Pods not in queue are skipped"),
])
def test_v136_pod_group_info_for_pod(in_queue, expected):
    """p1 (priority 100) is popped; the group's pods waiting in the unschedulable pool are
    popped with it and sorted by priority, then first attempt (p4's before p3's)."""
    features = feature_gates("1.36", "GenericWorkload=true")
    priorities = {"p1": 100, "p2": 200, "p3": 150, "p4": 150}
    attempts = {"p1": 0.0, "p2": 1.0, "p3": 2.0, "p4": 1.0}
    docs = [make_node("node1"), pod_group("1.36")]
    for name, priority in priorities.items():
        docs.append(member(name))
        docs[-1]["spec"]["priority"] = priority
    plugin = fake_pod_group_plugin(ALL_FIT)
    reg = registry(plugin)
    sched = Scheduler(load_documents([("test.yaml", docs)], features=features),
                      parse_configuration(configuration(profile(plugin.NAME)), reg,
                                          features=features), registry=reg)
    popped = {q.pod.name: q for q in iter(sched.queue.pop, None)}
    for name, qpi in popped.items():
        qpi.initial_attempt = attempts[name]
        if name in in_queue:   # AddUnschedulableIfNotPresent: to the pool
            qpi.unschedulable_plugins = {plugin.NAME}
            sched.queue.add_unschedulable(qpi)
    cyc = PodGroupCycle(sched, popped["p1"])
    assert [q.pod.name for q in cyc.queued] == expected
    assert not sched.queue.unschedulable


# --- v1.36 and v1.37: TestSkipPodGroupPodSchedule --------------------------------------------
@pytest.mark.parametrize("release", ["1.36", "1.37"])
def test_skip_pod_group_pod_schedule(release):
    """p2 is being deleted and p3 already assumed: skipPodGroupPodSchedule leaves only p1 in
    the attempt; the two are not put back in the queue, only their in-flight records end."""
    plugin = fake_pod_group_plugin(ALL_FIT)
    sched, cyc = pod_group_cycle(release, [plugin])
    pods = {q.pod.name: q.pod for q in cyc.queued}
    assert set(pods) == {"p1", "p2", "p3"}
    pods["p2"].deletion_time = 0.0           # Terminating()
    sched.cache.assume(pods["p3"], "node1")  # cache.AssumePod(p3)
    cyc.algorithm()
    assert [q.pod.name for q in cyc.queued] == ["p1"]
    assert [m.qpi.pod.name for m in cyc.members] == ["p1"]
    assert set(sched.queue.in_flight) == {"p1"}
    assert sched.queue.pop() is None


def test_a_group_whose_members_are_all_skipped_has_no_attempt():
    """scheduleOnePodGroup returns when skipPodGroupPodSchedule leaves no pod: no member cycle."""
    plugin = fake_pod_group_plugin(ALL_FIT)
    sched, cyc = pod_group_cycle("1.37", [plugin])
    for qpi in cyc.queued:
        qpi.pod.deletion_time = 0.0
    cyc.run()
    assert cyc.queued == [] and cyc.members == []
    assert not sched.queue.in_flight


# --- v1.37: TestValidatePodGroup, priority and preemption policy -----------------------------
def _validated(group_spec, pods, scheduled=(), gates="GenericWorkload=true"):
    """The group's verdict after v1.37 validatePodGroup: `pods` queued, `scheduled` bound on
    node1, as {name: spec fields}; the profile is default-scheduler's."""
    features = feature_gates("1.37", gates)
    group = pod_group("1.37")
    group["spec"].update(group_spec)
    docs = [make_node("node1"), group]
    for name, fields in [*pods.items(), *dict(scheduled).items()]:
        docs.append(member(name))
        docs[-1]["spec"].update(fields)
        if name in dict(scheduled):
            docs[-1]["spec"]["nodeName"] = "node1"
    plugin = fake_pod_group_plugin({name: S for name in pods})
    reg = registry(plugin)
    sched = Scheduler(load_documents([("test.yaml", docs)], features=features),
                      parse_configuration(configuration(profile(plugin.NAME)), reg,
                                          features=features), registry=reg)
    cyc = PodGroupCycle(sched, sched.queue.pop())
    cyc.algorithm()
    return cyc.status


P10, NEVER, LOWER = {"priority": 10}, "Never", "PreemptLowerPriority"
PG_KEY = '"podgroup/default/pg"'


@pytest.mark.parametrize("group_spec, pods, scheduled, gates, error", [
    pytest.param({"priority": 10}, {"p1": P10, "p2": P10}, (), "", None,
                 id="success when priorities match"),
    pytest.param({"priority": 10}, {"p1": {"priority": 9}, "p2": P10}, (), "",
                 f'got 9 ("p1") and 10 ({PG_KEY})',
                 id="failure when different priorities across pods"),
    pytest.param({"priority": 9}, {"p1": P10, "p2": P10}, (), "",
                 f'got 10 ("p1") and 9 ({PG_KEY})',
                 id="failure when different priorities across pods and pod group"),
    pytest.param({"priority": 10}, {"p1": P10}, [("p2", P10)], "", None,
                 id="success when new pods match scheduled pods scheduler name and priority"),
    pytest.param({"priority": 10}, {"p1": P10},
                 [("p2", {**P10, "schedulerName": "sched2"})], "",
                 'got: "sched2" ("p2") and "default-scheduler" ("p1")',
                 id="failure when new pod has different scheduler name than scheduled pod"),
    pytest.param({"priority": 10}, {"p1": P10}, [("p2", {"priority": 9})], "",
                 f'got 9 ("p2") and 10 ({PG_KEY})',
                 id="failure when new pod has different priority than scheduled pod"),
    pytest.param({"preemptionPolicy": NEVER}, {"p1": {"preemptionPolicy": NEVER},
                                               "p2": {"preemptionPolicy": NEVER}}, (),
                 ",PodGroupPreemptionPolicy=true", None,
                 id="success when preemption policies match"),
    pytest.param({"preemptionPolicy": NEVER}, {"p1": {"preemptionPolicy": LOWER},
                                               "p2": {"preemptionPolicy": NEVER}}, (),
                 ",PodGroupPreemptionPolicy=true",
                 f'preemption policy as the root pod group\'s preemption policy, got '
                 f'PreemptLowerPriority ("p1") and Never ({PG_KEY})',
                 id="failure when different preemption policies across pods"),
    pytest.param({"preemptionPolicy": NEVER}, {"p1": {"preemptionPolicy": LOWER},
                                               "p2": {"preemptionPolicy": LOWER}}, (),
                 ",PodGroupPreemptionPolicy=true",
                 f'got PreemptLowerPriority ("p1") and Never ({PG_KEY})',
                 id="failure when different preemption policies across pods and pod group"),
    pytest.param({"preemptionPolicy": NEVER}, {"p1": {"preemptionPolicy": LOWER},
                                               "p2": {"preemptionPolicy": LOWER}}, (), "", None,
                 id="success when preemption policies between pods and podgroup do not match "
                    "but PodGroupPreemptionPolicy is disabled"),
    pytest.param({"preemptionPolicy": NEVER}, {"p1": {"preemptionPolicy": LOWER},
                                               "p2": {"preemptionPolicy": NEVER}}, (), "",
                 'same preemption policy, got Never ("p2") and PreemptLowerPriority ("p1")',
                 id="failure when preemption policies do not match across pods and "
                    "PodGroupPreemptionPolicy is disabled"),
])
def test_v137_validate_pod_group(group_spec, pods, scheduled, gates, error):
    """Go's cases with pods to evaluate and a profile for them (a cycle always has its popped
    pod, and a pod naming no profile is never queued here). The queue sorts by priority, so
    the first queued pod is the highest; Go's ForEachPodInfo order is the queued one too."""
    status = _validated(group_spec, pods, scheduled, "GenericWorkload=true" + gates)
    if error is None:
        assert status.code != Code.ERROR, status.message()
    else:
        assert status.code == Code.ERROR
        assert status.message().startswith("all pods in a pod group hierarchy should have")
        assert error in status.message()
