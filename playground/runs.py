"""Executing runs: scheduler_core.session.RunSession driven by tasks, stored and streamed.

The API and the websocket call the service functions (`run_start`, `run_step`, `run_pause`,
`run_resume`, `run_reset`); they check the user, take the run's lock and enqueue a task of
scheduler_core.tasks through playground.tasking. The tasks call `advance` and `reset`.

A task advances the engine in chunks (CHUNK_CYCLES cycles or CHUNK_SECONDS, whichever comes
first). After each chunk ONE transaction stores the chunk's CycleRecords (idempotent on
(run, index)), the counters and the run's results (bindings, nominations, victims); only once
it has committed are the chunk's events sent to the channel group `run_<id>`. A worker that
dies mid-chunk therefore leaves the run as it was before that chunk, and whoever takes over
replays the stored cycles (the engine is deterministic) and goes on from there.

One task at a time per run: the lock is a lease in the run row (`lock_token`,
`lock_expires`), taken under `SELECT ... FOR UPDATE NOWAIT` on PostgreSQL (SQLite
serializes writers by itself) and renewed after every chunk. A request that finds a live
lease gets RunBusy ("run is busy", HTTP 409). A lease that nobody renewed in
PLAYGROUND_RUN_LEASE_SECONDS belongs to a dead worker: the next request, or
`recover_stale_runs` (run when a worker starts), takes it over.

Live sessions are cached per process (LRU, RUN_SESSION_CACHE entries) and checked against
the run's cycle count before use: a session that is behind catches up unobserved, one that
is ahead (its chunk did not commit) is rebuilt by replay.

A cycle whose pod waits on Permit is stored open (no outcome yet) with its chunk; its outcome
and the points that follow the wait (Permit's verdict, Unreserve, or PreBind to PostBind) come
in a later chunk. The run's result lists the open cycles (`open`); the session's entry keeps
their recorders, and the chunk in which one finishes rewrites its CycleRecord and streams its
summary again, marked `late`. A session rebuilt by replay observes just those cycles, so a
new worker can finish them too.
"""

from __future__ import annotations

import copy
import logging
import threading
import time
import uuid
from collections import OrderedDict
from contextlib import contextmanager
from datetime import timedelta

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db import OperationalError, transaction
from django.utils import timezone

from playground import tasking
from playground.models import CycleRecord, Run
from playground.selectors import run_writable_by
from playground.services import (
    Conflict,
    InvalidInput,
    cycle_records_from_trace,
    out_of_tree_plugins,
)
from scheduler_core.observe import MultiObserver, Observer, TraceObserver, TraceRecorder
from scheduler_core.session import RunSession
from scheduler_core.stream import LIST_POINTS, SummaryObserver, summarize

logger = logging.getLogger(__name__)

CHUNK_CYCLES = 25
CHUNK_SECONDS = 0.2
# Replaying (no observer) is cheap per cycle; renew the lease at least this often meanwhile.
REPLAY_SLICE_SECONDS = 2.0
RECENT_CYCLES = 20          # cycle summaries kept on the run for a late joiner's snapshot
MAX_QUEUE_EVENTS = 500      # per chunk; beyond that the stream gets queue sizes only
SNAPSHOT_MAX_NODES = 600
DEFAULT_LEASE_SECONDS = 30
DEFAULT_CACHE_SIZE = 4


class RunBusy(Conflict):
    """Another task works on the run (HTTP 409, an error frame on the socket)."""

    def __init__(self, message: str = "run is busy"):
        super().__init__({"detail": [message]})


class RunStateConflict(Conflict):
    """The run's status does not allow the action (e.g. stepping a finished run)."""

    def __init__(self, message: str):
        super().__init__({"detail": [message]})


class TryLater(Exception):
    """A redelivered task whose earlier execution may still be alive (its lease is live)."""

    def __init__(self, countdown: float):
        super().__init__(f"the run's lease is live for {countdown:.1f}s more")
        self.countdown = countdown


def group_name(run_id: int) -> str:
    return f"run_{run_id}"


def lease_seconds() -> float:
    return float(getattr(settings, "PLAYGROUND_RUN_LEASE_SECONDS", DEFAULT_LEASE_SECONDS))


