"""Executing runs: the bodies of the run tasks (scheduler_core.tasks), which call in here.

A task advances the engine in chunks (CHUNK_CYCLES cycles or the chunk's seconds, whichever
comes first; a task's first chunk is short, so that the stream starts at once, and each next
one twice as long up to CHUNK_SECONDS). After each chunk ONE transaction stores the chunk's
CycleRecords (idempotent on (run, index); each trace is the engine's columns packed as they
are, scheduler_core.tracepack), the counters and the run's results: while the run goes on,
the bindings that changed and the chunk's victims are appended as a RunChunk row; the chunk
that stops the run folds them into Run.result. Only once it has committed are the chunk's
events sent to the channel group `run_<id>`. A worker that dies mid-chunk therefore leaves the
run as it was before that chunk, and whoever takes over replays the stored cycles
(playground.run_sessions) and goes on from there. The task holds the run's lease
(playground.run_lease) throughout.

A cycle whose pod waits on Permit is stored open (no outcome yet) with its chunk. The run's
result lists the open cycles (`open`), and the chunk in which one finishes rewrites its
CycleRecord (as the contract's JSON: the stored part and what came after, merged) and streams
its summary again, marked `late`.

This module never imports the tasks: they import it.
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta

from django.db import connection, transaction
from django.utils import timezone

from playground import tasking
from playground.errors import connection_lost
from playground.runs.lease import claim, heartbeat, lease_seconds, lock_row, release, renew
from playground.runs.models import CycleRecord, Run, RunChunk, stored_trace
from playground.runs.records import store_cycles
from playground.runs.sessions import (
    OpenCycle,
    max_cycles,
    nominations,
    queue_sizes,
    session_at,
    sessions,
)
from scheduler_core import tracepack
from scheduler_core.session import RunSession
from scheduler_core.stream import TracedSummaryObserver, summarize
from scheduler_core.tracecols import Tables

logger = logging.getLogger(__name__)

CHUNK_CYCLES = 500
FIRST_CHUNK_SECONDS = 0.1   # a task's first chunk: the stream starts without waiting
CHUNK_SECONDS = 1.0         # the longest chunk: a pause waits at most this long
RECENT_CYCLES = 20          # cycle summaries kept on the run for a late joiner's snapshot
MAX_QUEUE_EVENTS = 500      # per chunk; beyond that the stream gets queue sizes only
ADVANCE_FROM = (Run.CREATED, Run.PAUSED, Run.RUNNING)
# Pauses before going on after a dropped database connection (seconds); then recovery's turn.
RECONNECT_DELAYS = (0.5, 1.0, 2.0, 4.0, 8.0)
RESET_FROM = (Run.CREATED, Run.RUNNING, Run.PAUSED, Run.FINISHED, Run.FAILED)


def group_name(run_id: int) -> str:
    """The channel group a run's events go to (its sockets listen there)."""
    return f"run_{run_id}"


class _Collector:
    """What one chunk observed: full traces for CycleRecords, summary events for the stream,
    and the bindings as they were before it (`before`)."""

    def __init__(self, before: dict[str, str | None], tables: Tables | None = None):
        self.before = before
        self.events: list[dict] = []
        self.summaries: list[dict] = []
        self.victims: list[dict] = []
        # One recorder per cycle for both: the summaries are read from the traces.
        self.trace = self.observer = TracedSummaryObserver(self._emit, tables)

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


def run_progress(run: Run) -> dict:
    return {"kind": "progress", "cycles": run.cycle_count, "podsBound": run.pods_bound,
            "time": run.virtual_time, "status": run.status}


