"""GangScheduling, ported from kubernetes/kubernetes
pkg/scheduler/framework/plugins/gangscheduling/gangscheduling_test.go as each release has it:
v1.35 (Workloads, spec.workloadRef: Test_isSchedulableAfterPodAdded,
Test_isSchedulableAfterWorkloadAdded, TestGangSchedulingFlow) and v1.36 (PodGroups,
spec.schedulingGroup: Test_isSchedulableAfterPodAdded, Test_isSchedulableAfterPodGroupAdded,
TestGangSchedulingFlow), v1.37's Permit message and isSchedulableAfterPodGroupUpdated
(gangscheduling.go), then runs through the scheduler per release and gate."""
import pytest
import yaml

from scheduler_core.errors import InputError
from scheduler_core.features import FeatureGateError, feature_gates
from scheduler_core.framework.handle import ClusterObjects, FakeHandle
from scheduler_core.framework.queueing_hint import QUEUE, QUEUE_SKIP
from scheduler_core.framework.status import Code, Status
from scheduler_core.plugins.gangscheduling import new
from scheduler_core.simulate import simulate
from scheduler_core.testing import make_pod, pod_info


def gang_on(release: str) -> str:
    """The gates that turn gangs on: GenericWorkload with GangScheduling through v1.36,
    GenericWorkload alone from v1.37, which has no GangScheduling gate (features.REMOVED_IN)."""
    return "GenericWorkload=true" + (",GangScheduling=true" if release < "1.37" else "")
QUORUM = "waiting for minCount pods from a gang to appear in scheduling queue"


def handle_at(release: str, extra: dict | None = None) -> FakeHandle:
    objects = ClusterObjects()
    objects.extra.update(extra or {})
    return FakeHandle(objects=objects, features=feature_gates(release, gang_on(release)))


def ref_pod(name="p", namespace="default", workload="w1", group="pg", replica=None):
    """st.MakePod().WorkloadRef(...) of v1.35."""
    manifest = make_pod(name, namespace=namespace)
    ref = {"name": workload, "podGroup": group}
    if replica is not None:
        ref["podGroupReplicaKey"] = replica
    manifest["spec"]["workloadRef"] = ref
    manifest["metadata"]["uid"] = name
    return pod_info(manifest)


def group_pod(name="p", namespace="default", group="pg"):
    """st.MakePod().SchedulingGroup(...) of v1.36 on."""
    manifest = make_pod(name, namespace=namespace)
    manifest["spec"]["schedulingGroup"] = {"podGroupName": group}
    manifest["metadata"]["uid"] = name
    return pod_info(manifest)


def workload(name, namespace="default", *groups, version="v1alpha1"):
    """st.MakeWorkload() with PodGroups given as (name, minCount or None for basic)."""
    pod_groups = [{"name": g, "policy": {"basic": {}} if n is None else {"gang": {"minCount": n}}}
                  for g, n in groups]
    return {"apiVersion": f"scheduling.k8s.io/{version}", "kind": "Workload",
            "metadata": {"name": name, "namespace": namespace}, "spec": {"podGroups": pod_groups}}


def pod_group(name, namespace="default", min_count=None, version="v1alpha2"):
    """st.MakePodGroup() of v1.36 on; min_count None: BasicPolicy()."""
    policy = {"basic": {}} if min_count is None else {"gang": {"minCount": min_count}}
    return {"apiVersion": f"scheduling.k8s.io/{version}", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"schedulingPolicy": policy}}


class FakeWaitingPod:
    def __init__(self, pod):
        self.pod = pod
        self.allowed_by = []

    def allow(self, plugin):
        self.allowed_by.append(plugin)


