"""The scheduling queue on the virtual clock: order, backoff, the unschedulable pool, gating."""
import pytest

from scheduler_core.framework.status import Status
from scheduler_core.queue import SchedulingQueue
from scheduler_core.testing import make_node, make_pod, pod_info
from scheduler_core.testing.fakes import configuration, fake, profile, run

NODES = [make_node("n1"), make_node("n2")]


def times_of(cycles, pod="default/p"):
    return [c["time"] for c in cycles if c["pod"] == pod]


def test_active_queue_order_is_priority_then_arrival():
    pods = [make_pod("p0", priority=0), make_pod("p10a", priority=10),
            make_pod("p5", priority=5), make_pod("p10b", priority=10),
            make_pod("p5b", priority=5)]
    _, cycles = run([], NODES, pods)
    assert [c["pod"] for c in cycles] == [
        "default/p10a", "default/p10b", "default/p5", "default/p5b", "default/p0"]


@pytest.mark.parametrize("backoff,want", [
    # After one retry at the maximum with nothing changed, the pod waits for a cluster change.
    # Backoff ends are truncated to 1s windows, a window released when the clock leaves it
    # (SchedulerPopFromBackoffQ): 0+1 -> 2, 2+2 -> 5, 5+4 -> 10, 10+8 -> 19, 19+10 -> 30.
    pytest.param({}, [0.0, 2.0, 5.0, 10.0, 19.0, 30.0],
                 id="1s doubling to the 10s default maximum"),
    pytest.param({"podInitialBackoffSeconds": 2, "podMaxBackoffSeconds": 5},
                 [0.0, 3.0, 8.0, 14.0], id="configured initial and maximum"),
])
def test_a_failing_pod_backs_off_exponentially_on_the_virtual_clock(backoff, want):
    f = fake("F", filter=Status.as_error("flaky"))
    config = configuration(profile("F"), **backoff)
    _, cycles = run([f], NODES, [make_pod("p")], config=config, max_cycles=7)
    assert times_of(cycles) == want
    assert {c["outcome"] for c in cycles} == {"Error"}


def test_backoff_duration_table():
    q = SchedulingQueue(lambda a, b: True, lambda pod: None, lambda: 0.0, 1, 10)
    qpi = q.add(pod_info(make_pod("p")))
    durations = []
    for attempts in range(7):
        qpi.attempts = attempts
        durations.append(q.backoff_duration(qpi))
    assert durations == [0.0, 1.0, 2.0, 4.0, 8.0, 10.0, 10.0]


def test_backoff_completes_when_the_clock_passes_each_pods_expiry_whatever_the_order_of_arrival():
    now = [0.0]
    q = SchedulingQueue(lambda a, b: a.seq < b.seq, lambda pod: None, lambda: now[0], 1, 10)

    def fail(name: str, attempts: int):
        qpi = q.add(pod_info(make_pod(name)))
        assert q.pop() is qpi
        qpi.attempts = attempts
        q.add_unschedulable(qpi)   # no rejecting plugin: backoffQ
        return qpi

    late, early = fail("late", 3), fail("early", 1)   # backoff 4s, then 1s
    q.flush_backoff_completed()
    assert set(q.backoff) == {late.pod.uid, early.pod.uid}
    for t, left in ((1.5, {late.pod.uid, early.pod.uid}), (2.0, {late.pod.uid}),
                    (4.5, {late.pod.uid}), (5.0, set())):
        now[0] = t
        q.flush_backoff_completed()
        assert set(q.backoff) == left, t
    # Emptied, then a pod backs off again: it too completes when its time comes.
    while (done := q.pop()) is not None:
        q.done(done.pod.uid)
    again = fail("again", 2)   # at 5.0, 2s
    now[0] = 7.0
    q.flush_backoff_completed()
    assert set(q.backoff) == {again.pod.uid}
    now[0] = 8.0
    q.flush_backoff_completed()
    assert not q.backoff


def company_filter(events=None):
    """A Filter rejecting "waiter" while no node runs a pod; it reads the cycle's snapshot."""
    plugin = None

    def filter_(state, pod, node_info):
        if pod.name == "waiter" and not any(ni.pods for ni in plugin.handle.snapshot.list()):
            return Status.unschedulable("waiting for company")
        return None

    plugin = fake("Company", filter=filter_, events=events)
    return plugin


