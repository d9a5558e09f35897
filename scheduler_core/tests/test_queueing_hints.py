"""QueueingHints in the queue, after scheduling_queue_test.go:
TestPriorityQueue_isPodWorthRequeuing, TestPriorityQueue_requeuePodViaQueueingHint and the
in-flight cases of
TestPriorityQueue_AddUnschedulableIfNotPresent (determineSchedulingHintForInFlightPod)."""
import pytest

from scheduler_core.framework.queueing_hint import QUEUE, QUEUE_SKIP
from scheduler_core.queue import (
    ACTIVE,
    AFTER_BACKOFF,
    BACKOFF,
    IMMEDIATELY,
    SKIP,
    UNSCHEDULABLE,
    ClusterEvent,
    SchedulingQueue,
)
from scheduler_core.testing import make_pod, pod_info


def queue_with(hints: dict, now=0.0):
    """hints: {plugin: {event: fn or None}}; plugins not listed register nothing."""
    clock = {"now": now}
    q = SchedulingQueue(lambda a, b: a.seq < b.seq, lambda pod: None, lambda: clock["now"],
                        hints_of=lambda pod, plugin: hints.get(plugin, {}))
    return q, clock


def failed(q, name="p", unschedulable=(), pending=()):
    """A pod popped and rejected by the given plugins, now in the pool."""
    q.add(pod_info(make_pod(name)))
    qpi = q.pop()
    qpi.unschedulable_plugins, qpi.pending_plugins = set(unschedulable), set(pending)
    q.add_unschedulable(qpi)
    return qpi


def queue_fn(pod, old, new):
    return QUEUE


def skip_fn(pod, old, new):
    return QUEUE_SKIP


def error_fn(pod, old, new):
    raise ValueError("unexpected object")


NODE_ADD = ClusterEvent("NodeAdd", new={"metadata": {"name": "n"}})


@pytest.mark.parametrize("hints, unschedulable, pending, event, want, said", [
    pytest.param({"foo": {"NodeAdd": skip_fn}}, [], [], NODE_ADD, AFTER_BACKOFF, [],
                 id="return Queue when no queueing hint function is registered for the event "
                    "and the pod has no rejecting plugin"),
    pytest.param({"foo": {"NodeAdd": skip_fn}}, ["foo"], [], ClusterEvent("flush",
                 wildcard=True), AFTER_BACKOFF, [],
                 id="Queue from the wildcard event, whatever the hints"),
    pytest.param({"foo": {"NodeAdd": skip_fn}}, ["foo"], [], NODE_ADD, SKIP,
                 [{"event": "NodeAdd", "plugin": "foo", "hint": QUEUE_SKIP}],
                 id="QueueSkip when the only rejecting plugin's hint says skip"),
    pytest.param({"foo": {"NodeAdd": error_fn}}, ["foo"], [], NODE_ADD, AFTER_BACKOFF,
                 [{"event": "NodeAdd", "plugin": "foo", "hint": QUEUE,
                   "error": "unexpected object"}],
                 id="Queue when the hint function returns an error"),
    pytest.param({"foo": {"NodeAdd": None}}, ["foo"], [], NODE_ADD, AFTER_BACKOFF,
                 [{"event": "NodeAdd", "plugin": "foo", "hint": QUEUE}],
                 id="Queue when the registered hint function is nil"),
    pytest.param({"foo": {"AssignedPodAdd": queue_fn}}, ["foo"], [], NODE_ADD, SKIP, [],
                 id="QueueSkip when the rejecting plugin did not register the event"),
    pytest.param({"foo": {"NodeAdd": skip_fn}, "bar": {"NodeAdd": queue_fn}}, ["foo", "bar"],
                 [], NODE_ADD, AFTER_BACKOFF,
                 [{"event": "NodeAdd", "plugin": "bar", "hint": QUEUE}],
                 id="Queue when one of the rejecting plugins says Queue"),
    pytest.param({"foo": {"NodeAdd": queue_fn}, "bar": {"NodeAdd": queue_fn}}, ["foo"],
                 ["bar"], NODE_ADD, IMMEDIATELY,
                 [{"event": "NodeAdd", "plugin": "bar", "hint": QUEUE}],
                 id="QueueImmediately when a Pending plugin says Queue"),
    pytest.param({"*": {}, "foo": {"*": None}}, ["foo"], [], NODE_ADD, AFTER_BACKOFF,
                 [{"event": "NodeAdd", "plugin": "foo", "hint": QUEUE}],
                 id="a plugin without EnqueueExtensions is woken by every event"),
])
def test_is_pod_worth_requeuing(hints, unschedulable, pending, event, want, said):
    q, _ = queue_with(hints)
    qpi = failed(q, unschedulable=unschedulable, pending=pending)
    assert q.worth_requeuing(qpi, event) == (want, said)