def advance(run_id: int, *, cycles: int | None = None, from_cycle: int | None = None,
            token: str | None = None) -> dict:
    """The body of the run_advance task: advance to from_cycle + cycles (None: the end).

    A dropped database connection is not the run's failure: the session is dropped (it may
    be ahead of what committed), and the task goes on from the stored cycles on a new
    connection after a pause (RECONNECT_DELAYS). Still down after the last pause, it stops
    with the run left `running`: its lease runs out and recovery (run_recover) takes over.
    """
    claimed = claim(run_id, token, allow=ADVANCE_FROM, status=Run.RUNNING)
    if claimed is None:
        return {"run": run_id, "skipped": True}
    run, holder = claimed
    base = run.cycle_count if from_cycle is None else from_cycle
    target = None if cycles is None else base + cycles
    for delay in (*RECONNECT_DELAYS, None):
        try:
            with heartbeat(run_id, holder):
                return _advance_held(run_id, holder, target, run)
        except Exception as exc:  # the engine's or the database's
            sessions.discard(run_id)
            run = None  # read again, from what committed
            if not connection_lost(exc):
                _fail(run_id, holder, exc)
                return {"run": run_id, "status": Run.FAILED, "error": str(exc)}
            connection.close()
            if delay is None:
                logger.error("run %s: the database is still out of reach: left for recovery",
                             run_id)
                return {"run": run_id, "status": Run.RUNNING, "recovering": True}
            logger.warning("run %s: database connection lost (%s): going on in %.1fs",
                           run_id, exc, delay)
            time.sleep(delay)
    raise AssertionError("unreachable: the last delay returns")


def _advance_held(run_id: int, holder: str, target: int | None, run: Run | None) -> dict:
    """Advance the run whose lease this execution holds, from what is stored (`run`: the row
    as the claim left it; None: read it)."""
    if run is None:
        run = Run.objects.get(pk=run_id)
    if run.lock_token != holder:  # taken over while we were away
        return {"run": run_id, "skipped": True}
    if target is not None and run.cycle_count >= target:  # a retry of a step that was done
        with transaction.atomic():
            run = lock_row(run_id, nowait=False)
            if run.lock_token == holder:
                run.status = Run.PAUSED
                run.save(update_fields=["status", "updated", *release(run)])
        return {"run": run_id, "status": run.status, "cycles": run.cycle_count}
    entry = sessions.entry(run_id)
    with entry.lock:
        session = session_at(entry, run, heartbeat=lambda: renew(run_id, holder))
    limit = max_cycles(session)
    # Nothing is stored before the first cycle: the first chunk writes every binding.
    stored = dict(session.scheduler.bindings) if run.cycle_count else {}
    seconds = FIRST_CHUNK_SECONDS
    while True:
        with entry.lock:
            collector = _Collector(stored, entry.tables)
            _run_chunk(session, collector, target, limit, seconds)
            stored = dict(session.scheduler.bindings)
            seconds = min(2 * seconds, CHUNK_SECONDS)
            run = _commit_chunk(run_id, holder, session, collector, target, limit, entry.open)
            # Committed: the session is where the run is. Not committed: it is ahead.
            entry.session = session if run is not None else None
        if run is None:  # the lock was taken over (we stalled past our lease)
            return {"run": run_id, "skipped": True}
        if run.status != Run.RUNNING:
            return {"run": run_id, "status": run.status, "cycles": run.cycle_count}


def _run_chunk(session: RunSession, collector: _Collector, target, limit, seconds) -> int:
    deadline = time.monotonic() + seconds
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
    stored = {index: stored_trace(legacy, packed) for index, legacy, packed in
              CycleRecord.objects.filter(run_id=run_id, index__in=list(late))
              .values_list("index", "legacy_trace", "packed")}
    summaries = []
    for index in sorted(late):
        if index not in stored:
            continue
        trace = late[index].merged(stored[index])
        CycleRecord.objects.filter(run_id=run_id, index=index).update(
            legacy_trace=trace, packed=None, preempted=trace["preemption"] is not None,
            outcome=trace["outcome"] or "", node=trace["node"], message=trace["message"] or "")
        summaries.append({**summarize(trace), "late": True})
    return summaries