# --- v1.35: Workloads and spec.workloadRef ------------------------------------------------------
@pytest.mark.parametrize("pod, added, hint", [
    pytest.param(ref_pod(), ref_pod("n"), QUEUE,
                 id="add a newPod which matches the pod's workload and pod group"),
    pytest.param(ref_pod(replica="3"), ref_pod("n", replica="3"), QUEUE,
                 id="add a newPod which matches the pod's workload, pod group and replica key"),
    pytest.param(ref_pod(), ref_pod("n", namespace="foo"), QUEUE_SKIP,
                 id="add a newPod which doesn't match the pod's namespace"),
    pytest.param(ref_pod(), ref_pod("n", workload="w2"), QUEUE_SKIP,
                 id="add a newPod which doesn't match the pod's workload name"),
    pytest.param(ref_pod(), ref_pod("n", group="pg2"), QUEUE_SKIP,
                 id="add a newPod which doesn't match the pod's pod group name"),
    pytest.param(ref_pod(replica="3"), ref_pod("n", replica="4"), QUEUE_SKIP,
                 id="add a newPod which doesn't match the pod's replica key"),
])
def test_v135_is_schedulable_after_pod_added(pod, added, hint):
    plugin = new({}, handle_at("1.35"))
    assert plugin.is_schedulable_after_pod_added(pod, None, added) == hint


@pytest.mark.parametrize("pod, added, hint", [
    pytest.param(ref_pod(), workload("w1", "default", ("pg", 1)), QUEUE,
                 id="add a workload which matches the pod's workload name"),
    pytest.param(ref_pod(workload="w2"), workload("w1", "default", ("pg", 1)), QUEUE_SKIP,
                 id="add a workload which doesn't match the pod's workload name"),
    pytest.param(ref_pod(namespace="ns1"), workload("w1", "ns2", ("pg", 1)), QUEUE_SKIP,
                 id="add a workload which doesn't match the pod's workload namespace"),
])
def test_v135_is_schedulable_after_workload_added(pod, added, hint):
    plugin = new({}, handle_at("1.35"))
    assert plugin.is_schedulable_after_workload_added(pod, None, added) == hint


# The pods of TestGangSchedulingFlow (v1.35): p1-p3 in gang-wl/pg1 (minCount 3), p4 in pg2
# (minCount 4), p5 in pg1 with replica key 2 (a gang of its own).
V135 = {
    "p1": ref_pod("p1", "ns1", "gang-wl", "pg1"), "p2": ref_pod("p2", "ns1", "gang-wl", "pg1"),
    "p3": ref_pod("p3", "ns1", "gang-wl", "pg1"), "p4": ref_pod("p4", "ns1", "gang-wl", "pg2"),
    "p5": ref_pod("p5", "ns1", "gang-wl", "pg1", replica="2"),
    "basic-pod": ref_pod("basic-pod", "ns1", "basic-wl", "pg1"),
    "non-gang": pod_info({**make_pod("non-gang", namespace="ns1")}),
}
V135_WORKLOADS = [workload("gang-wl", "ns1", ("pg1", 3), ("pg2", 4)),
                  workload("basic-wl", "ns1", ("pg1", None))]
# ... and of v1.36's: p1-p3 in PodGroup pg1 (minCount 3), p4 and p5 in pg2 (minCount 4).
V136 = {
    "p1": group_pod("p1", "ns1", "pg1"), "p2": group_pod("p2", "ns1", "pg1"),
    "p3": group_pod("p3", "ns1", "pg1"), "p4": group_pod("p4", "ns1", "pg2"),
    "p5": group_pod("p5", "ns1", "pg2"), "basic-pod": group_pod("basic-pod", "ns1", "pg3"),
    "non-gang": pod_info(make_pod("non-gang", namespace="ns1")),
}
V136_GROUPS = [pod_group("pg1", "ns1", 3), pod_group("pg2", "ns1", 4),
               pod_group("pg3", "ns1", None)]
WAIT_V136 = Status(Code.WAIT, "waiting for minCount pods from a gang to be waiting on permit")

