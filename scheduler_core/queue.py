"""The scheduling queue (backend/queue/scheduling_queue.go) on a virtual clock.

activeQ is a heap in QueueSort order; backoffQ holds pods until their backoff expires;
the unschedulable pool holds pods until a cluster event that may help them, or the flush of
pods that stayed longer than the maximum; gated pods wait there until PreEnqueue passes.

As with SchedulerPopFromBackoffQ (beta, on by default since v1.33): backoff expiries are
truncated to whole-second windows and a pod completes its backoff once the clock has left its
window; when activeQ is empty, the scheduler pops the head of backoffQ at once, except pods
that failed with an error (no rejecting plugin), which always wait out their backoff.

As with QueueingHints (on by default since v1.32): a cluster event moves a pod out of the pool
only when the hint of one of the plugins that rejected it says Queue (Queue from a plugin that
left the pod Pending skips the backoff), and the events seen while a pod was being scheduled
(in flight) decide where it goes when it fails (determineSchedulingHintForInFlightPod).
"""
from __future__ import annotations

import functools
import heapq
import itertools
import math

from .framework.queueing_hint import ANY_EVENT, QUEUE, QUEUE_SKIP

MAX_UNSCHEDULABLE_STAY = 5 * 60.0   # podMaxInUnschedulablePodsDuration
UNSCHEDULABLE_FLUSH_PERIOD = 30.0
BACKOFF_WINDOW = 1.0                # backoffQOrderingWindowDuration

ACTIVE, BACKOFF, UNSCHEDULABLE, GATED, IN_FLIGHT = (
    "activeQ", "backoffQ", "unschedulablePods", "gated", "inFlight")
# queueingStrategy, in increasing strength.
SKIP, AFTER_BACKOFF, IMMEDIATELY = 0, 1, 2
# Events the queue raises itself (internal/queue/events.go); the flush is a wildcard event.
POD_ADD, ATTEMPT_FAILURE, BACKOFF_COMPLETE = "PodAdd", "ScheduleAttemptFailure", "BackoffComplete"
UNSCHEDULABLE_TIMEOUT, FORCE_ACTIVATE = "UnschedulableTimeout", "ForceActivate"
# Errors a ported hint function may raise on an object it cannot read: Go's error return,
# which counts as Queue so that no pod is stranded in the pool.
HINT_ERRORS = (AttributeError, KeyError, TypeError, ValueError, IndexError)


class ClusterEvent:
    """An event with its objects; a wildcard one (`target` a pod uid or None) moves every pod,
    or only its target, whatever the hints say."""

    __slots__ = ("name", "old", "new", "wildcard", "target")

    def __init__(self, name: str, old=None, new=None, wildcard: bool = False, target=None):
        self.name, self.old, self.new = name, old, new
        self.wildcard, self.target = wildcard, target

    def lacks_old_object(self) -> bool:
        """An update delivered without the object as it was: hints cannot compare."""
        return self.name.endswith("Update") and self.old is None


class QueuedPodInfo:
    __slots__ = ("pod", "timestamp", "initial_attempt", "attempts", "seq", "queue",
                 "unschedulable_plugins", "pending_plugins", "gated_by", "message", "_less",
                 "flight_from", "last_move")

    def __init__(self, pod, timestamp: float, seq: int, less):
        self.pod = pod
        self.timestamp = timestamp
        self.initial_attempt = None
        self.attempts = 0
        self.seq = seq
        self.queue = ""
        self.unschedulable_plugins: set[str] = set()
        self.pending_plugins: set[str] = set()
        self.gated_by = ""
        self.message = ""
        self._less = less
        self.flight_from = 0     # the in-flight events that came after this pod was popped
        # Why the pod made its last move: {"event": ..., "hints": [{"plugin", "hint"}, ...]}.
        self.last_move: dict | None = None

    def __lt__(self, other: QueuedPodInfo) -> bool:
        return self._less(self, other)