def _lease_live(run: Run, now=None) -> bool:
    now = now or timezone.now()
    return bool(run.lock_token) and run.lock_expires is not None and run.lock_expires > now


def run_busy(run: Run) -> bool:
    """Whether a task holds the run's lock (for the API and the snapshot)."""
    return _lease_live(run)


def max_cycles(session: RunSession) -> int:
    """The engine's own safety limit for a run to the end (Scheduler.run's default)."""
    return 50 * (len(session.scheduler.pods) + 10)


# --- the per-process session cache ----------------------------------------------------------


class _Open:
    """A cycle stored while its pod waited on Permit. Its recorder goes on recording
    (Permit's verdict, Unreserve, PreBind...) until the outcome is set; `marks` says how much
    of each list of plugin calls the stored trace already holds."""

    __slots__ = ("marks", "recorder")

    def __init__(self, recorder: TraceRecorder):
        self.recorder = recorder
        data = recorder.data
        self.marks = {point: len(data[point]) for point in LIST_POINTS}

    def finished(self) -> bool:
        return self.recorder.data["outcome"] is not None

    def merged(self, stored: dict) -> dict:
        """The stored trace with what happened since (idempotent)."""
        data = self.recorder.data
        out = dict(stored)
        for point in LIST_POINTS:
            mark = self.marks[point]
            out[point] = list(stored.get(point) or [])[:mark] + data[point][mark:]
        for key in ("outcome", "node", "message"):
            out[key] = data[key]
        return out


class _OpenCycles(Observer):
    """Replaying: records the cycles the run lists as open, and no other."""

    def __init__(self, indices):
        self.indices = frozenset(indices)
        self.recorders: list[TraceRecorder] = []

    def begin_cycle(self, index, time, pod, profile):
        if index not in self.indices:
            return None
        rec = TraceRecorder(index, time, pod, profile)
        self.recorders.append(rec)
        return rec


class _Entry:
    __slots__ = ("lock", "session", "open")

    def __init__(self):
        self.lock = threading.Lock()
        self.session: RunSession | None = None
        self.open: dict[int, _Open] = {}  # the session's cycles stored open, by index


class SessionCache:
    """LRU of live sessions by run id; each entry's lock serializes the threads using it."""

    def __init__(self):
        self._lock = threading.Lock()
        self._entries: OrderedDict[int, _Entry] = OrderedDict()

    def entry(self, run_id: int) -> _Entry:
        with self._lock:
            entry = self._entries.get(run_id)
            if entry is None:
                entry = self._entries[run_id] = _Entry()
            self._entries.move_to_end(run_id)
            self._evict()
            return entry

    def _evict(self) -> None:
        size = int(getattr(settings, "PLAYGROUND_RUN_SESSION_CACHE", DEFAULT_CACHE_SIZE))
        for run_id, entry in list(self._entries.items()):
            if len(self._entries) <= size:
                break
            # An entry in use stays; it is dropped on a later call.
            if entry.lock.acquire(blocking=False):
                try:
                    del self._entries[run_id]
                    entry.session = None
                finally:
                    entry.lock.release()

    def discard(self, run_id: int) -> None:
        with self._lock:
            entry = self._entries.pop(run_id, None)
        if entry is not None:
            with entry.lock:
                entry.session = None

    def cached_cycles(self, run_id: int) -> int | None:
        with self._lock:
            entry = self._entries.get(run_id)
            session = entry.session if entry is not None else None
        return session.cycles if session is not None else None

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


sessions = SessionCache()


def new_session(run: Run) -> RunSession:
    # The engine annotates the manifests it loads (spec.nodeName on binding): give it copies.
    return RunSession(copy.deepcopy(run.sources()), run.config or None, seed=run.seed,
                      out_of_tree=out_of_tree_plugins())


