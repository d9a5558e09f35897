"""Observers receive every decision as it happens; the JSON trace is one of them.

The scheduler asks the observer for a recorder at the start of each cycle and passes it to the
runtime; with no observer the recorder is None and nothing is recorded.
"""
from __future__ import annotations

import json
import os
from array import array

import numpy as np

from .tracecols import (
    FilterColumns,
    ScoreColumns,
    Tables,
    TotalColumns,
    dump_bytes,
    key_text,
    status_entry,
)
from .tracedetail import compact_candidates, compact_size, expand, expanded


class CycleRecorder:
    """Decisions of one scheduling attempt. Subclasses override what they need.

    A recorder with `per_node` False is never shown the Filter and Score points, so the
    scheduler does not build their per-node trails for it; one with `queue_sort` False is
    never shown queue_points, so it does not read activeQ's head for it.
    """

    per_node = True
    queue_sort = True

    def point(self, point: str, plugin: str, status, node: str | None = None,
              timeout: float | None = None, detail: dict | None = None) -> None:
        pass

    def queue_points(self, queue_sort: dict, pre_enqueue: list[dict]) -> None:
        """How the pod got here: QueueSort's comparison that made it the head of activeQ
        ({plugin, before, from, runnerUp, criterion, why}), and the PreEnqueue entries
        ({plugin, code, reasons}) of its way into activeQ. The contract's cycle keeps
        queueSort's plugin and before, and the PreEnqueue entries."""

    def filter(self, node_name: str, trail: list) -> None:
        """trail: [(plugin, Status or None for Success)], stopping at the first rejection."""

    def filter_many(self, plugins: list[str], names, rows, stops, statuses: dict) -> None:
        """Many nodes' trails at once (the columns path), in visiting order: the node
        names[rows[i]] passed plugins[:stops[i]] and, when its row is in statuses, was
        stopped by plugins[stops[i]] with that status."""
        for row, stop in zip(rows, stops):
            trail = [(plugin, None) for plugin in plugins[:stop]]
            if row in statuses:
                trail.append((plugins[stop], statuses[row]))
            self.filter(names[row], trail)

    def extender_filter(self, node_name: str, plugin: str, status,
                        detail: dict | None = None) -> None:
        """An extender's verdict on a node that passed the Filter plugins: after its trail."""

    def score(self, plugin: str, nodes, raw: list[int], normalized: list[int], weight: int,
              detail: dict | None = None) -> None:
        pass

    def total_scores(self, nodes, totals: list[int]) -> None:
        pass

    def preemption(self, nominated_node: str, victims: list[str], detail: dict | None) -> None:
        pass

    def nominated(self, node: str) -> None:
        """The binding cycle wrote the pod's status.nominatedNodeName: PreBind will work for
        it, or it waits on Permit (NominatedNodeNameForExpectation)."""

    def batch(self, entry: dict) -> None:
        """OpportunisticBatching's part in the cycle (framework/batch.py): the dict is
        completed once the cycle has a host, before finish."""

    def pod_group(self, entry: dict) -> None:
        """The pod group scheduling cycle the pod was placed in (podgroup_cycle.py): the
        contract's `podGroup`, set before finish."""

    def finish(self, outcome: str, node: str | None, message: str, time: float) -> None:
        pass


class Observer:
    def begin_cycle(self, index: int, time: float, pod, profile: str) -> CycleRecorder | None:
        return None

    def queue_event(self, queue: str, qpi, time: float) -> None:
        """A move of the pod to `queue`; qpi.last_move says why: {"event", and "hints":
        [{"event", "plugin", "hint" (Queue or QueueSkip), "error"?}] when QueueingHints
        decided}."""

    def pod_event(self, event: str, pod, time: float, detail: dict | None = None) -> None:
        """bound, preempted, deleted, nominated."""