def _commit_chunk(run_id, holder, session, collector, target, limit,
                  open_cycles: dict | None = None) -> Run | None:
    """Store the chunk and stream its events; open_cycles (the session entry's, updated
    here) are the cycles stored open before, whose pods may have left Permit since."""
    s = session.scheduler
    open_cycles = open_cycles if open_cycles is not None else {}
    with transaction.atomic():
        run = lock_row(run_id, nowait=False, progress=True)
        if run.lock_token != holder:
            return None
        start = run.cycle_count
        recorders = collector.trace.cycles
        store_cycles(run_id, recorders)
        late = _finish_late(run_id, open_cycles)
        # A cycle still waiting on Permit has sent no summary: send the one it has so far.
        opened_recorders = [rec for rec in recorders if tracepack.fields(rec)["outcome"] is None]
        opened = [rec.data for rec in opened_recorders]
        summaries = late + collector.summaries + [summarize(c) for c in opened]
        result = dict(run.result or {})
        result["nominations"] = nominations(session)
        result["recent"] = (list(result.get("recent") or []) + summaries)[-RECENT_CYCLES:]
        still_open = {i: o for i, o in open_cycles.items() if not o.finished()}
        still_open.update((c["index"], OpenCycle(rec)) for rec, c in zip(opened_recorders, opened))
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
        if run.status == Run.RUNNING:
            _append_results(run, start, s.bindings, collector)
        else:
            _fold_results(run, result, s.bindings, collector)
        run.result = result
        if run.status == Run.RUNNING:
            run.lock_expires = timezone.now() + timedelta(seconds=lease_seconds())
        else:
            fields += release(run)
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


def _append_results(run: Run, start: int, bindings: dict, collector: _Collector) -> None:
    """The chunk's changes to the run's bindings and victims, as a RunChunk row."""
    before = collector.before
    missing = object()
    changed = {pod: node for pod, node in bindings.items() if before.get(pod, missing) != node}
    removed = [pod for pod in before if pod not in bindings]
    if changed or removed or collector.victims:
        RunChunk.objects.create(run=run, start=start, bindings=changed, removed=removed,
                                victims=collector.victims)


def _fold_results(run: Run, result: dict, bindings: dict, collector: _Collector) -> None:
    """The run stops: its whole bindings and victims into `result`, its RunChunk rows gone."""
    result["victims"] = (run.results().get("victims") or []) + collector.victims
    result["bindings"] = dict(bindings)
    run.chunks.all().delete()


def _send(run_id: int, message: dict) -> None:
    try:
        tasking.group_send(group_name(run_id), message)
    except Exception:  # the stream is best effort; the run's rows are the record
        logger.exception("run %s: could not send to the channel layer", run_id)


def _fail(run_id: int, holder: str, exc: BaseException) -> None:
    logger.exception("run %s failed", run_id)
    try:
        with transaction.atomic():
            run = lock_row(run_id, nowait=False)
            if run.lock_token != holder:
                return
            run.status = Run.FAILED
            run.error = f"{type(exc).__name__}: {exc}"[:5000]
            run.save(update_fields=["status", "error", "updated", *release(run)])
            message = {"type": "run.events", "run": run_id, "from": run.cycle_count,
                       "to": run.cycle_count, "events": [{**run_progress(run),
                                                          "error": run.error}]}
            transaction.on_commit(lambda: _send(run_id, message))
    except Exception:
        logger.exception("run %s: could not record the failure", run_id)


def reset(run_id: int, *, token: str | None = None) -> dict:
    """The body of the run_reset task: delete the cycles, clear counters and results."""
    claimed = claim(run_id, token, allow=RESET_FROM)
    if claimed is None:
        return {"run": run_id, "skipped": True}
    _, holder = claimed
    with transaction.atomic():
        run = lock_row(run_id, nowait=False)
        if run.lock_token != holder:
            return {"run": run_id, "skipped": True}
        CycleRecord.objects.filter(run=run).delete()
        RunChunk.objects.filter(run=run).delete()
        run.status, run.cycle_count, run.virtual_time, run.pods_bound = Run.CREATED, 0, 0.0, 0
        run.error, run.result = "", {}
        run.save(update_fields=["status", "cycle_count", "virtual_time", "pods_bound", "error",
                                "result", "updated", *release(run)])
        transaction.on_commit(lambda: sessions.discard(run_id))
        transaction.on_commit(lambda: _send(run_id, {"type": "run.reset", "run": run_id}))
    return {"run": run_id, "status": Run.CREATED, "cycles": 0}