def _session_at(entry: _Entry, run: Run, heartbeat=None) -> RunSession:
    """entry's session brought to `run.cycle_count` (entry.lock held by the caller).

    heartbeat(): called between replay slices (renews the caller's lease).
    """
    session = entry.session
    wanted = frozenset((run.result or {}).get("open") or ())
    if session is None or session.cycles > run.cycle_count:
        session = new_session(run)
        entry.open = {}
        if heartbeat is not None:  # loading a large cluster takes a while
            heartbeat()
    watch = _OpenCycles(i for i in wanted if i >= session.cycles) if wanted else None
    started = time.monotonic()
    while session.cycles < run.cycle_count and not session.finished:
        session.advance(min(run.cycle_count - session.cycles, 500), observer=watch)
        if heartbeat is not None and time.monotonic() - started > REPLAY_SLICE_SECONDS:
            heartbeat()
            started = time.monotonic()
    if session.cycles != run.cycle_count:
        raise RuntimeError(f"replay stopped at cycle {session.cycles} of {run.cycle_count}")
    if watch is not None:
        for rec in watch.recorders:
            entry.open[rec.data["index"]] = _Open(rec)
    # Only the cycles the run lists are open (another worker may have finished the others).
    entry.open = {i: o for i, o in entry.open.items() if i in wanted and not o.finished()}
    if (run.status == Run.FINISHED and not session.finished
            and (run.result or {}).get("end") == "done"):
        # The last, empty step runs the events after the final cycle (a victim's deletion...).
        session.advance(1, observer=None)
    entry.session = session
    return session


# --- permissions and the lock ---------------------------------------------------------------


def _check_writable(run: Run, user) -> None:
    if not run_writable_by(run, user):
        raise PermissionDenied("only the run's starter and the cluster's owner may drive it")


def _lock_row(run_id: int, *, nowait: bool) -> Run:
    """The run row under SELECT FOR UPDATE (a no-op on SQLite); must be inside atomic().

    Without its documents (the whole cluster): they load on first use, when a session is built.
    """
    try:
        return Run.objects.select_for_update(nowait=nowait).defer("documents").get(pk=run_id)
    except OperationalError as exc:  # PostgreSQL: another transaction holds the row
        raise RunBusy() from exc


def _release(run: Run) -> list[str]:
    run.lock_token, run.lock_expires = "", None
    run.pause_requested, run.target_cycle = False, None
    return ["lock_token", "lock_expires", "pause_requested", "target_cycle"]


def _refresh(run: Run) -> Run:
    run.refresh_from_db()
    return run


ADVANCE_FROM = (Run.CREATED, Run.PAUSED, Run.RUNNING)


def _ticket(run: Run, user, *, cycles: int | None) -> Run:
    """Take the run's lock for a new advance task and enqueue it after commit."""
    from scheduler_core.tasks import run_advance

    _check_writable(run, user)
    with transaction.atomic():
        locked = _lock_row(run.pk, nowait=True)
        if _lease_live(locked):
            raise RunBusy()
        if locked.status not in ADVANCE_FROM:
            raise RunStateConflict(f"run is {locked.status}: reset it to run it again")
        token = uuid.uuid4().hex
        locked.lock_token = token
        locked.lock_expires = timezone.now() + timedelta(seconds=lease_seconds())
        locked.pause_requested = False
        locked.target_cycle = None if cycles is None else locked.cycle_count + cycles
        locked.status = Run.RUNNING
        locked.error = ""
        locked.save(update_fields=["lock_token", "lock_expires", "pause_requested",
                                   "target_cycle", "status", "error", "updated"])
        tasking.enqueue_on_commit(run_advance, run_id=locked.pk, cycles=cycles,
                                  from_cycle=locked.cycle_count, token=token)
    return _refresh(run)


# --- the service functions ------------------------------------------------------------------


def run_start(*, run: Run, user) -> Run:
    """Run to the end (from where the run is: created, paused, or left by a dead worker)."""
    return _ticket(run, user, cycles=None)


def run_resume(*, run: Run, user) -> Run:
    return _ticket(run, user, cycles=None)


def run_step(*, run: Run, user, cycles: int = 1) -> Run:
    if cycles is None or int(cycles) < 1:
        raise InvalidInput({"cycles": ["Ensure this value is greater than or equal to 1."]})
    return _ticket(run, user, cycles=int(cycles))