class MultiObserver(Observer):
    """Several observers at once (the trace and the live stream)."""

    def __init__(self, observers):
        self.observers = list(observers)

    def begin_cycle(self, index, time, pod, profile):
        recs = [o.begin_cycle(index, time, pod, profile) for o in self.observers]
        recs = [r for r in recs if r is not None]
        return _MultiRecorder(recs) if recs else None

    def queue_event(self, queue, qpi, time):
        for o in self.observers:
            o.queue_event(queue, qpi, time)

    def pod_event(self, event, pod, time, detail=None):
        for o in self.observers:
            o.pod_event(event, pod, time, detail)


class _MultiRecorder(CycleRecorder):
    def __init__(self, recs):
        self.recs = recs
        self.per_node = any(r.per_node for r in recs)
        self.queue_sort = any(r.queue_sort for r in recs)

    def __getattribute__(self, name):
        if name in ("recs", "per_node", "queue_sort") or name.startswith("__"):
            return object.__getattribute__(self, name)
        recs = object.__getattribute__(self, "recs")

        def fan_out(*args, **kwargs):
            for r in recs:
                getattr(r, name)(*args, **kwargs)
        return fan_out


def _entry(plugin, status, node=None, timeout=None, detail=None) -> dict:
    """A point's entry. Its reasons are a tuple (JSON writes it as the list it stands for):
    an entry of strings and tuples only is one the garbage collector stops tracking, and a
    trace keeps hundreds of thousands of them."""
    if node is None and timeout is None and not detail:
        return _plain_entry(plugin or status.plugin, status.code.label, tuple(status.reasons))
    entry = {"plugin": plugin or status.plugin, "code": status.code.label,
             "reasons": tuple(status.reasons)}
    if node is not None:
        entry["node"] = node
    if timeout is not None:
        entry["timeout"] = timeout
    if detail:
        entry["detail"] = detail
    return entry


def _plain_entry(plugin: str, code: str, reasons: tuple) -> dict:
    """An entry without node, timeout or detail: one dict per (plugin, code, reasons), shared
    by the cycles that record it (most cycles' PreFilter, PreScore... entries are the same;
    entries are read, never changed, once recorded)."""
    key = (plugin, code, reasons)
    entry = _PLAIN.get(key)
    if entry is None:
        if len(_PLAIN) >= _PLAIN_KEPT:
            _PLAIN.clear()
        entry = _PLAIN[key] = {"plugin": plugin, "code": code, "reasons": reasons}
    return entry


_PLAIN: dict[tuple, dict] = {}
_PLAIN_KEPT = 4096


_COLUMNAR = ("filter", "score", "totalScore")


