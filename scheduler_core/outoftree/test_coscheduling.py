"""Coscheduling, ported from scheduler-plugins' coscheduling_test.go and core/core_test.go,
plus runs through the scheduler for what only the whole framework shows."""
from datetime import UTC, datetime
from types import SimpleNamespace

import pytest
import yaml

from scheduler_core.errors import ConfigError
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.handle import ClusterObjects, FakeHandle
from scheduler_core.framework.snapshot import Snapshot
from scheduler_core.framework.status import Code, Status
from scheduler_core.observe import TraceObserver
from scheduler_core.outoftree import coscheduling
from scheduler_core.outoftree.coscheduling import (
    POD_GROUP_LABEL,
    check_cluster_resource,
    default_args,
    new,
    validate_args,
)
from scheduler_core.scheduler import RUN_EPOCH
from scheduler_core.simulate import load_scheduler
from scheduler_core.testing import make_node, make_pod, pod_info

OUT_OF_TREE = {"Coscheduling": "scheduler_core.outoftree.coscheduling"}
LOW, HIGH = 10, 100


def stamp(seconds_after_epoch: float) -> str:
    return datetime.fromtimestamp(RUN_EPOCH + seconds_after_epoch, UTC).isoformat()


def make_pg(name, namespace="ns1", min_member=2, created=None, timeout=None,
            min_resources=None) -> dict:
    spec = {"minMember": min_member}
    if timeout is not None:
        spec["scheduleTimeoutSeconds"] = timeout
    if min_resources is not None:
        spec["minResources"] = min_resources
    meta = {"name": name, "namespace": namespace}
    if created is not None:
        meta["creationTimestamp"] = stamp(created)
    return {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
            "metadata": meta, "spec": spec}


def member(name, namespace="ns1", group=None, node=None, priority=None, cpu=None):
    labels = {POD_GROUP_LABEL: group} if group else {}
    return pod_info(make_pod(name, namespace=namespace, labels=labels, node_name=node,
                             priority=priority, cpu=cpu))


class FakeWaitingPod:
    def __init__(self, pod):
        self.pod = pod
        self.allowed_by, self.rejected = [], []

    def allow(self, plugin):
        self.allowed_by.append(plugin)

    def reject(self, plugin, message):
        self.rejected.append((plugin, message))


def handle_with(pgs=(), nodes=(), placed=(), pending=(), waiting=(), now=0.0) -> FakeHandle:
    objects = ClusterObjects()
    objects.extra["PodGroup"] = list(pgs)
    node_manifests = list(nodes) or [make_node("node")]
    handle = FakeHandle(Snapshot.from_objects(node_manifests, list(placed)), objects, now=now)
    handle.pending_pods = list(pending)
    handle.waiting_pods = {w.pod.uid: w for w in waiting}
    return handle


def plugin(handle, **args):
    return new(args, handle)


# --- QueueSort ----------------------------------------------------------------------------------
LESS_GROUPS = [make_pg("pg1", "namespace1", 5, created=2),
               make_pg("pg2", "namespace2", 5, created=3),
               make_pg("pg3", "namespace2", 5, created=-2),
               make_pg("pg4", "namespace2", 5, created=-1)]


def queued(name, namespace, priority, group=None, attempt=0.0):
    return SimpleNamespace(pod=member(name, namespace, group, priority=priority),
                           timestamp=attempt, initial_attempt=attempt)


def p1(priority, group=None, attempt=0.0):
    return queued("pod1", "namespace1", priority, group, attempt)


def p2(priority, group=None, attempt=0.0):
    return queued("pod2", "namespace2", priority, group, attempt)