def run_pause(*, run: Run, user) -> Run:
    """Ask the working task to stop after its current chunk; a no-op when nothing runs."""
    _check_writable(run, user)
    with transaction.atomic():
        locked = _lock_row(run.pk, nowait=False)
        if locked.status == Run.RUNNING:
            if _lease_live(locked):
                locked.pause_requested = True
                locked.save(update_fields=["pause_requested", "updated"])
            else:  # its worker died: nothing will read the flag
                locked.status = Run.PAUSED
                locked.save(update_fields=["status", "updated", *_release(locked)])
    return _refresh(run)


def run_reset(*, run: Run, user) -> Run:
    """Back to cycle 0: the task deletes the cycles and clears counters and results."""
    from scheduler_core.tasks import run_reset as run_reset_task

    _check_writable(run, user)
    with transaction.atomic():
        locked = _lock_row(run.pk, nowait=True)
        if _lease_live(locked):
            raise RunBusy("run is busy: pause it first")
        token = uuid.uuid4().hex
        locked.lock_token = token
        locked.lock_expires = timezone.now() + timedelta(seconds=lease_seconds())
        locked.save(update_fields=["lock_token", "lock_expires", "updated"])
        tasking.enqueue_on_commit(run_reset_task, run_id=locked.pk, token=token)
    return _refresh(run)


# --- task bodies ------------------------------------------------------------------------------


def _claim(run_id: int, token: str | None, *, allow: tuple[str, ...]) -> tuple[Run, str] | None:
    """The lock for this execution: (run, holder) or None when the task has nothing to do.

    token None (a task started by hand): take a free lock or raise RunBusy. A token the run
    still carries: ours. "<token>:<execution>" means the same task ran before: if that
    execution's lease is live it may still be working (TryLater), else it died and we take
    over. Any other token: the task was superseded (reset, a later request): skip it.
    """
    with transaction.atomic():
        try:
            run = _lock_row(run_id, nowait=False)
        except Run.DoesNotExist:
            return None
        now = timezone.now()
        if token is None:
            if _lease_live(run, now):
                raise RunBusy()
            token = uuid.uuid4().hex
        elif run.lock_token.startswith(token + ":"):
            if _lease_live(run, now):
                raise TryLater((run.lock_expires - now).total_seconds() + 1)
            logger.warning("run %s: taking over from a worker that stopped renewing", run_id)
        elif run.lock_token != token:
            logger.info("run %s: task with a superseded ticket skipped", run_id)
            return None
        if run.status not in allow:
            run.save(update_fields=["updated", *_release(run)])
            return None
        holder = f"{token}:{uuid.uuid4().hex[:12]}"
        run.lock_token = holder
        run.lock_expires = now + timedelta(seconds=lease_seconds())
        run.save(update_fields=["lock_token", "lock_expires", "updated"])
        return run, holder


def _renew(run_id: int, holder: str) -> None:
    Run.objects.filter(pk=run_id, lock_token=holder).update(
        lock_expires=timezone.now() + timedelta(seconds=lease_seconds()))


class _Collector:
    """What one chunk observed: full traces for CycleRecords, summary events for the stream."""

    def __init__(self):
        self.trace = TraceObserver()
        self.events: list[dict] = []
        self.summaries: list[dict] = []
        self.victims: list[dict] = []
        self.observer = MultiObserver([self.trace, SummaryObserver(self._emit)])

    def _emit(self, kind: str, payload: dict) -> None:
        self.events.append({"kind": kind, **payload})
        if kind == "cycle":
            self.summaries.append(payload)
        elif kind == "pod" and payload.get("event") == "preempted":
            self.victims.append({k: payload.get(k) for k in ("pod", "node", "time")})

    def stream_events(self) -> list[dict]:
        """The chunk's events with each pod's queue moves reduced to its last one."""
        last_move = {}
        for i, event in enumerate(self.events):
            if event["kind"] == "queue":
                last_move[event["pod"]] = i
        if len(last_move) > MAX_QUEUE_EVENTS:
            return [e for e in self.events if e["kind"] != "queue"]
        keep = set(last_move.values())
        return [e for i, e in enumerate(self.events) if e["kind"] != "queue" or i in keep]