class TraceRecorder(CycleRecorder):
    """One cycle of the contract's trace, kept compact.

    The per-node parts (Filter trails, scores, total scores) are columns over names interned
    once per trace (tracecols); the rest is the contract's dict. `data` builds the contract's
    dict, `pretty` its indented JSON text, byte for byte what json.dumps prints.
    """

    def __init__(self, index, time, pod, profile, tables: Tables | None = None):
        self.tables = tables if tables is not None else Tables()
        self._filter = FilterColumns()
        self._score = ScoreColumns()
        self._totals: TotalColumns | None = None
        self._data = {
            "index": index, "time": time, "pod": pod.key, "profile": profile,
            "outcome": None, "node": None, "message": "",
            "queueSort": None, "preEnqueue": [],
            "preFilter": [], "filter": None, "postFilter": [], "preemption": None,
            "preScore": [], "score": None, "totalScore": None,
            "reserve": [], "permit": [], "preBind": [], "bind": [], "postBind": [],
            "unreserve": [],
        }

    @property
    def data(self) -> dict:
        """The cycle as the contract's dict (a fresh copy)."""
        out = json.loads(json.dumps(self._data, default=expand))
        out["filter"] = self._filter.to_dict(self.tables)
        out["score"] = self._score.to_dict(self.tables)
        out["totalScore"] = self._totals.to_dict(self.tables) if self._totals else {}
        return out

    def point(self, point, plugin, status, node=None, timeout=None, detail=None):
        self._data[point].append(_entry(plugin, status, node, timeout, detail))

    def queue_points(self, queue_sort, pre_enqueue):
        self._data["queueSort"] = {"plugin": queue_sort["plugin"],
                                   "before": tuple(queue_sort["before"])}
        self._data["preEnqueue"] = [_plain_entry(e["plugin"], e["code"], tuple(e["reasons"]))
                                    if len(e) == 3 else e for e in pre_enqueue]

    def filter(self, node_name, trail):
        last = None
        if trail and trail[-1][1] is not None:
            last = status_entry(*trail[-1])
            trail = trail[:-1]
        tables = self.tables
        self._filter.add(tables.name_id(node_name),
                         tables.shape_id(tuple(p for p, _ in trail), last))

    def filter_many(self, plugins, names, rows, stops, statuses):
        tables = self.tables
        ids = tables.row_ids(names)[np.asarray(rows, np.int64)]
        # Nodes that passed all share one shape; each rejection's shape is interned.
        shapes = np.full(len(ids), tables.shape_id(tuple(plugins), None), np.int32)
        if statuses:
            # Rejected nodes, in visiting order, are those stopped before the last plugin.
            at = np.flatnonzero(np.asarray(stops) < len(plugins))
            shapes[at] = self._rejection_shapes(plugins, rows, stops, at, statuses)
        self._filter.extend(array("i", ids.tobytes()), array("i", shapes.tobytes()))

    def _rejection_shapes(self, plugins, rows, stops, at, statuses) -> np.ndarray:
        """The shape of each rejected node's trail (rows[at], stopped at stops[at])."""
        stops = np.asarray(stops)[at]
        ids = getattr(statuses, "ids", None)
        if ids is None:   # a plain {row: status}
            listed = [statuses[row] for row in np.asarray(rows)[at].tolist()]
            ids = np.arange(len(listed))
        else:             # RejectedRows: a status per plugin and code, in the same order
            listed = statuses.statuses
        stop_of = np.zeros(len(listed), np.int64)
        stop_of[ids] = stops
        shape_id = self.tables.shape_id
        shapes = [shape_id(tuple(plugins[:stop]), status_entry(plugins[stop], status))
                  for status, stop in zip(listed, stop_of.tolist())]
        return np.array(shapes, np.int32)[ids]

    def extender_filter(self, node_name, plugin, status, detail=None):
        nid = self.tables.name_id(node_name)
        # (reasons as a list: the filter map's dict hands its entries out as they are)
        entry = {**_entry(plugin, status, detail=detail), "reasons": list(status.reasons)}
        self._filter.extras.setdefault(nid, []).append(entry)

    def score(self, plugin, nodes, raw, normalized, weight, detail=None):
        self._score.add(self.tables, plugin, nodes, raw, normalized, weight, detail)

    def total_scores(self, nodes, totals):
        self._totals = TotalColumns(self._score.node_ids(self.tables, nodes), totals)

    def preemption(self, nominated_node, victims, detail):
        entry = {"nominatedNode": nominated_node, "victims": list(victims)}
        if detail:
            entry.update(detail)
            if "candidates" in entry:
                entry["candidates"] = compact_candidates(self.tables, entry["candidates"])
        self._data["preemption"] = entry

    def nominated(self, node):
        self._data["nominatedNodeName"] = node

    def batch(self, entry):
        self._data["batch"] = entry

    def pod_group(self, entry):
        self._data["podGroup"] = entry

    def finish(self, outcome, node, message, time):
        data = self._data
        data.update(outcome=outcome, node=node, message=message)
        # The entry lists as tuples: with entries of strings and tuples only, the collector
        # stops tracking the cycle's parts (so its full passes do not walk every cycle kept).
        for key, value in data.items():
            if type(value) is list:
                data[key] = tuple(value)
        self._filter.compact(self.tables)
        self._score.release()

    def nbytes(self) -> int:
        """About what the cycle holds: its columns' buffers and its other parts as compact
        JSON (the names and shapes it shares with the other cycles of the trace not counted)."""
        return (self._filter.nbytes() + self._score.nbytes()
                + (self._totals.nbytes() if self._totals else 0)
                + compact_size(self._data))

    def pretty(self, indent: int) -> str:
        """The cycle as json.dumps(..., indent=2) prints it `indent` spaces deep in a document."""
        return b"".join(self.chunks(indent)).decode()

    def chunks(self, indent: int) -> list[bytes]:
        """pretty's text in pieces, ASCII bytes (joined once, by whoever writes them)."""
        tables, depth = self.tables, indent + 2
        parts = [b"{\n"]
        for key, value in self._data.items():
            parts.append(key_text(key, depth))
            if key == "filter":
                parts += self._filter.chunks(tables, depth)
            elif key == "score":
                parts += self._score.chunks(tables, depth)
            elif key == "totalScore":
                parts += self._totals.chunks(tables, depth) if self._totals else [b"{}"]
            elif key == "preemption":
                parts.append(dump_bytes(expanded(value), depth))
            else:
                parts.append(tables.dumped(value, depth))
            parts.append(b",\n")
        parts[-1] = b"\n" + b" " * indent + b"}"
        return parts