FLOW = [
    # (id, pod, initial pods, objects present, waiting on permit, PreEnqueue, Permit,
    #  activated, allowed)
    ("non-gang pod succeeds immediately", "non-gang", [], True, [], None, None, [], []),
    ("basic policy pod succeeds immediately", "basic-pod", [], True, [], None, None, [], []),
    ("gang pod fails PreEnqueue when its object is not yet created", "p1",
     ["p2", "p3", "p4", "p5"], False, [], "missing", None, [], []),
    ("gang pod fails PreEnqueue when quorum is not met", "p1", ["p2", "p4", "p5"], True, [],
     Status.unresolvable(QUORUM), None, [], []),
    ("gang pod passes PreEnqueue, but waits at Permit", "p1", ["p2", "p3", "p4", "p5"], True,
     ["p2", "p4", "p5"], None, "wait", ["p3"], []),
    ("final gang pod arrives at Permit and allows all waiting pods from a gang", "p1",
     ["p2", "p3", "p4", "p5"], True, ["p2", "p3", "p4", "p5"], None, None, [], ["p2", "p3"]),
]
MISSING = {
    "1.35": Status.unresolvable('waiting for pods\'s workload "gang-wl" to appear in '
                                'scheduling queue'),
    "1.36": Status.unresolvable('waiting for pods\'s pod group "pg1" to appear in '
                                'scheduling queue'),
}
WAIT = {"1.35": WAIT_V136, "1.36": WAIT_V136,
        "1.37": Status(Code.WAIT, "waiting for minCount pods from a gang to be scheduled")}


def _flow(release, name, initial, present, waiting, pre_enqueue, permit, activated, allowed):
    pods = V135 if release == "1.35" else V136
    objects = V135_WORKLOADS if release == "1.35" else \
        [{**g, "apiVersion": "scheduling.k8s.io/v1alpha3"} if release == "1.37" else g
         for g in V136_GROUPS]
    kind = "Workload" if release == "1.35" else "PodGroup"
    handle = handle_at(release, {kind: objects} if present else {})
    pod = pods[name]
    handle.pending_pods = [pods[n] for n in initial] + [pod]
    plugin = new({}, handle)
    want = MISSING[min(release, "1.36")] if pre_enqueue == "missing" else pre_enqueue
    got = plugin.pre_enqueue(pod)
    assert (got.code, got.message()) == (want.code, want.message()) if want else got is None
    if got is not None:
        return
    # The other pods reach Reserve and Permit first, and wait there.
    held = {}
    for other in waiting:
        if hasattr(plugin, "reserve"):
            assert plugin.reserve(None, pods[other], "some-node") is None
        status, _ = plugin.permit(None, pods[other], "some-node")
        assert status.code == Code.WAIT, other
        held[other] = handle.waiting_pods[other] = FakeWaitingPod(pods[other])
    if hasattr(plugin, "reserve"):
        assert plugin.reserve(None, pod, "some-node") is None
    handle.activated.clear()
    status, timeout = plugin.permit(None, pod, "some-node")
    if permit == "wait":
        want = WAIT[release]
        assert (status.code, status.message()) == (want.code, want.message())
        assert timeout == 300.0
        assert [p.name for p in handle.activated] == activated
        return
    assert status is None
    assert sorted(n for n, wp in held.items() if wp.allowed_by == ["GangScheduling"]) == allowed


@pytest.mark.parametrize("release", ["1.35", "1.36", "1.37"])
@pytest.mark.parametrize("case", [pytest.param(c[1:], id=c[0]) for c in FLOW])
def test_gang_scheduling_flow(release, case):
    _flow(release, *case)


@pytest.mark.parametrize("pod, added, hint", [
    pytest.param(group_pod(), group_pod("n"), QUEUE,
                 id="add a newPod which matches the pod's scheduling group"),
    pytest.param(group_pod(), group_pod("n", namespace="foo"), QUEUE_SKIP,
                 id="add a newPod which doesn't match the pod's namespace"),
    pytest.param(group_pod(group="pg1"), group_pod("n", group="pg2"), QUEUE_SKIP,
                 id="add a newPod which doesn't match the pod's pod group name"),
])
def test_v136_is_schedulable_after_pod_added(pod, added, hint):
    plugin = new({}, handle_at("1.36"))
    assert plugin.is_schedulable_after_pod_added(pod, None, added) == hint


@pytest.mark.parametrize("pod, added, hint", [
    pytest.param(group_pod(), pod_group("pg", min_count=1), QUEUE,
                 id="add a pod group which matches the pod's pod group name"),
    pytest.param(group_pod(group="pg1"), pod_group("pg2", min_count=1), QUEUE_SKIP,
                 id="add a pod group which doesn't match the pod's scheduling group name"),
    pytest.param(group_pod(namespace="ns1"), pod_group("pg", "ns2", 1), QUEUE_SKIP,
                 id="add a pod group which doesn't match the pod's scheduling group namespace"),
])
def test_v136_is_schedulable_after_pod_group_added(pod, added, hint):
    plugin = new({}, handle_at("1.36"))
    assert plugin.is_schedulable_after_pod_group_added(pod, None, added) == hint