@pytest.mark.parametrize("a,b,want", [
    pytest.param(p1(LOW), p2(HIGH), False, id="p1.priority less than p2.priority"),
    pytest.param(p1(HIGH), p2(LOW), True, id="p1.priority greater than p2.priority"),
    pytest.param(p1(HIGH, attempt=0), p2(HIGH, attempt=1), True,
                 id="equal priority. p1 is added to schedulingQ earlier than p2"),
    pytest.param(p1(HIGH, attempt=1), p2(HIGH, attempt=0), False,
                 id="equal priority. p2 is added to schedulingQ earlier than p1"),
    pytest.param(p1(LOW, "pg1"), p2(HIGH), False,
                 id="p1.priority less than p2.priority, p1 belongs to podGroup1"),
    pytest.param(p1(HIGH, "pg1"), p2(LOW), True,
                 id="p1.priority greater than p2.priority, p1 belongs to podGroup1"),
    pytest.param(p1(HIGH, "pg3", attempt=0), p2(HIGH, attempt=1), True,
                 id="equal priority. p1 is added to schedulingQ earlier than p2, "
                    "p1 belongs to podGroup3"),
    pytest.param(p1(HIGH, "pg3", attempt=1), p2(HIGH, attempt=0), False,
                 id="equal priority. p2 is added to schedulingQ earlier than p1, "
                    "p1 belongs to podGroup3"),
    pytest.param(p1(LOW, "pg1"), p2(HIGH, "pg2"), False,
                 id="p1.priority less than p2.priority, p1 belongs to podGroup1 and p2 belongs "
                    "to podGroup2"),
    pytest.param(p1(HIGH, "pg1"), p2(LOW, "pg2"), True,
                 id="p1.priority greater than p2.priority, p1 belongs to podGroup1 and p2 "
                    "belongs to podGroup2"),
    pytest.param(p1(HIGH, "pg1", attempt=0), p2(HIGH, "pg2", attempt=1), True,
                 id="equal priority. p1 is added to schedulingQ earlier than p2, p1 belongs to "
                    "podGroup1 and p2 belongs to podGroup2"),
    pytest.param(p1(HIGH, "pg4", attempt=1), p2(HIGH, "pg3", attempt=0), False,
                 id="equal priority. p2 is added to schedulingQ earlier than p1, p1 belongs to "
                    "podGroup4 and p2 belongs to podGroup3"),
    pytest.param(p1(HIGH, "pg1"), p2(HIGH, "pg2"), True,
                 id="equal priority and creation time, p1 belongs to podGroup1 and p2 belongs "
                    "to podGroup2"),
    pytest.param(p1(HIGH), p2(HIGH, "pg2"), True,
                 id="equal priority and creation time, p2 belong to podGroup2"),
    pytest.param(queued("b", "namespace1", HIGH, "pg1"), queued("a", "namespace1", HIGH, "pg1"),
                 False, id="members of one group go by namespace/name"),
    pytest.param(queued("a", "namespace1", HIGH, attempt=5),
                 SimpleNamespace(pod=member("b", "namespace1", priority=HIGH), timestamp=3.0,
                                 initial_attempt=None),
                 False, id="a pod never tried yet counts from when it was queued"),
])
def test_less(a, b, want):
    assert plugin(handle_with(LESS_GROUPS)).less(a, b) is want


def test_group_without_creation_timestamp_counts_from_the_start_of_the_run():
    pl = plugin(handle_with([make_pg("pg", "namespace1")]))
    later = queued("a", "namespace1", HIGH, attempt=1)
    assert pl.less(queued("z", "namespace1", HIGH, "pg"), later) is True


# --- PreFilter ----------------------------------------------------------------------------------
NODES_4_CPU = [make_node("node-a", cpu="4"), make_node("node-b", cpu="4")]
ENOUGH = "pre-filter pod {} cannot find enough sibling pods, current pods number: {}, " \
         "minMember of group: {}"