class TraceObserver(Observer):
    """Collects the contract's `cycles` list. tables: names and shapes interned by an earlier
    observer of the same run (the web path observes a run chunk by chunk, and interning a
    cluster's node names costs more than a chunk's cycles)."""

    def __init__(self, tables: Tables | None = None):
        self.cycles: list[TraceRecorder] = []
        self.tables = tables if tables is not None else Tables()

    def begin_cycle(self, index, time, pod, profile):
        rec = TraceRecorder(index, time, pod, profile, self.tables)
        self.cycles.append(rec)
        return rec

    def to_list(self) -> list[dict]:
        return [c.data for c in self.cycles]

    def write_json(self, out, head: dict) -> None:
        """json.dump({**head, "cycles": [...]}, indent=2) written one cycle at a time (as
        bytes to the stream under a UTF-8 text stream, with no encoding per cycle)."""
        text = json.dumps({**head, "cycles": []}, indent=2)
        if not self.cycles:
            out.write(text)
            return
        out.write(text[: text.rindex("[]")] + "[")
        binary = _bytes_under(out)
        for i, rec in enumerate(self.cycles):
            parts = rec.chunks(4)
            parts[0] = b",\n    {\n" if i else b"\n    {\n"
            if binary is None:
                out.write(b"".join(parts).decode())
            else:
                binary.writelines(parts)
        if binary is not None:
            binary.flush()
        out.write("\n  ]\n}")


def _bytes_under(out):
    """The byte stream under a text stream that writes ASCII as it is (UTF-8 or ASCII, no
    newline translation), flushed so that bytes written to it come after the text; else
    None."""
    buffer = getattr(out, "buffer", None)
    encoding = (getattr(out, "encoding", None) or "").lower().replace("-", "").replace("_", "")
    if buffer is None or encoding not in ("utf8", "ascii", "usascii") or os.linesep != "\n":
        return None
    out.flush()
    return buffer


class OutcomeRecorder(CycleRecorder):
    """One cycle as `simulate --output summary` shows it: no per-point, no per-node detail."""

    per_node = False
    queue_sort = False

    def __init__(self, index, time, pod, profile):
        self.data = {"index": index, "time": time, "pod": pod.key, "outcome": None,
                     "node": None, "message": ""}

    def finish(self, outcome, node, message, time):
        self.data.update(outcome=outcome, node=node, message=message)


class OutcomeObserver(Observer):
    """Collects the summary's reduced `cycles` list."""

    def __init__(self):
        self.cycles: list[OutcomeRecorder] = []

    def begin_cycle(self, index, time, pod, profile):
        rec = OutcomeRecorder(index, time, pod, profile)
        self.cycles.append(rec)
        return rec

    def to_list(self) -> list[dict]:
        return [c.data for c in self.cycles]