@pytest.mark.parametrize("old, new_group, hint", [
    pytest.param(pod_group("pg", min_count=3), pod_group("pg", min_count=2), QUEUE,
                 id="a decreased minCount may make the waiting pods schedulable"),
    pytest.param(pod_group("pg", min_count=3), pod_group("pg", min_count=3), QUEUE_SKIP,
                 id="an unchanged minCount does not"),
    pytest.param(pod_group("pg", min_count=3), pod_group("pg", min_count=4), QUEUE_SKIP,
                 id="an increased minCount does not"),
    pytest.param(pod_group("pg"), pod_group("pg"), QUEUE,
                 id="an update of a non-gang policy is unexpected and queues the pod"),
    pytest.param(pod_group("other", min_count=3), pod_group("other", min_count=1), QUEUE_SKIP,
                 id="another pod group's update does not concern the pod"),
])
def test_v137_is_schedulable_after_pod_group_updated(old, new_group, hint):
    plugin = new({}, handle_at("1.37"))
    assert plugin.is_schedulable_after_pod_group_updated(group_pod(), old, new_group) == hint


def test_v135_gang_shares_one_deadline_between_its_members():
    """workloadmanager's SchedulingTimeout: the first wait sets 300s, later members get what
    is left of it."""
    handle = handle_at("1.35", {"Workload": V135_WORKLOADS})
    plugin = new({}, handle)
    assert plugin.timeout(("ns1", "gang-wl", "pg1", "")) == 300.0
    handle._now = 120.0
    assert plugin.timeout(("ns1", "gang-wl", "pg1", "")) == 180.0


# --- through the scheduler ------------------------------------------------------------------------
NODES = "".join(f"""
---
apiVersion: v1
kind: Node
metadata: {{name: node-{i}}}
status: {{allocatable: {{cpu: "2", memory: 8Gi, pods: "10"}}}}""" for i in (1, 2))


def _pods(group_field: str, names: list[str], cpu: str) -> str:
    return "".join(f"""
---
apiVersion: v1
kind: Pod
metadata: {{name: {n}, namespace: default}}
spec:
  {group_field}
  containers: [{{name: c, image: i, resources: {{requests: {{cpu: {cpu}}}}}}}]"""
                   for n in names)


def _cluster(release: str, min_count: int, members: int, cpu: str) -> str:
    names = [f"w-{i}" for i in range(members)]
    if release == "1.35":
        objects = f"""
---
apiVersion: scheduling.k8s.io/v1alpha1
kind: Workload
metadata: {{name: train, namespace: default}}
spec:
  podGroups: [{{name: workers, policy: {{gang: {{minCount: {min_count}}}}}}}]"""
        return NODES + objects + _pods("workloadRef: {name: train, podGroup: workers}",
                                       names, cpu)
    version = {"1.36": "v1alpha2", "1.37": "v1beta1"}[release]
    objects = f"""
---
apiVersion: scheduling.k8s.io/{version}
kind: PodGroup
metadata: {{name: workers, namespace: default}}
spec:
  schedulingPolicy: {{gang: {{minCount: {min_count}}}}}"""
    return NODES + objects + _pods("schedulingGroup: {podGroupName: workers}", names, cpu)


def _run(tmp_path, text, release, gates=None, until=None):
    path = tmp_path / "gang.yaml"
    path.write_text(text)
    gates = gang_on(release) if gates is None else gates
    return simulate([str(path)], seed=1, until=until, features=feature_gates(release, gates))


@pytest.mark.parametrize("release", ["1.35", "1.36", "1.37"])
def test_a_gang_that_fits_binds_whole_after_its_members_waited_at_permit(tmp_path, release):
    result = _run(tmp_path, _cluster(release, 3, 3, "500m"), release)
    s = result.scheduler
    assert all(s.bindings.values()) and len(s.bindings) == 3
    permits = [e for c in result.to_json()["cycles"] for e in c["permit"]
               if e["plugin"] == "GangScheduling"]
    assert [e["code"] for e in permits] == ["Wait", "Wait", "Success"]