def queue_sizes(session: RunSession) -> dict:
    s = session.scheduler
    q = s.queue
    sizes = {"activeQ": len(q.active), "backoffQ": len(q.backoff), "unschedulablePods": 0,
             "gated": 0, "waitingOnPermit": len(s.waiting)}
    for qpi in q.unschedulable.values():
        sizes[qpi.queue] = sizes.get(qpi.queue, 0) + 1
    return sizes


def nominations(session: RunSession) -> dict[str, str]:
    q = session.scheduler.queue
    return {pod.key: node for node, pods in q._nominated_pods.items() for pod in pods.values()}


def run_progress(run: Run) -> dict:
    return {"kind": "progress", "cycles": run.cycle_count, "podsBound": run.pods_bound,
            "time": run.virtual_time, "status": run.status}


def advance(run_id: int, *, cycles: int | None = None, from_cycle: int | None = None,
            token: str | None = None) -> dict:
    """The body of the run_advance task: advance to from_cycle + cycles (None: the end)."""
    claim = _claim(run_id, token, allow=ADVANCE_FROM)
    if claim is None:
        return {"run": run_id, "skipped": True}
    run, holder = claim
    base = run.cycle_count if from_cycle is None else from_cycle
    target = None if cycles is None else base + cycles
    if target is not None and run.cycle_count >= target:  # a retry of a step that was done
        with transaction.atomic():
            run = _lock_row(run_id, nowait=False)
            if run.lock_token == holder:
                run.status = Run.PAUSED
                run.save(update_fields=["status", "updated", *_release(run)])
        return {"run": run_id, "status": run.status, "cycles": run.cycle_count}
    entry = sessions.entry(run_id)
    try:
        with entry.lock:
            session = _session_at(entry, run, heartbeat=lambda: _renew(run_id, holder))
        limit = max_cycles(session)
        while True:
            with entry.lock:
                collector = _Collector()
                _run_chunk(session, collector, target, limit)
                run = _commit_chunk(run_id, holder, session, collector, target, limit,
                                    entry.open)
                # Committed: the session is where the run is. Not committed: it is ahead.
                entry.session = session if run is not None else None
            if run is None:  # the lock was taken over (we stalled past our lease)
                return {"run": run_id, "skipped": True}
            if run.status != Run.RUNNING:
                return {"run": run_id, "status": run.status, "cycles": run.cycle_count}
    except Exception as exc:  # the engine's or the database's: the run records it
        sessions.discard(run_id)
        _fail(run_id, holder, exc)
        return {"run": run_id, "status": Run.FAILED, "error": str(exc)}


def _run_chunk(session: RunSession, collector: _Collector, target, limit) -> int:
    deadline = time.monotonic() + CHUNK_SECONDS
    done = 0
    while done < CHUNK_CYCLES and not session.finished:
        remaining = limit - session.cycles
        if target is not None:
            remaining = min(remaining, target - session.cycles)
        if remaining <= 0:
            break
        done += session.advance(1, observer=collector.observer)
        if time.monotonic() >= deadline:
            break
    return done


def _finish_late(run_id: int, open_cycles: dict) -> list[dict]:
    """Rewrite the CycleRecords of the open cycles that have finished; their summaries."""
    late = {i: o for i, o in open_cycles.items() if o.finished()}
    if not late:
        return []
    stored = dict(CycleRecord.objects.filter(run_id=run_id, index__in=list(late))
                  .values_list("index", "trace"))
    summaries = []
    for index in sorted(late):
        if index not in stored:
            continue
        trace = late[index].merged(stored[index])
        CycleRecord.objects.filter(run_id=run_id, index=index).update(
            trace=trace, outcome=trace["outcome"] or "", node=trace["node"],
            message=trace["message"] or "")
        summaries.append({**summarize(trace), "late": True})
    return summaries