@pytest.mark.parametrize("pod,pending,pgs,want", [
    pytest.param(member("p", "default"), [member("p1", "ns", "pg1"), member("p2", "ns", "pg2")],
                 [make_pg("pg1", "ns", 1), make_pg("pg2", "ns", 1)], None,
                 id="pod does not belong to any pg"),
    pytest.param(member("p", "ns", "pg-non-existent"), [], [make_pg("pg1", "ns", 1)], None,
                 id="pod belongs to a non-existent pg"),
    pytest.param(member("p", "ns", "pg1"), [member("pg2-1", "ns", "pg2")],
                 [make_pg("pg1", "ns", 2), make_pg("pg2", "ns", 2)],
                 Status.unresolvable(ENOUGH.format("p", 0, 2)),
                 id="pod count less than minMember"),
    pytest.param(member("p1a", "ns", "pg1"), [member("p1b", "ns", "pg1"),
                                             member("p1c", "ns", "pg1")],
                 [make_pg("pg1", "ns", 2), make_pg("pg2", "ns", 2)], None,
                 id="pod count equal minMember"),
    pytest.param(member("p1a", "ns", "pg1"), [member("p1b", "ns", "pg1"),
                                             member("p1c", "ns", "pg1"),
                                             member("p1d", "ns", "pg1")],
                 [make_pg("pg1", "ns", 2)], None, id="pod count more than minMember"),
    pytest.param(member("p1a", "ns", "pg1"), [member("p1b", "ns", "pg1"),
                                             member("p1c", "ns", "pg1")],
                 [make_pg("pg1", "ns", 2, min_resources={"cpu": "6"})], None,
                 id="cluster's resource satisfies minResource"),
    pytest.param(member("p1a", "ns", "pg1"), [member("p1b", "ns", "pg1"),
                                             member("p1c", "ns", "pg1")],
                 [make_pg("pg1", "ns", 2, min_resources={"cpu": "10"})],
                 Status.unresolvable("resource gap: map[cpu:2]"),
                 id="cluster's resource cannot satisfy minResource"),
    pytest.param(member("p1a", "other", "pg1"), [member("p1b", "ns", "pg1"),
                                                member("p1c", "ns", "pg1")],
                 [make_pg("pg1", "other", 2)], Status.unresolvable(ENOUGH.format("p1a", 0, 2)),
                 id="pods of a same-named group in another namespace do not count"),
])
def test_pre_filter(pod, pending, pgs, want):
    handle = handle_with(pgs, NODES_4_CPU, pending=pending)
    result, status = plugin(handle, permitWaitingTimeSeconds=10).pre_filter(
        CycleState(), pod, handle.snapshot.list())
    assert result is None
    assert status == want
    if want is not None:
        assert status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE


def test_pre_filter_min_resources_passes_once_per_timeout():
    pg = make_pg("pg1", "ns", 1, min_resources={"cpu": "6"})
    handle = handle_with([pg], NODES_4_CPU, pending=[member("p", "ns", "pg1")])
    pl = plugin(handle, permitWaitingTimeSeconds=10)
    assert pl.pre_filter(CycleState(), member("p", "ns", "pg1"), [])[1] is None
    # Within the timeout the group is not checked again, so a shrunken cluster goes unnoticed.
    pg["spec"]["minResources"]["cpu"] = "100"
    handle._now = 10.0
    assert pl.pre_filter(CycleState(), member("p", "ns", "pg1"), [])[1] is None
    handle._now = 10.5
    assert pl.pre_filter(CycleState(), member("p", "ns", "pg1"), [])[1] == \
        Status.unresolvable("resource gap: map[cpu:92]")


def test_pre_filter_reports_a_malformed_min_resource_as_an_error():
    pg = make_pg("pg1", "ns", 1, min_resources={"cpu": "lots"})
    handle = handle_with([pg], NODES_4_CPU, pending=[member("p", "ns", "pg1")])
    _, status = plugin(handle).pre_filter(CycleState(), member("p", "ns", "pg1"), [])
    assert status.code == Code.ERROR
    assert status.message().startswith("podGroup ns/pg1 spec.minResources: quantities must")


def cpu_pod(name, node, cpu, group=None):
    return member(name, "ns", group, node=node, cpu=cpu)


