"""Per-process memos of what a run's stored documents give on read (its described objects, its
timeline's recording session), so that a 5,000-node run is not loaded again on every request.

A run's documents are checked when stored and change afterwards only by run actions, which
append a step to its "run-actions" Timeline document (timeline_services.run_action): their JSON
only ever grows. So the run's id and creation time and the length of that JSON (the `size`
column the database keeps) say which documents a memo was made from.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

from playground.runs.models import Run, RunDocuments


def documents_key(run: Run) -> tuple:
    """What tells a run's documents apart without loading them (megabytes at 5,000 nodes)."""
    size = RunDocuments.objects.filter(run_id=run.pk).values_list("size", flat=True).get()
    # The creation time too: a test database rolled back gives its ids out again.
    return (run.pk, run.created, size)


class Memo:
    """A small LRU of values by key; make() runs outside the memo's lock (it may be slow)."""

    def __init__(self, size: int):
        self.size = size
        self._lock = threading.Lock()
        self._values: OrderedDict[Hashable, object] = OrderedDict()

    def get(self, key: Hashable, make: Callable[[], object]):
        with self._lock:
            if key in self._values:
                self._values.move_to_end(key)
                return self._values[key]
        value = make()
        with self._lock:
            self._values[key] = value
            while len(self._values) > self.size:
                self._values.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._values.clear()


# Described objects are small next to a live session; recording sessions are not.
objects_memo = Memo(16)
recording_memo = Memo(2)