def _commit_chunk(run_id, holder, session, collector, target, limit,
                  open_cycles: dict | None = None) -> Run | None:
    """Store the chunk and stream its events; open_cycles (the session entry's, updated
    here) are the cycles stored open before, whose pods may have left Permit since."""
    s = session.scheduler
    open_cycles = open_cycles if open_cycles is not None else {}
    with transaction.atomic():
        run = _lock_row(run_id, nowait=False)
        if run.lock_token != holder:
            return None
        start = run.cycle_count
        recorders = collector.trace.cycles
        cycles = [rec.data for rec in recorders]
        records = cycle_records_from_trace(run, cycles)
        # One row per INSERT: for several rows Django sends PostgreSQL UNNEST arrays, and
        # psycopg escapes each ~100 KB trace into an array literal character by character.
        CycleRecord.objects.bulk_create(records, batch_size=1, ignore_conflicts=True)
        late = _finish_late(run_id, open_cycles)
        # A cycle still waiting on Permit has sent no summary: send the one it has so far.
        opened_recorders = [rec for rec, c in zip(recorders, cycles) if c["outcome"] is None]
        opened = [c for c in cycles if c["outcome"] is None]
        summaries = late + collector.summaries + [summarize(c) for c in opened]
        result = dict(run.result or {})
        result["bindings"] = dict(s.bindings)
        result["nominations"] = nominations(session)
        result["victims"] = list(result.get("victims") or []) + collector.victims
        result["recent"] = (list(result.get("recent") or []) + summaries)[-RECENT_CYCLES:]
        still_open = {i: o for i, o in open_cycles.items() if not o.finished()}
        still_open.update((c["index"], _Open(rec)) for rec, c in zip(opened_recorders, opened))
        if still_open:
            result["open"] = sorted(still_open)
        else:
            result.pop("open", None)
        run.cycle_count = session.cycles
        run.virtual_time = s.clock
        run.pods_bound = sum(1 for node in s.bindings.values() if node)
        fields = ["cycle_count", "virtual_time", "pods_bound", "result", "status", "updated",
                  "lock_expires"]
        if session.finished or session.cycles >= limit:
            run.status = Run.FINISHED
            result["end"] = "done" if session.finished else "limit"
        elif run.pause_requested or (target is not None and session.cycles >= target):
            run.status = Run.PAUSED
        run.result = result
        if run.status == Run.RUNNING:
            run.lock_expires = timezone.now() + timedelta(seconds=lease_seconds())
        else:
            fields += _release(run)
        run.save(update_fields=sorted(set(fields)))
        events = ([{"kind": "cycle", **c} for c in late] + collector.stream_events()
                  + [{"kind": "cycle", **summarize(c)} for c in opened])
        events.append({**run_progress(run), "queues": queue_sizes(session)})
        message = {"type": "run.events", "run": run_id, "from": start, "to": run.cycle_count,
                   "events": events}
        transaction.on_commit(lambda: _send(run_id, message))
    open_cycles.clear()
    open_cycles.update(still_open)
    return run


def _send(run_id: int, message: dict) -> None:
    try:
        tasking.group_send(group_name(run_id), message)
    except Exception:  # the stream is best effort; the run's rows are the record
        logger.exception("run %s: could not send to the channel layer", run_id)


def _fail(run_id: int, holder: str, exc: BaseException) -> None:
    logger.exception("run %s failed", run_id)
    try:
        with transaction.atomic():
            run = _lock_row(run_id, nowait=False)
            if run.lock_token != holder:
                return
            run.status = Run.FAILED
            run.error = f"{type(exc).__name__}: {exc}"[:5000]
            run.save(update_fields=["status", "error", "updated", *_release(run)])
            message = {"type": "run.events", "run": run_id, "from": run.cycle_count,
                       "to": run.cycle_count, "events": [{**run_progress(run),
                                                          "error": run.error}]}
            transaction.on_commit(lambda: _send(run_id, message))
    except Exception:
        logger.exception("run %s: could not record the failure", run_id)


def reset(run_id: int, *, token: str | None = None) -> dict:
    """The body of the run_reset task."""
    claim = _claim(run_id, token, allow=(Run.CREATED, Run.RUNNING, Run.PAUSED, Run.FINISHED,
                                         Run.FAILED))
    if claim is None:
        return {"run": run_id, "skipped": True}
    _, holder = claim
    with transaction.atomic():
        run = _lock_row(run_id, nowait=False)
        if run.lock_token != holder:
            return {"run": run_id, "skipped": True}
        CycleRecord.objects.filter(run=run).delete()
        run.status, run.cycle_count, run.virtual_time, run.pods_bound = Run.CREATED, 0, 0.0, 0
        run.error, run.result = "", {}
        run.save(update_fields=["status", "cycle_count", "virtual_time", "pods_bound", "error",
                                "result", "updated", *_release(run)])
        transaction.on_commit(lambda: sessions.discard(run_id))
        transaction.on_commit(lambda: _send(run_id, {"type": "run.reset", "run": run_id}))
    return {"run": run_id, "status": Run.CREATED, "cycles": 0}