def test_an_update_without_its_old_object_queues_instead_of_guessing():
    q, _ = queue_with({"foo": {"NodeUpdate": skip_fn}})
    qpi = failed(q, unschedulable=["foo"])
    strategy, said = q.worth_requeuing(qpi, ClusterEvent("NodeUpdate", new={}))
    assert strategy == AFTER_BACKOFF and said[0]["hint"] == QUEUE and "old object" in \
        said[0]["error"]


@pytest.mark.parametrize("hint, pending, now, want", [
    pytest.param(skip_fn, False, 0.0, UNSCHEDULABLE, id="skip: the pod stays in the pool"),
    pytest.param(queue_fn, False, 0.0, BACKOFF, id="Queue while backing off: backoffQ"),
    pytest.param(queue_fn, False, 5.0, ACTIVE, id="Queue after the backoff: activeQ"),
    pytest.param(queue_fn, True, 0.0, ACTIVE, id="Queue from a Pending plugin skips backoff"),
])
def test_requeue_pod_via_queueing_hint(hint, pending, now, want):
    q, clock = queue_with({"foo": {"NodeAdd": hint}})
    qpi = failed(q, unschedulable=[] if pending else ["foo"], pending=["foo"] if pending else [])
    clock["now"] = now
    q.move_all_to_active_or_backoff(NODE_ADD)
    assert qpi.queue == want
    if want != UNSCHEDULABLE:
        assert qpi.last_move == {"event": "NodeAdd", "hints": [
            {"event": "NodeAdd", "plugin": "foo", "hint": QUEUE}]}


@pytest.mark.parametrize("hint, events, want", [
    pytest.param(queue_fn, [NODE_ADD], BACKOFF,
                 id="an event in flight that a rejecting plugin queues: backoffQ"),
    pytest.param(skip_fn, [NODE_ADD], UNSCHEDULABLE,
                 id="an event in flight that the hints skip: the pool"),
    pytest.param(queue_fn, [], UNSCHEDULABLE, id="no event in flight: the pool"),
])
def test_events_while_in_flight_decide_where_a_failed_pod_goes(hint, events, want):
    q, _ = queue_with({"foo": {"NodeAdd": hint}})
    q.add(pod_info(make_pod("p")))
    qpi = q.pop()
    for event in events:
        q.move_all_to_active_or_backoff(event)
    qpi.unschedulable_plugins = {"foo"}
    q.add_unschedulable(qpi)
    assert qpi.queue == want
    assert qpi.last_move["event"] == "ScheduleAttemptFailure"


def test_events_before_the_pod_was_popped_do_not_count():
    q, _ = queue_with({"foo": {"NodeAdd": queue_fn}})
    q.add(pod_info(make_pod("other")))
    q.add(pod_info(make_pod("p")))
    other = q.pop()                       # keeps the in-flight list alive
    q.move_all_to_active_or_backoff(NODE_ADD)
    qpi = q.pop()
    qpi.unschedulable_plugins = {"foo"}
    q.add_unschedulable(qpi)
    assert qpi.queue == UNSCHEDULABLE and other.queue == "inFlight"


def test_force_activate_of_an_in_flight_pod_requeues_it_when_it_fails():
    q, _ = queue_with({"foo": {"NodeAdd": skip_fn}})
    q.add(pod_info(make_pod("p")))
    qpi = q.pop()
    q.activate([qpi.pod])
    qpi.unschedulable_plugins = {"foo"}
    q.add_unschedulable(qpi)
    assert qpi.queue == BACKOFF