def test_v135_a_gang_with_room_for_two_of_three_binds_none_and_times_out(tmp_path):
    """v1.35 has no pod group cycle: two members hold nodes at Permit for 5 minutes."""
    result = _run(tmp_path, _cluster("1.35", 3, 3, "1500m"), "1.35", until=299)
    assert not any(result.scheduler.bindings.values())
    assert len(result.scheduler.waiting) == 2   # two members hold nodes at Permit
    later = _run(tmp_path, _cluster("1.35", 3, 3, "1500m"), "1.35", until=301)
    messages = [c["message"] for c in later.to_json()["cycles"]]
    assert any("rejected due to timeout after waiting 5m0s at plugin GangScheduling" in m
               for m in messages)
    assert not any(later.scheduler.bindings.values())


@pytest.mark.parametrize("release, placed_message", [
    # v1.36: errPodGroupUnschedulable with the member's Permit message (the framework's Wait).
    ("1.36", 'pod group is unschedulable, one or more plugins asked to wait and no plugin '
             'rejected pod "{pod}"'),
    # v1.37: GangScheduling's PlacementFeasible verdict (podGroupFitError).
    ("1.37", "minCount (3) cannot be satisfied: 2 scheduled, 0 remaining"),
])
def test_a_gang_with_room_for_two_of_three_holds_no_node_after_its_one_cycle(
        tmp_path, release, placed_message):
    """v1.36+ places the gang in one pod group cycle: the two members that fit are given back
    with the group's reason, the third fails with its own FitError, none waits at Permit."""
    result = _run(tmp_path, _cluster(release, 3, 3, "1500m"), release, until=1)
    s = result.scheduler
    assert not any(s.bindings.values()) and not s.waiting
    first = result.to_json()["cycles"][:3]
    assert [c["podGroup"]["cycle"] for c in first] == [0, 0, 0]
    assert [c["podGroup"]["members"] for c in first] == [["default/w-0", "default/w-1",
                                                          "default/w-2"]] * 3
    assert [c["message"] for c in first] == [
        placed_message.format(pod="w-0"), placed_message.format(pod="w-1"),
        "0/2 nodes are available: 2 Insufficient cpu." + (
            " no new claims to deallocate, preemption: 0/2 nodes are available: 2 No "
            "preemption victims found for incoming pod." if release == "1.36" else "")]
    assert all(c["outcome"] == "Unschedulable" and c["node"] is None for c in first)


@pytest.mark.parametrize("release", ["1.35", "1.36", "1.37"])
def test_members_below_min_count_stay_out_of_the_queue(tmp_path, release):
    result = _run(tmp_path, _cluster(release, 3, 2, "100m"), release)
    s = result.scheduler
    assert s.cycle_count == 0 and not any(s.bindings.values())
    assert QUORUM in s.pending_reasons()["default/w-0"]


@pytest.mark.parametrize("release", ["1.36", "1.37"])
def test_pod_group_fields_of_unmodelled_features_are_warned_of_by_field(tmp_path, release):
    """The pod group cycle is modelled (podgroup_cycle.py), so a PodGroup's policy is no
    longer warned of; each field of a feature the engine does not model still is."""
    text = _cluster(release, 2, 2, "100m").replace(
        "  schedulingPolicy: {gang: {minCount: 2}}",
        "  schedulingPolicy: {gang: {minCount: 2}}\n"
        "  schedulingConstraints: {topology: [{key: zone}]}\n"
        "  priorityClassName: high")
    result = _run(tmp_path, text, release)
    where = f"{tmp_path / 'gang.yaml'}: document 3: PodGroup default/workers: field"
    warnings = [w for w in result.scheduler.warnings.to_list() if "PodGroup" in w]
    assert [w.split(": ", 4)[3] for w in warnings] == [
        "field spec.schedulingConstraints", "field spec.priorityClassName"]
    assert all(w.startswith(where) for w in warnings)
    assert "topology-aware workload scheduling" in warnings[0]
    assert "workload-aware preemption" in warnings[1]
    assert all(result.scheduler.bindings.values())