class SchedulingQueue:
    def __init__(self, less, pre_enqueue, clock, initial_backoff=1.0, max_backoff=10.0,
                 events=None, hints_of=None):
        """less(a, b): QueueSort; pre_enqueue(pod) -> Status|None; clock() -> now.

        events(kind, qpi) is told every move, for observers of the queue (qpi.last_move says
        why); hints_of(pod, plugin) -> {event: hint function or None} (queueing_hint.py).
        """
        self._hints_of = hints_of or (lambda pod, plugin: {ANY_EVENT: None})
        self._flight_events: list[tuple[int, ClusterEvent]] = []
        self._event_count = 0
        self.popped_from = ""
        self.runner_up: QueuedPodInfo | None = None
        self._less = less
        self._pre_enqueue = pre_enqueue
        self._clock = clock
        self.initial_backoff = float(initial_backoff)
        self.max_backoff = float(max_backoff)
        self._events = events
        self._seq = itertools.count()
        self.active: list[QueuedPodInfo] = []
        self.backoff: dict[str, QueuedPodInfo] = {}
        # At most the earliest backoff expiry of the pods in backoffQ (a pod's does not change
        # while it is there): until the clock passes it, no pod completes its backoff.
        self._backoff_due = -math.inf
        self.unschedulable: dict[str, QueuedPodInfo] = {}
        self.in_flight: dict[str, QueuedPodInfo] = {}
        self.nominated: dict[str, str] = {}            # pod uid -> node name
        self._nominated_pods: dict[str, dict] = {}     # node name -> {uid: PodInfo}

    # --- adding ------------------------------------------------------------------------------
    def add(self, pod) -> QueuedPodInfo:
        qpi = QueuedPodInfo(pod, self._clock(), next(self._seq), self._less)
        qpi.last_move = {"event": POD_ADD}
        self._enqueue_gated_or_active(qpi)
        # moveToActiveQ nominates a new pod only once it is in activeQ: a gated one is not.
        if pod.nominated_node_name and qpi.queue == ACTIVE:
            self.add_nominated(pod, pod.nominated_node_name)
        return qpi

    def _enqueue_gated_or_active(self, qpi: QueuedPodInfo) -> None:
        status = self._pre_enqueue(qpi.pod)
        if status is not None and not status.is_success():
            qpi.gated_by, qpi.message = status.plugin, status.message()
            self._place(qpi, GATED)
            return
        qpi.gated_by = ""
        self._place(qpi, ACTIVE)

    def set_listener(self, events) -> None:
        """events(queue, qpi) is told every move from now on; None stops telling."""
        self._events = events

    def _place(self, qpi: QueuedPodInfo, queue: str) -> None:
        qpi.queue = queue
        if queue == ACTIVE:
            heapq.heappush(self.active, qpi)
        elif queue == BACKOFF:
            self.backoff[qpi.pod.uid] = qpi
            self._backoff_due = min(self._backoff_due, self.backoff_expiry(qpi)
                                    if qpi.attempts else -math.inf)
        elif queue in (UNSCHEDULABLE, GATED):
            self.unschedulable[qpi.pod.uid] = qpi
        if self._events is not None:
            self._events(queue, qpi)

    def active_head(self, count: int) -> list[QueuedPodInfo]:
        """The first `count` pods of activeQ in queue order, read off the heap's top without
        sorting it (a frontier over the heap's tree: count log count, whatever its size)."""
        heap, out = self.active, []
        frontier = [(heap[0], 0)] if heap else []
        while frontier and len(out) < count:
            qpi, i = heapq.heappop(frontier)
            out.append(qpi)
            for child in (2 * i + 1, 2 * i + 2):
                if child < len(heap):
                    heapq.heappush(frontier, (heap[child], child))
        return out

    # --- popping -----------------------------------------------------------------------------
    def pop(self) -> QueuedPodInfo | None:
        """The head of activeQ (or, when it is empty, of backoffQ); `popped_from` and
        `runner_up` (the new head of activeQ) say how it won, for QueueSort's trace entry."""
        self.flush_backoff_completed()
        if self.active:
            qpi = heapq.heappop(self.active)
            self.popped_from = ACTIVE
        else:
            qpi = self._pop_backoff()
            if qpi is None:
                return None
            self.popped_from = BACKOFF
        self.runner_up = self.active[0] if self.active else None
        return self._take(qpi)

    def _take(self, qpi: QueuedPodInfo) -> QueuedPodInfo:
        """The pod leaves the queue for a scheduling attempt: in flight from now on."""
        qpi.attempts += 1
        if qpi.initial_attempt is None:
            qpi.initial_attempt = self._clock()
        qpi.queue = IN_FLIGHT
        qpi.unschedulable_plugins, qpi.pending_plugins = set(), set()
        qpi.flight_from = self._event_count
        self.in_flight[qpi.pod.uid] = qpi
        return qpi

    def pop_members(self, belongs) -> list[QueuedPodInfo]:
        """PopSpecificPod for every pod `belongs(pod)` accepts (the rest of a pod group, for
        scheduleOnePodGroup's podGroupInfoForPod), in queue order: from activeQ, backoffQ and
        the unschedulable pool (TestPodGroupInfoForPod pops pool pods); a pod PreEnqueue
        gated is left where it is (not read in Go: PopSpecificPod's source is not stored)."""
        found = [q for q in self.active if belongs(q.pod)]
        if found:
            self.active = [q for q in self.active if not belongs(q.pod)]
            heapq.heapify(self.active)
        for pool in (self.backoff, self.unschedulable):
            for uid in [u for u, q in pool.items() if q.queue != GATED and belongs(q.pod)]:
                found.append(pool.pop(uid))
        return [self._take(q) for q in sorted(found)]

    def done(self, uid: str) -> None:
        """The pod is no longer in flight; with none left, no event needs remembering."""
        self.in_flight.pop(uid, None)
        if not self.in_flight:
            self._flight_events.clear()

    def add_in_flight_event(self, event: ClusterEvent) -> None:
        """addEventIfAnyInFlight: remembered for the pods being scheduled now."""
        self._event_count += 1
        if self.in_flight:
            self._flight_events.append((self._event_count, event))

    # --- backoff -----------------------------------------------------------------------------
    def backoff_duration(self, qpi: QueuedPodInfo) -> float:
        """initial x 2^(attempts-1), capped at max (calculateBackoffDuration)."""
        if qpi.attempts == 0:
            return 0.0
        duration = self.initial_backoff
        for _ in range(1, qpi.attempts):
            if duration > self.max_backoff - duration:
                return self.max_backoff
            duration += duration
        return duration

    def backed_off_to_max(self, qpi: QueuedPodInfo) -> bool:
        """The pod already waited the maximum backoff before this attempt."""
        if qpi.attempts < 2:
            return False
        qpi.attempts -= 1
        previous = self.backoff_duration(qpi)
        qpi.attempts += 1
        return previous >= self.max_backoff

    def backoff_expiry(self, qpi: QueuedPodInfo) -> float:
        """getBackoffTime: the end of the backoff, truncated to its ordering window."""
        return _window(qpi.timestamp + self.backoff_duration(qpi))

    def backoff_release(self, qpi: QueuedPodInfo) -> float:
        """When the pod completes its backoff: once the clock is past its expiry's window."""
        return self.backoff_expiry(qpi) + BACKOFF_WINDOW

    def is_backing_off(self, qpi: QueuedPodInfo) -> bool:
        if qpi.attempts == 0:
            return False  # a pod never tried owes no backoff
        return self.backoff_expiry(qpi) >= _window(self._clock())

    def _backoff_order(self, a: QueuedPodInfo, b: QueuedPodInfo) -> int:
        """lessBackoffCompletedWithPriority (errors: lessBackoffCompleted, then arrival)."""
        ea, eb = self.backoff_expiry(a), self.backoff_expiry(b)
        if ea != eb:
            return -1 if ea < eb else 1
        if not _errored(a) and self._less(a, b):
            return -1
        if not _errored(b) and self._less(b, a):
            return 1
        return -1 if a.seq < b.seq else 1

    def flush_backoff_completed(self) -> None:
        # The clock stands still while pods are scheduled: most pops find nothing completed.
        if self._backoff_due >= _window(self._clock()):
            return
        done = [q for q in self.backoff.values() if not self.is_backing_off(q)]
        for qpi in sorted(done, key=functools.cmp_to_key(self._backoff_order)):
            del self.backoff[qpi.pod.uid]
            qpi.last_move = {"event": BACKOFF_COMPLETE}
            self._place(qpi, ACTIVE)
        self._backoff_due = min((self.backoff_expiry(q) if q.attempts else -math.inf
                                 for q in self.backoff.values()), default=math.inf)

    def _pop_backoff(self) -> QueuedPodInfo | None:
        """popBackoff: the head of the (non-error) backoffQ, backing off or not."""
        waiting = [q for q in self.backoff.values() if not _errored(q)]
        if not waiting:
            return None
        qpi = min(waiting, key=functools.cmp_to_key(self._backoff_order))
        del self.backoff[qpi.pod.uid]
        return qpi

    def next_backoff_expiry(self) -> float | None:
        """When the next pod completes its backoff (pop takes the others when idle)."""
        return min((self.backoff_release(q) for q in self.backoff.values()), default=None)

    # --- failures ----------------------------------------------------------------------------
    def add_unschedulable(self, qpi: QueuedPodInfo, message: str = "") -> None:
        """AddUnschedulableIfNotPresent: the pool, unless an event seen while the pod was in
        flight may have helped it (or no plugin rejected it): then backoff or activeQ."""
        qpi.timestamp = self._clock()
        qpi.message = message
        strategy, hints = self._in_flight_strategy(qpi)
        self.done(qpi.pod.uid)
        qpi.last_move = {"event": ATTEMPT_FAILURE, "hints": hints}
        self._requeue_with_strategy(qpi, strategy)

    def _in_flight_strategy(self, qpi: QueuedPodInfo) -> tuple[int, list[dict]]:
        """determineSchedulingHintForInFlightPod, with the verdicts that decided it."""
        if not qpi.unschedulable_plugins and not qpi.pending_plugins:
            return AFTER_BACKOFF, []
        strategy, hints = SKIP, []
        for seq, event in self._flight_events:
            if seq <= qpi.flight_from:
                continue
            verdict, said = self.worth_requeuing(qpi, event)
            hints += said
            strategy = max(strategy, verdict)
            if strategy == IMMEDIATELY or (strategy and not qpi.pending_plugins):
                break
        return strategy, hints

    def worth_requeuing(self, qpi: QueuedPodInfo, event: ClusterEvent) -> tuple[int, list]:
        """isPodWorthRequeuing: the strategy, and each rejecting plugin's hint on the way."""
        rejectors = qpi.unschedulable_plugins | qpi.pending_plugins
        if not rejectors:
            return AFTER_BACKOFF, []
        if event.wildcard:
            if event.target is not None and event.target != qpi.pod.uid:
                return SKIP, []
            return AFTER_BACKOFF, []
        strategy, said = SKIP, []
        for plugin in sorted(rejectors):   # Go walks a map; sorted, for a stable trace
            hints = self._hints_of(qpi.pod, plugin)
            if event.name not in hints and ANY_EVENT not in hints:
                continue
            fn = hints.get(event.name, hints.get(ANY_EVENT))
            verdict = _call_hint(fn, qpi.pod, event)
            said.append({"event": event.name, "plugin": plugin, **verdict})
            if verdict["hint"] == QUEUE_SKIP:
                continue
            if plugin in qpi.pending_plugins:
                return IMMEDIATELY, said
            if not qpi.pending_plugins:
                return AFTER_BACKOFF, said
            strategy = AFTER_BACKOFF
        return strategy, said

    def _requeue_with_strategy(self, qpi: QueuedPodInfo, strategy: int) -> None:
        """requeuePodWithQueueingStrategy."""
        if strategy == SKIP:
            self._place(qpi, UNSCHEDULABLE)
        elif strategy == AFTER_BACKOFF:
            self._requeue_after_backoff(qpi)
        else:
            self._enqueue_gated_or_active(qpi)

    def park(self, qpi: QueuedPodInfo, message: str = "") -> None:
        """Hold a pod in the pool until a cluster event or the flush, whatever failed it."""
        self.in_flight.pop(qpi.pod.uid, None)
        qpi.timestamp = self._clock()
        qpi.message = message
        self._place(qpi, UNSCHEDULABLE)

    def _requeue_after_backoff(self, qpi: QueuedPodInfo) -> None:
        self._place(qpi, BACKOFF if self.is_backing_off(qpi) else ACTIVE)

    def move_all_to_active_or_backoff(self, event: ClusterEvent, only=None) -> int:
        """movePodsToActiveOrBackoffQueue: each pool pod goes where its rejecting plugins'
        hints send it; the event is then remembered for the pods in flight.

        only(qpi), when given, pre-selects the pods the event may concern at all.
        """
        moved = 0
        for uid, qpi in list(self.unschedulable.items()):
            if qpi.queue == GATED:
                moved += self._gate_hint(uid, qpi, event)
                continue
            if only is not None and not only(qpi):
                continue
            strategy, hints = self.worth_requeuing(qpi, event)
            if strategy == SKIP:
                continue
            del self.unschedulable[uid]
            qpi.last_move = {"event": event.name, "hints": hints}
            self._requeue_with_strategy(qpi, strategy)
            moved += 1
        self.add_in_flight_event(event)
        return moved

    def flush_unschedulable_left_over(self) -> int:
        now = self._clock()
        stale = [q for q in self.unschedulable.values()
                 if q.queue == UNSCHEDULABLE and now - q.timestamp > MAX_UNSCHEDULABLE_STAY]
        for qpi in stale:
            del self.unschedulable[qpi.pod.uid]
            qpi.last_move = {"event": UNSCHEDULABLE_TIMEOUT}
            self._requeue_after_backoff(qpi)
        return len(stale)

    def activate(self, pods) -> None:
        """Activate: back to activeQ from the pool or backoffQ (PreEnqueue still applies); a
        pod in flight gets a ForceActivate event that requeues it when it comes back."""
        for pod in pods:
            qpi = self.unschedulable.pop(pod.uid, None) or self.backoff.pop(pod.uid, None)
            if qpi is not None:
                qpi.last_move = {"event": FORCE_ACTIVATE}
                self._enqueue_gated_or_active(qpi)
            elif pod.uid in self.in_flight:
                self.add_in_flight_event(
                    ClusterEvent(FORCE_ACTIVATE, wildcard=True, target=pod.uid))

    def retry_gated(self) -> None:
        """Re-run PreEnqueue for gated pods (their spec was updated)."""
        for uid, qpi in list(self.unschedulable.items()):
            if qpi.queue == GATED:
                self._retry_gate(uid, qpi, {"event": "UnscheduledPodUpdate"})

    def _retry_gate(self, uid: str, qpi: QueuedPodInfo, move: dict) -> bool:
        """PreEnqueue again for a gated pod: to activeQ when it passes, else left in place
        with the new message. True when it moved."""
        status = self._pre_enqueue(qpi.pod)
        if status is None or status.is_success():
            del self.unschedulable[uid]
            qpi.gated_by = ""
            qpi.last_move = move
            self._place(qpi, ACTIVE)
            return True
        qpi.message = status.message()
        return False

    def _gate_hint(self, uid: str, qpi: QueuedPodInfo, event: ClusterEvent) -> bool:
        """A pod its PreEnqueue plugin gated is retried when that plugin's QueueingHint for
        the event (one it names, such as GangScheduling's UnscheduledPodAdd) says Queue."""
        fn = self._hints_of(qpi.pod, qpi.gated_by).get(event.name) if qpi.gated_by else None
        if fn is None:
            return False
        verdict = _call_hint(fn, qpi.pod, event)
        if verdict["hint"] == QUEUE_SKIP:
            return False
        return self._retry_gate(uid, qpi, {"event": event.name, "hints": [
            {"event": event.name, "plugin": qpi.gated_by, **verdict}]})

    def delete(self, uid: str) -> None:
        self.backoff.pop(uid, None)
        self.unschedulable.pop(uid, None)
        self.in_flight.pop(uid, None)
        # Most deleted pods are bound ones (preemption's victims): activeQ is rebuilt only
        # when the pod is in it.
        if any(q.pod.uid == uid for q in self.active):
            self.active = [q for q in self.active if q.pod.uid != uid]
            heapq.heapify(self.active)
        self.delete_nominated(uid)

    # --- nominator ---------------------------------------------------------------------------
    def add_nominated(self, pod, node_name: str) -> None:
        self.delete_nominated(pod.uid)
        if not node_name:
            return
        pod.nominated_node_name = node_name
        self.nominated[pod.uid] = node_name
        self._nominated_pods.setdefault(node_name, {})[pod.uid] = pod

    def delete_nominated(self, uid: str) -> None:
        node = self.nominated.pop(uid, None)
        if node is not None:
            pods = self._nominated_pods.get(node, {})
            pod = pods.pop(uid, None)
            if pod is not None:
                pod.nominated_node_name = ""
            if not pods:
                self._nominated_pods.pop(node, None)

    def nominated_pods_for_node(self, node_name: str) -> list:
        return list(self._nominated_pods.get(node_name, {}).values())

    def nominated_nodes(self):
        """The names of the nodes some pod is nominated to."""
        return self._nominated_pods.keys()

    # --- views -------------------------------------------------------------------------------
    def pending(self) -> list[QueuedPodInfo]:
        return (sorted(self.active) + sorted(self.backoff.values(), key=self.backoff_expiry)
                + list(self.unschedulable.values()))

    def is_empty(self) -> bool:
        return not self.active and not self.backoff


def _call_hint(fn, pod, event: ClusterEvent) -> dict:
    """{"hint": Queue|QueueSkip} and, when the hint could not judge, the error."""
    if fn is None:
        return {"hint": QUEUE}
    if event.lacks_old_object():
        return {"hint": QUEUE, "error": "the event carries no old object to compare"}
    try:
        return {"hint": fn(pod, event.old, event.new)}
    except HINT_ERRORS as exc:
        return {"hint": QUEUE, "error": str(exc)}


def _window(t: float) -> float:
    return math.floor(t / BACKOFF_WINDOW) * BACKOFF_WINDOW


def _errored(qpi: QueuedPodInfo) -> bool:
    """Failed with no rejecting plugin: the pod is in podErrorBackoffQ."""
    return not qpi.unschedulable_plugins and not qpi.pending_plugins
