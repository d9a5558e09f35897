"""Live engine sessions of runs, cached per process and brought to where a run is by replay.

Live sessions are cached per process (LRU, PLAYGROUND_RUN_SESSION_CACHE entries) and checked
against the run's cycle count before use: a session that is behind catches up unobserved, one
that is ahead (its chunk did not commit) is rebuilt by replay. The engine is deterministic, so
replaying the stored cycles gives the very session that stored them.

A session holds hundreds of thousands of objects for as long as it is cached, and each of
Python's full collections walked them all again: 100 to 250 ms at 500 nodes, in a server's
or worker's event loop, at any step (a workshop room's p95 tail). So a session is built with
the collector off and frozen once built (gc.freeze: left out of later collections). What a
dropped session (evicted, discarded, replaced) leaves behind is frozen with it: the next build
unfreezes and collects first, before the new session's objects exist, so that collection walks
what lived before and not the new session too (a walk of a 5,000-node session's objects, 0.3 to
0.6 s, which a build with no session dropped since the last does not pay at all).

A cycle whose pod waits on Permit is stored open (no outcome yet); its outcome and the points
that follow the wait come in a later chunk. The session's entry keeps the recorders of those
open cycles; a session rebuilt by replay observes just those cycles, so that a new worker can
finish them too.
"""

from __future__ import annotations

import gc
import pickle
import threading
import time
from collections import OrderedDict

from django.conf import settings

from playground.engine import out_of_tree_plugins
from playground.runs.models import Run
from scheduler_core.observe import Observer, TraceRecorder
from scheduler_core.session import RunSession
from scheduler_core.stream import LIST_POINTS
from scheduler_core.tracecols import Tables

# Replaying (no observer) is cheap per cycle; renew the lease at least this often meanwhile.
REPLAY_SLICE_SECONDS = 2.0
DEFAULT_CACHE_SIZE = 4


class OpenCycle:
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


class SessionEntry:
    __slots__ = ("_session", "lock", "open", "tables")

    def __init__(self):
        self.lock = threading.Lock()
        self._session: RunSession | None = None
        self.open: dict[int, OpenCycle] = {}  # the session's cycles stored open, by index
        # The names and trail shapes the run's chunks have interned, for the next chunk's
        # trace (interning 5,000 node names anew costs about a chunk of cycles; a stored
        # cycle re-interns its own, tracepack).
        self.tables = Tables()

    @property
    def session(self) -> RunSession | None:
        return self._session

    @session.setter
    def session(self, session: RunSession | None) -> None:
        if self._session is not None and session is not self._session:
            _garbage.dropped = True
        self._session = session


class _Garbage:
    """Whether a session was dropped since the last collection (frozen with what lived)."""

    dropped = False


_garbage = _Garbage()


class SessionCache:
    """LRU of live sessions by run id; each entry's lock serializes the threads using it."""

    def __init__(self):
        self._lock = threading.Lock()
        self._entries: OrderedDict[int, SessionEntry] = OrderedDict()

    def entry(self, run_id: int) -> SessionEntry:
        with self._lock:
            entry = self._entries.get(run_id)
            if entry is None:
                entry = self._entries[run_id] = SessionEntry()
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
            for entry in self._entries.values():
                entry.session = None
            self._entries.clear()


sessions = SessionCache()


def engine_sources(run: Run) -> list[tuple[str, list]]:
    """A copy of the run's sources: the engine annotates the manifests it loads (spec.nodeName
    on binding). Documents not loaded yet are read from the database, a copy of their own;
    loaded ones are copied with pickle, twice as fast as deepcopy (5,000 nodes)."""
    if not run.documents_loaded:
        return Run(pk=run.pk).sources()
    return pickle.loads(pickle.dumps(run.sources(), pickle.HIGHEST_PROTOCOL))


def new_session(run: Run, *, record: bool = False) -> RunSession:
    """The run's session at cycle 0; record: with the timeline recorder on.
    A run's documents were checked when stored (services.run_create, run actions).

    Python's cyclic collector is off while it loads: loading makes hundreds of thousands of
    objects that all live on, which its passes would walk again and again (as
    scheduler_core.simulate.collector_for_a_run; 0.39 to 0.27 s at 5,000 nodes)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return RunSession(engine_sources(run), run.config or None, seed=run.seed,
                          out_of_tree=out_of_tree_plugins(), record=record, checked=True,
                          features=run.features)
    finally:
        if enabled:
            gc.enable()


def session_at(entry: SessionEntry, run: Run, heartbeat=None) -> RunSession:
    """entry's session brought to `run.cycle_count` (entry.lock held by the caller).

    heartbeat(): called between replay slices (renews the caller's lease).
    """
    session = entry.session
    wanted = frozenset((run.result or {}).get("open") or ())
    built = session is None or session.cycles > run.cycle_count
    if built:
        entry.session = session = None   # one ahead is garbage, collected before the build
        collect_dropped()
        session = new_session(run)
        gc.freeze()   # left out of every later collection (see the module's docstring)
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
            entry.open[rec.data["index"]] = OpenCycle(rec)
    # Only the cycles the run lists are open (another worker may have finished the others).
    entry.open = {i: o for i, o in entry.open.items() if i in wanted and not o.finished()}
    if (run.status == Run.FINISHED and not session.finished
            and (run.result or {}).get("end") == "done"):
        # The last, empty step runs the events after the final cycle (a victim's deletion...).
        session.advance(1, observer=None)
    entry.session = session
    return session


def collect_dropped() -> None:
    """Collect what the sessions dropped since the last call left (frozen with them), and
    freeze what lives again; nothing when no session was dropped."""
    if _garbage.dropped:
        _garbage.dropped = False
        gc.unfreeze()
        gc.collect()
        gc.freeze()


def max_cycles(session: RunSession) -> int:
    """The engine's own safety limit for a run to the end (Scheduler.run's default)."""
    return 50 * (len(session.scheduler.pods) + 10)


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