@pytest.mark.parametrize("placed,min_resources,want", [
    pytest.param([cpu_pod("p1", "node-a", "2")], {"cpu": 4000}, "",
                 id="Cluster resource enough"),
    pytest.param([cpu_pod("p1", "node-a", "2"), cpu_pod("p2", "node-b", "1")], {"cpu": 4000},
                 "resource gap: map[cpu:1]", id="Cluster resource not enough"),
    pytest.param([cpu_pod("p1", "node-a", "2", "pg1"), cpu_pod("p2", "node-b", "1")],
                 {"cpu": 4000}, "",
                 id="Cluster resource enough as p1's resource needs to be excluded from "
                    "minResources"),
    pytest.param([], {"cpu": 1500, "pods": 300}, "resource gap: map[pods:80]",
                 id="every node's pod slots count"),
])
def test_check_cluster_resource(placed, min_resources, want):
    nodes = [make_node("node-a", cpu="3", pods="110"), make_node("node-b", cpu="3", pods="110")]
    snapshot = Snapshot.from_objects(nodes, placed)
    assert check_cluster_resource(snapshot.list(), min_resources, "ns/pg1") == want


# --- Permit -------------------------------------------------------------------------------------
@pytest.mark.parametrize("pod,placed,pgs,args,want_status,want_timeout", [
    pytest.param(member("pod1"), [], [make_pg("pg1", min_member=2)], {}, None, 0,
                 id="pods do not belong to any podGroup"),
    pytest.param(member("pod1", group="pg-non-existent"), [], [make_pg("pg1")], {},
                 Status.unschedulable("PodGroup not found"), 0,
                 id="pod specifies a non-existent pg"),
    pytest.param(member("pod1", group="pg1"), [], [make_pg("pg1", min_member=2)],
                 {"permitWaitingTimeSeconds": 10}, Status(Code.WAIT), 10,
                 id="pods belong to a podGroup, Wait"),
    pytest.param(member("pod1", group="pg2"), [], [make_pg("pg2", min_member=1)], {}, None, 0,
                 id="pods belong to a podGroup, Allow"),
    pytest.param(member("p1a", group="pg1"), [member("p1b", group="pg1", node="node")],
                 [make_pg("pg1", min_member=2)], {}, None, 0,
                 id="pod belongs to a pg that have quorum satisfied"),
    pytest.param(member("p1a", group="pg1"), [member("p1b", "ns2", "pg1", node="node")],
                 [make_pg("pg1", min_member=2)], {}, Status(Code.WAIT), 60,
                 id="a member of a same-named group elsewhere is no quorum"),
    pytest.param(member("pod1", group="pg1"), [], [make_pg("pg1", timeout=5)],
                 {"permitWaitingTimeSeconds": 10}, Status(Code.WAIT), 5,
                 id="the group's scheduleTimeoutSeconds wins over the plugin's"),
    pytest.param(member("pod1", group="pg1"), [], [make_pg("pg1", timeout=0)],
                 {"permitWaitingTimeSeconds": 10}, Status(Code.WAIT), 10,
                 id="a zero scheduleTimeoutSeconds leaves the plugin's"),
    pytest.param(member("pod1", group="pg1"), [], [make_pg("pg1")],
                 {"permitWaitingTimeSeconds": 0}, Status(Code.WAIT), 60,
                 id="no timeout anywhere waits the default minute"),
])
def test_permit(pod, placed, pgs, args, want_status, want_timeout):
    handle = handle_with(pgs, placed=placed)
    status, timeout = plugin(handle, **args).permit(CycleState(), pod, "node")
    assert (status, timeout) == (want_status, want_timeout)


def test_permit_allows_the_waiting_members_once_the_quorum_is_reached():
    mates = [FakeWaitingPod(member(n, group="pg")) for n in ("a", "b")]
    stranger = FakeWaitingPod(member("c", "ns2", "pg"))
    handle = handle_with([make_pg("pg", min_member=3)], waiting=[*mates, stranger])
    status, _ = plugin(handle).permit(CycleState(), member("d", group="pg"), "node")
    assert status is None
    assert [w.allowed_by for w in mates] == [["Coscheduling"], ["Coscheduling"]]
    assert stranger.allowed_by == []


def test_permit_wait_activates_the_siblings():
    siblings = [member("a", group="pg"), member("b", group="pg")]
    others = [member("c", group="other"), member("d", "ns2", "pg")]
    pod = member("p", group="pg")
    handle = handle_with([make_pg("pg", min_member=4)], pending=[pod, *siblings, *others])
    status, _ = plugin(handle).permit(CycleState(), pod, "node")
    assert status.is_wait()
    assert handle.activated == siblings