def recover_stale_runs() -> list[int]:
    """Runs left `running` by a worker that died (lease expired): enqueue their continuation."""
    from scheduler_core.tasks import run_advance

    recovered = []
    now = timezone.now()
    stale = Run.objects.filter(status=Run.RUNNING).exclude(lock_expires__gt=now)
    for run_id in stale.values_list("pk", flat=True):
        with transaction.atomic():
            run = _lock_row(run_id, nowait=False)
            if run.status != Run.RUNNING or _lease_live(run, now):
                continue
            token = uuid.uuid4().hex
            cycles = None if run.target_cycle is None else max(
                run.target_cycle - run.cycle_count, 0)
            run.lock_token = token
            run.lock_expires = now + timedelta(seconds=lease_seconds())
            run.save(update_fields=["lock_token", "lock_expires", "updated"])
            tasking.enqueue_on_commit(run_advance, run_id=run_id, cycles=cycles,
                                      from_cycle=run.cycle_count, token=token)
            recovered.append(run_id)
    if recovered:
        logger.warning("recovered runs left running by a dead worker: %s", recovered)
    return recovered


# --- reads for clients ------------------------------------------------------------------------


def run_summary(run: Run) -> dict:
    """The run row for the socket, with the REST API's field names, and whether it is busy."""
    return {"id": run.pk, "cluster": run.cluster_id, "name": run.name, "seed": run.seed,
            "status": run.status, "virtual_time": run.virtual_time,
            "cycle_count": run.cycle_count, "pods_bound": run.pods_bound, "error": run.error,
            "busy": run_busy(run)}


@contextmanager
def _session_for_reading(run_id: int):
    """(run, session) consistent with each other; the session must not be kept."""
    entry = sessions.entry(run_id)
    with entry.lock:  # a working task holds it for one chunk at most
        # The documents load only if a session has to be built.
        run = Run.objects.defer("documents").get(pk=run_id)
        try:
            session = _session_at(entry, run)
        except Exception:
            entry.session = None
            raise
        yield run, session


def run_state(run: Run, *, max_nodes: int | None = None) -> dict:
    """RunSession.state() where the run is, from this process's cached session if it has one."""
    with _session_for_reading(run.pk) as (_, session):
        state = session.state(max_nodes=max_nodes)
        state["nodeCount"] = len(session.scheduler.cache.node_infos)
        state["queueSizes"] = queue_sizes(session)
    return state


def snapshot(run_id: int, *, max_nodes: int = SNAPSHOT_MAX_NODES) -> dict:
    """What a client joining late needs: the run row, the engine state, the last cycles.

    If the engine cannot rebuild the state (a run that failed in it), `state` is None and
    `stateError` says why; the row and the stored cycles are still there.
    """
    try:
        with _session_for_reading(run_id) as (run, session):
            state = session.state(max_nodes=max_nodes)
            state["nodeCount"] = len(session.scheduler.cache.node_infos)
            state["queueSizes"] = queue_sizes(session)
            state["nominations"] = nominations(session)
            extra = {}
    except Run.DoesNotExist:
        raise
    except Exception as exc:
        logger.exception("run %s: no engine state for a snapshot", run_id)
        run = Run.objects.defer("documents").get(pk=run_id)
        state, extra = None, {"stateError": f"{type(exc).__name__}: {exc}"}
    return {"run": run_summary(run), "state": state,
            "cycles": list((run.result or {}).get("recent") or []), **extra}


def cycle_detail(run_id: int, index: int) -> dict | None:
    return (CycleRecord.objects.filter(run_id=run_id, index=index)
            .values_list("trace", flat=True).first())
