"""What a run's timeline recorded: the run replayed with the engine's timeline recorder on.

Not a selector: it builds and advances an engine session (playground.runs.sessions), kept per
process in runs.memo so that only the cycles run since the last read are replayed.
"""
from __future__ import annotations

import json
import threading

from playground.runs.memo import documents_key, recording_memo
from playground.runs.models import Run
from playground.runs.sessions import new_session
from scheduler_core.session import RunSession


class _Recording:
    """A recording session of one run's documents, advanced as the run goes on."""

    def __init__(self, run: Run):
        self.lock = threading.Lock()
        self.run = run
        self.session: RunSession | None = None

    def at(self, cycles: int) -> dict:
        with self.lock:
            if self.session is None or self.session.cycles > cycles:
                self.session = new_session(self.run, record=True)
            try:
                # Even by 0 cycles: a paused run's actions due now apply (once: they are popped).
                self.session.advance(cycles - self.session.cycles)
            except Exception:
                self.session = None  # half advanced: rebuilt on the next read
                raise
            # Copies of the lists: the session may go on recording while this is encoded.
            return {key: list(value)
                    for key, value in self.session.scheduler.life.to_json().items()}


def run_timeline(run: Run) -> dict:
    """The run replayed to where it is with the timeline recorder on: the steps as they ran,
    pod events, queue moves with their events, samples of the nodes over virtual time and
    each cycle's plugin timings. The engine is deterministic, so the replay is the run; the
    replay is kept per process (run_memo) and only the cycles run since are replayed."""
    key = (documents_key(run), json.dumps(run.config, sort_keys=True), run.seed)
    return recording_memo.get(key, lambda: _Recording(run)).at(run.cycle_count)