# --- PostFilter ---------------------------------------------------------------------------------
def group_members(count, placed_on="node"):
    return [member(f"m{i}", group="pg", node=placed_on) for i in range(count)]


@pytest.mark.parametrize("pod,min_member,placed,args,want", [
    pytest.param(member("pod1"), 2, [], {}, Status.unschedulable("can not find pod group"),
                 id="pod does not belong to any pod group"),
    pytest.param(member("pod1", group="pg"), 2, group_members(2), {}, Status(Code.UNSCHEDULABLE),
                 id="enough pods assigned, do not reject all"),
    pytest.param(member("pod1", group="pg"), 10, group_members(8), {},
                 Status(Code.UNSCHEDULABLE), id="a gap of 10% tries the next members"),
    pytest.param(member("pod1", group="pg"), 2, [], {},
                 Status.unschedulable("PodGroup ns1/pg gets rejected due to Pod pod1 is "
                                      "unschedulable even after PostFilter"),
                 id="pod failed at filter phase, reject all pods"),
    pytest.param(member("pod1", group="pg"), 10, group_members(8),
                 {"podGroupRejectPercentage": 0},
                 Status.unschedulable("PodGroup ns1/pg gets rejected due to Pod pod1 is "
                                      "unschedulable even after PostFilter"),
                 id="a zero reject percentage gives up at any gap"),
    pytest.param(member("pod1", group="pg"), 4, [], {"podGroupRejectPercentage": 100},
                 Status(Code.UNSCHEDULABLE), id="a full reject percentage never gives up"),
])
def test_post_filter(pod, min_member, placed, args, want):
    # The waiting member counts as assigned, as an assumed pod in Go's snapshot does.
    waiting = FakeWaitingPod(member("w", group="pg"))
    handle = handle_with([make_pg("pg", min_member=min_member)], placed=placed,
                         waiting=[waiting])
    result, status = plugin(handle, **args).post_filter(CycleState(), pod, None)
    assert result is not None and not result.nominated_node_name
    assert status == want
    rejected = [("Coscheduling", "optimistic rejection in PostFilter")]
    assert waiting.rejected == (rejected if status.message().startswith("PodGroup") else [])


def test_post_filter_backs_the_group_off():
    pods = [member(f"m{i}", group="pg") for i in range(3)]
    handle = handle_with([make_pg("pg", min_member=3)], pending=pods)
    pl = plugin(handle, podGroupBackoffSeconds=30)
    pl.post_filter(CycleState(), pods[0], None)
    backed_off = Status.unresolvable("podGroup ns1/pg failed recently")
    handle._now = 30.0
    assert pl.pre_filter(CycleState(), pods[1], [])[1] == backed_off
    handle._now = 30.5
    assert pl.pre_filter(CycleState(), pods[1], [])[1] is None


def test_post_filter_does_not_back_off_a_group_short_of_pods():
    pods = [member(f"m{i}", group="pg") for i in range(2)]
    handle = handle_with([make_pg("pg", min_member=3)], pending=pods)
    pl = plugin(handle, podGroupBackoffSeconds=30)
    pl.post_filter(CycleState(), pods[0], None)
    assert pl.pre_filter(CycleState(), pods[1], [])[1] == \
        Status.unresolvable(ENOUGH.format("m1", 2, 3))


# --- Unreserve ----------------------------------------------------------------------------------
def test_unreserve_rejects_the_waiting_members_of_the_group():
    mates = [FakeWaitingPod(member(n, group="pg")) for n in ("a", "b")]
    strangers = [FakeWaitingPod(member("c", "ns2", "pg")), FakeWaitingPod(member("d"))]
    handle = handle_with([make_pg("pg")], waiting=[*mates, *strangers])
    pl = plugin(handle)
    assert pl.reserve(CycleState(), member("e", group="pg"), "node") is None
    pl.unreserve(CycleState(), member("e", group="pg"), "node")
    assert [w.rejected for w in mates] == [[("Coscheduling", "rejection in Unreserve")]] * 2
    assert [w.rejected for w in strangers] == [[], []]


