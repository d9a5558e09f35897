"""Where a run's engine is, for its clients: the engine state from this process's cached
session (playground.runs.sessions), rebuilt by replaying the run's cycles if it has none.

Not a selector: reading the state may replay the engine, so it sits with the sessions, above
the plain reads of runs.selectors.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager

from playground.runs.models import Run
from playground.runs.selectors import run_summary
from playground.runs.sessions import nominations, queue_sizes, session_at, sessions

logger = logging.getLogger(__name__)

SNAPSHOT_MAX_NODES = 600


@contextmanager
def _session_for_reading(run_id: int):
    """(run, session) consistent with each other; the session must not be kept."""
    entry = sessions.entry(run_id)
    with entry.lock:  # a working task holds it for one chunk at most
        # The documents load only if a session has to be built.
        run = Run.objects.get(pk=run_id)
        try:
            session = session_at(entry, run)
        except Exception:
            entry.session = None
            raise
        yield run, session


def _engine_state(session, max_nodes: int | None) -> dict:
    state = session.state(max_nodes=max_nodes)
    state["nodeCount"] = len(session.scheduler.cache.node_infos)
    state["queueSizes"] = queue_sizes(session)
    return state


def run_state(run: Run, *, max_nodes: int | None = None) -> dict:
    """RunSession.state() where the run is, from this process's cached session if it has one
    (else rebuilt by replaying the run's cycles)."""
    with _session_for_reading(run.pk) as (_, session):
        return _engine_state(session, max_nodes)


def snapshot(run_id: int, *, max_nodes: int | None = SNAPSHOT_MAX_NODES) -> dict:
    """What a client joining late needs: the run row, the engine state, the last cycles
    (max_nodes None: every node).

    If the engine cannot rebuild the state (a run that failed in it), `state` is None and
    `stateError` says why; the row and the stored cycles are still there.
    """
    try:
        with _session_for_reading(run_id) as (run, session):
            state = _engine_state(session, max_nodes)
            state["nominations"] = nominations(session)
            extra = {}
    except Run.DoesNotExist:
        raise
    except Exception as exc:
        logger.exception("run %s: no engine state for a snapshot", run_id)
        run = Run.objects.get(pk=run_id)
        state, extra = None, {"stateError": f"{type(exc).__name__}: {exc}"}
    return {"run": run_summary(run), "state": state,
            "cycles": list((run.result or {}).get("recent") or []), **extra}