@pytest.mark.parametrize("release", ["1.35", "1.36", "1.37"])
def test_with_the_gates_off_the_objects_and_fields_are_warned_of_and_pods_run_alone(
        tmp_path, release):
    result = _run(tmp_path, _cluster(release, 3, 2, "100m"), release, gates="")
    assert all(result.scheduler.bindings.values())
    warnings = result.scheduler.warnings.to_list()
    field = "workloadRef" if release == "1.35" else "schedulingGroup"
    kind = "Workload default/train" if release == "1.35" else "PodGroup default/workers"
    assert any(kind in w and "GenericWorkload feature gate is off" in w for w in warnings)
    assert any("Pod default/w-0" in w and f"field spec.{field}" in w for w in warnings)


def test_generic_workload_without_gang_scheduling_schedules_each_pod_on_its_own(tmp_path):
    result = _run(tmp_path, _cluster("1.36", 3, 2, "100m"), "1.36", gates="GenericWorkload=true")
    assert all(result.scheduler.bindings.values())
    assert any("field spec.schedulingGroup" in w and "GangScheduling feature gate is off" in w
               for w in result.scheduler.warnings.to_list())


def test_v1_37_has_no_gang_scheduling_gate_and_generic_workload_alone_makes_gangs(tmp_path):
    with pytest.raises(FeatureGateError, match="unrecognized feature gate: GangScheduling"):
        feature_gates("1.37", "GenericWorkload=true,GangScheduling=true")
    result = _run(tmp_path, _cluster("1.37", 3, 2, "100m"), "1.37", gates="GenericWorkload=true")
    assert not any(result.scheduler.bindings.values())
    assert not any("GangScheduling feature gate" in w
                   for w in result.scheduler.warnings.to_list())


def test_a_version_the_release_does_not_serve_exits_naming_the_served_ones(tmp_path):
    text = _cluster("1.36", 3, 3, "100m")   # scheduling.k8s.io/v1alpha2
    with pytest.raises(InputError, match=r'version "scheduling.k8s.io/v1alpha2" in '
                                         r'kube-apiserver v1.37 \(served: '
                                         r'scheduling.k8s.io/v1alpha3, scheduling.k8s.io/v1beta1'):
        _run(tmp_path, text, "1.37")


def test_a_gang_min_count_below_one_is_refused_by_field(tmp_path):
    with pytest.raises(InputError, match=r"field spec.schedulingPolicy.gang.minCount: Invalid "
                                         r"value: 0: must be greater than zero"):
        _run(tmp_path, _cluster("1.37", 0, 3, "100m"), "1.37")


def test_a_workload_under_v136_is_skipped_with_a_warning_naming_podgroups(tmp_path):
    text = NODES + """
---
apiVersion: scheduling.k8s.io/v1alpha2
kind: Workload
metadata: {name: train}
spec:
  podGroupTemplates: [{name: workers, schedulingPolicy: {gang: {minCount: 2}}}]"""
    result = _run(tmp_path, text, "1.36")
    assert any("Workload default/train" in w and "reads PodGroups, not Workloads" in w
               for w in result.scheduler.warnings.to_list())


def test_the_default_profile_has_gang_scheduling_only_with_its_gate():
    from scheduler_core.config import default_multi_point
    on = [n for n, _ in default_multi_point(feature_gates("1.37", gang_on("1.37")))]
    off = [n for n, _ in default_multi_point(feature_gates("1.37"))]
    assert on[-1] == "GangScheduling" and "GangScheduling" not in off


def _timeline(*steps) -> str:
    return "\n---\n" + yaml.safe_dump({"apiVersion": "playground.k8s.local/v1",
                                       "kind": "Timeline", "metadata": {"name": "t"},
                                       "spec": {"steps": list(steps)}})


def _without_group(text: str) -> tuple[str, dict]:
    """The v1.37 cluster with its PodGroup document taken out (returned apart)."""
    docs = list(yaml.safe_load_all(text))
    group = next(d for d in docs if d and d["kind"] == "PodGroup")
    rest = [d for d in docs if d is not group and d]
    return yaml.safe_dump_all(rest), group