def test_unreserve_of_a_pod_in_no_group_rejects_nobody():
    waiting = FakeWaitingPod(member("a", group="pg"))
    handle = handle_with([make_pg("pg")], waiting=[waiting])
    plugin(handle).unreserve(CycleState(), member("e"), "node")
    assert waiting.rejected == []


@pytest.mark.parametrize("pg", [
    pytest.param({**make_pg("pg"), "apiVersion": "scheduling.volcano.sh/v1beta1"},
                 id="a Volcano PodGroup is not ours"),
    pytest.param({**make_pg("pg"), "spec": {"minMember": "four"}},
                 id="a PodGroup with an unreadable minMember is ignored"),
])
def test_pod_groups_the_plugin_does_not_read(pg):
    handle = handle_with([pg])
    status, _ = plugin(handle).permit(CycleState(), member("p", group="pg"), "node")
    assert status == Status.unschedulable("PodGroup not found")


def test_events_to_register():
    assert plugin(handle_with()).events_to_register() == {
        "AssignedPodAdd", "PodGroupAdd", "PodGroupUpdate"}


# --- args ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("args,want", [
    pytest.param({}, {"permitWaitingTimeSeconds": 60, "podGroupBackoffSeconds": 0,
                      "podGroupRejectPercentage": 10}, id="all defaults"),
    pytest.param({"permitWaitingTimeSeconds": 5, "podGroupBackoffSeconds": None},
                 {"permitWaitingTimeSeconds": 5, "podGroupBackoffSeconds": 0,
                  "podGroupRejectPercentage": 10}, id="given values stay, nulls are defaulted"),
])
def test_default_args(args, want):
    assert default_args(args) == want


@pytest.mark.parametrize("args,want", [
    pytest.param({}, [], id="defaults are valid"),
    pytest.param({"permitWaitingTimeSeconds": -1},
                 ["args.permitWaitingTimeSeconds: Invalid value: -1: must be greater than 0"],
                 id="negative permitWaitingTimeSeconds"),
    pytest.param({"podGroupBackoffSeconds": -5},
                 ["args.podGroupBackoffSeconds: Invalid value: -5: must be greater than 0"],
                 id="negative podGroupBackoffSeconds"),
    pytest.param({"podGroupRejectPercentage": 101},
                 ["args.podGroupRejectPercentage: Invalid value: 101: must be between 0 and 100"],
                 id="podGroupRejectPercentage above 100"),
    pytest.param({"permitWaitingTimeSeconds": "10s"},
                 ['args.permitWaitingTimeSeconds: Invalid value: "10s": must be an integer'],
                 id="a duration string is not seconds"),
])
def test_validate_args(args, want):
    assert validate_args(default_args(args), "args") == want


def test_new_rejects_invalid_args():
    with pytest.raises(ConfigError, match="podGroupRejectPercentage"):
        plugin(handle_with(), podGroupRejectPercentage=-1)


# --- through the scheduler ----------------------------------------------------------------------
QUEUE_SORT = {"enabled": [{"name": "Coscheduling"}], "disabled": [{"name": "*"}]}


def config(plugins: dict | None = None, args: dict | None = None) -> dict:
    # DefaultPreemption is left out: these runs are about Coscheduling alone.
    plugins = {"multiPoint": {"enabled": [{"name": "Coscheduling"}],
                              "disabled": [{"name": "DefaultPreemption"}]},
               "queueSort": QUEUE_SORT, **(plugins or {})}
    profile = {"schedulerName": "default-scheduler", "plugins": plugins}
    if args:
        profile["pluginConfig"] = [{"name": "Coscheduling", "args": args}]
    return {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
            "profiles": [profile]}