def test_a_cluster_event_moves_a_rejected_pod_back_and_an_idle_scheduler_pops_it():
    # A newly bound pod only moves pods whose required pod affinity it matches (or that
    # PodTopologySpread rejected): AssignedPodAdded's pre-check in the scheduling queue.
    affinity = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "other"}},
         "topologyKey": "kubernetes.io/hostname"}]}}
    pods = [make_pod("waiter", priority=10, affinity=affinity),
            make_pod("other", labels={"app": "other"})]
    sched, cycles = run([company_filter()], NODES, pods)
    # The event puts the pod in backoffQ; with activeQ empty the scheduler pops it at once
    # (SchedulerPopFromBackoffQ) instead of waiting for its backoff to end.
    assert [(c["pod"], c["time"], c["outcome"]) for c in cycles] == [
        ("default/waiter", 0.0, "Unschedulable"),
        ("default/other", 0.0, "Bound"),
        ("default/waiter", 0.0, "Bound"),
    ]


def test_an_unregistered_event_leaves_the_pod_until_the_unschedulable_flush():
    pods = [make_pod("waiter", priority=10), make_pod("other")]
    sched, cycles = run([company_filter(events={"NodeAdd"})], NODES, pods)
    # podMaxInUnschedulablePodsDuration is 5 minutes, checked every 30 seconds; a pod moves
    # once it has stayed strictly longer, so at the tick after 300s.
    assert [(c["pod"], c["time"]) for c in cycles] == [
        ("default/waiter", 0.0), ("default/other", 0.0), ("default/waiter", 330.0)]
    assert sched.bindings["default/waiter"] is not None


def test_a_pod_nothing_can_help_stays_pending_and_the_run_ends():
    f = fake("F", filter=Status.unschedulable("never"))
    sched, cycles = run([f], NODES, [make_pod("p")])
    assert len(cycles) == 1
    assert sched.pending_reasons() == {"default/p": "0/2 nodes are available: 2 never."}


def test_pre_enqueue_keeps_a_pod_out_of_the_active_queue():
    gate = fake("Gate", pre_enqueue=lambda pod: Status.unresolvable("held by Gate")
                if pod.labels.get("hold") else None)
    pods = [make_pod("held", labels={"hold": "yes"}), make_pod("free")]
    sched, cycles = run([gate], NODES, pods)
    assert [c["pod"] for c in cycles] == ["default/free"]
    assert sched.bindings["default/held"] is None
    assert sched.pending_reasons() == {"default/held": "held by Gate"}
    assert sched.queue.unschedulable["default/held"].gated_by == "Gate"


def test_in_tree_scheduling_gates_hold_a_gated_pod():
    pod = make_pod("gated", schedulingGates=[{"name": "example.com/wait"}])
    sched, cycles = run([], NODES, [pod, make_pod("free")], enabled=["SchedulingGates"])
    assert [c["pod"] for c in cycles] == ["default/free"]
    assert sched.pending_reasons()["default/gated"] == (
        "waiting for scheduling gates: [example.com/wait]")


def test_a_pod_whose_scheduler_name_has_no_profile_stays_pending():
    pod = make_pod("other", schedulerName="not-mine")
    sched, cycles = run([], NODES, [pod])
    assert cycles == []
    assert sched.pending_reasons() == {"default/other": 'no profile for schedulerName "not-mine"'}


def test_each_profile_schedules_its_own_pods():
    only_n2 = fake("OnlyN2", filter=lambda s, p, ni: None if ni.name == "n2"
                   else Status.unresolvable("not n2"))
    config = configuration(profile(), profile("OnlyN2", name="second"))
    pods = [make_pod("a"), make_pod("b", schedulerName="second")]
    sched, cycles = run([only_n2], NODES, pods, config=config)
    assert {c["pod"]: c["profile"] for c in cycles} == {
        "default/a": "default-scheduler", "default/b": "second"}
    assert sched.bindings["default/b"] == "n2"