def test_a_pod_group_created_later_lets_its_waiting_gang_in(tmp_path):
    """isSchedulableAfterPodGroupAdded through a timeline: the gated members retry
    PreEnqueue on the PodGroupAdd event and the gang binds."""
    text, group = _without_group(_cluster("1.37", 2, 2, "100m"))
    result = _run(tmp_path, text + _timeline({"at": 30, "action": "Create", "object": group}),
                  "1.37")
    assert all(result.scheduler.bindings.values())
    assert {c["time"] for c in result.to_json()["cycles"]} == {30.0}


def test_a_pod_group_created_later_with_the_gate_off_is_a_skipped_step(tmp_path):
    text, group = _without_group(_cluster("1.37", 2, 2, "100m"))
    result = _run(tmp_path, text + _timeline({"at": 30, "action": "Create", "object": group}),
                  "1.37", gates="")
    (step,) = result.scheduler.life.to_json()["steps"]
    assert step["outcome"].startswith("skipped: the Workload API is not served")


def test_v135_a_pod_group_the_workload_lacks_keeps_the_pod_out_and_fails_permit():
    """PreEnqueue and Permit of gangscheduling.go (v1.35) for a podGroup name the Workload
    does not list."""
    pod = ref_pod("p1", "ns1", "gang-wl", "pg9")
    handle = handle_at("1.35", {"Workload": V135_WORKLOADS})
    handle.pending_pods = [pod]
    plugin = new({}, handle)
    status = plugin.pre_enqueue(pod)
    assert (status.code, status.message()) == (
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
        'pod group "pg9" doesn\'t exist for a workload "gang-wl"')
    status, _ = plugin.permit(None, pod, "some-node")
    assert (status.code, status.message()) == (
        Code.ERROR, 'pod group "pg9" doesn\'t exist for a workload "gang-wl"')


def test_a_pod_group_gone_at_permit_is_an_error_that_retries_the_pod():
    pod = V136["p1"]
    handle = handle_at("1.36")
    plugin = new({}, handle)
    status, _ = plugin.permit(None, pod, "some-node")
    assert (status.code, status.message()) == (
        Code.ERROR, 'failed to get podGroup ns1/pg1: podgroup.scheduling.k8s.io "pg1" not found')


def test_v134_does_not_know_the_plugin_and_refuses_a_profile_naming_it(tmp_path):
    """NewInTreeRegistry has GangScheduling from v1.35 on; NewFramework names the first
    extension point it looks up (PreFilter) for a plugin the registry lacks."""
    config = tmp_path / "ksc.yaml"
    config.write_text(yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler",
                      "plugins": {"multiPoint": {"enabled": [{"name": "GangScheduling"}]}}}]}))
    path = tmp_path / "c.yaml"
    path.write_text(NODES)
    with pytest.raises(InputError, match=r'PreFilterPlugin "GangScheduling" does not exist'):
        simulate([str(path)], config_file=str(config), features=feature_gates("1.34"))
    gates = feature_gates("1.35")
    done = simulate([str(path)], config_file=str(config), features=gates)
    assert done.scheduler.warnings.to_list() == list(gates.notes) == []


def test_the_example_does_what_its_header_says():
    """scheduler_core/examples/gang-workload.yaml with its flags: the gang that fits binds,
    the one with room for two is refused whole in its pod group cycle and holds no node, the
    one under its quorum stays out."""
    from pathlib import Path
    example = Path(__file__).resolve().parents[2] / "examples" / "gang-workload.yaml"
    result = simulate([str(example)], seed=1, until=600,
                      features=feature_gates("1.37", gang_on("1.37")))
    s = result.scheduler
    assert all(s.bindings[f"default/trainers-{i}"] for i in range(3))
    assert not any(s.bindings[f"default/big-{i}"] for i in range(3))
    assert not s.waiting
    big = [c for c in result.to_json()["cycles"] if c["pod"].startswith("default/big-")]
    assert {c["podGroup"]["message"] for c in big} == {
        "minCount (3) cannot be satisfied: 2 scheduled, 0 remaining"}
    assert s.pending_reasons()["default/late-0"] == QUORUM
    # Without the gates two of "big" bind, a partial gang, and "late" binds too.
    plain = simulate([str(example)], seed=1, features=feature_gates("1.37"))
    assert [k for k, node in plain.scheduler.bindings.items() if not node] == ["default/big-2"]