def gang(size, min_member, nodes, timeout=10, cfg=None, gated=(), finished=()):
    docs = [make_node(f"node-{i}", cpu="2") for i in range(nodes)]
    docs.append(make_pg("train", "default", min_member, created=-60, timeout=timeout))
    for i in range(size):
        pod = make_pod(f"w-{i}", cpu="1500m", labels={POD_GROUP_LABEL: "train"})
        if i in gated:
            pod["spec"]["schedulingGates"] = [{"name": "example.com/not-ready"}]
        if i in finished:
            pod["spec"]["nodeName"] = "node-0"
            pod["status"] = {"phase": "Succeeded"}
        docs.append(pod)
    docs.append(cfg or config())
    trace = TraceObserver()
    scheduler = load_scheduler(["gang.yaml"], observer=trace, out_of_tree=OUT_OF_TREE,
                                texts={"gang.yaml": yaml.safe_dump_all(docs)})
    return scheduler, trace


def test_a_profile_needs_prioritysort_out_of_queue_sort():
    cfg = config({"queueSort": {}})
    with pytest.raises(ConfigError, match="only one queue sort plugin required"):
        gang(2, 2, 2, cfg=cfg)


def test_a_member_that_fits_nowhere_rejects_the_waiting_ones_in_post_filter():
    scheduler, trace = gang(4, 4, nodes=3)
    scheduler.run(max_cycles=5)
    cycles = trace.to_list()[:4]
    assert [c["outcome"] for c in cycles] == ["Rejected"] * 3 + ["Unschedulable"]
    assert {c["message"] for c in cycles[:3]} == {
        "0/1 nodes are available: 1 optimistic rejection in PostFilter."}
    # DynamicResources' PostFilter comes first in the v1.34 default profile.
    assert cycles[3]["postFilter"] == [{
        "plugin": "DynamicResources", "code": "Unschedulable",
        "reasons": []}, {
        "plugin": "Coscheduling", "code": "Unschedulable",
        "reasons": ["PodGroup default/train gets rejected due to Pod w-3 is unschedulable even "
                    "after PostFilter"]}]
    assert all(c["time"] == 0.0 for c in cycles)


def test_too_few_members_are_turned_away_at_pre_filter():
    scheduler, trace = gang(2, 3, nodes=3)
    scheduler.run(max_cycles=2)
    # PostFilter still runs after a PreFilter rejection, and gives the group up.
    assert [c["message"] for c in trace.to_list()] == [
        f"0/3 nodes are available: {ENOUGH.format(name, 2, 3)}. "
        f"PodGroup default/train gets rejected due to Pod {name} is unschedulable even after "
        "PostFilter"
        for name in ("w-0", "w-1")]


def test_finished_members_do_not_count():
    scheduler, trace = gang(3, 3, nodes=3, finished=[2])
    scheduler.run(max_cycles=1)
    assert trace.to_list()[0]["message"].startswith(
        f"0/3 nodes are available: {ENOUGH.format('w-0', 2, 3)}.")


def test_a_gated_sibling_stays_gated_when_activated():
    scheduler, trace = gang(2, 2, nodes=2, gated=[1])
    scheduler.run()
    # w-0 waits for a sibling that never comes, times out, and nothing can help it after that.
    assert [(c["pod"], c["outcome"]) for c in trace.to_list()] == [("default/w-0", "Rejected")]
    assert trace.to_list()[0]["message"] == (
        "0/1 nodes are available: 1 rejected due to timeout after waiting 10s at plugin "
        "Coscheduling.")
    assert scheduler.queue.unschedulable["default/w-1"].queue == "gated"


def test_the_quorum_binds_every_member():
    scheduler, trace = gang(3, 3, nodes=3)
    scheduler.run()
    assert sorted(scheduler.bindings.values()) == ["node-0", "node-1", "node-2"]
    permits = [c["permit"] for c in trace.to_list()]
    assert permits[:2] == [[{"plugin": "Coscheduling", "code": "Wait", "reasons": [],
                             "node": c["node"], "timeout": 10.0}] for c in trace.to_list()[:2]]
    assert permits[2][0]["code"] == "Success"


def test_coscheduling_module_is_not_in_tree():
    from scheduler_core.plugins.registry import IN_TREE
    assert "Coscheduling" not in IN_TREE
    assert coscheduling.NAME == "Coscheduling"
