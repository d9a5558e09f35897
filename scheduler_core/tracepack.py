"""A traced cycle packed for storage, and back: the recorder's columns as they are, not JSON.

`pack(recorder)` writes one cycle of a TraceRecorder (observe.py) as bytes: the names and
trail shapes the cycle uses, re-interned in the order it first uses them (a trace's tables are
shared by its cycles, a stored cycle stands alone), its Filter and Score columns as the
smallest integer arrays that hold them, and the rest of the cycle as compact JSON; zlib over
the whole (written by ISA-L's deflate, read by zlib: the stream is zlib's format).
`unpack(blob)` gives a TraceRecorder again, whose `data` and `pretty` are the contract's
CYCLE object and text, exactly as the recorder that was packed gives them.
"""
from __future__ import annotations

import json
import struct
import zlib
from array import array
from operator import itemgetter

import numpy as np
import orjson
from isal import isal_zlib

from .observe import TraceRecorder
from .tracecols import (
    FilterColumns,
    ScoreColumns,
    Tables,
    TotalColumns,
    ids_column,
    int_column,
)
from .tracedetail import expand

FORMAT = 1
_HEAD = struct.Struct("<BI")  # format, length of the JSON header
# ISA-L's level 1 writes the same zlib stream format as zlib's level 1, 2.5 to 3 times faster
# and a little smaller (0.03 against 0.08 ms for a cycle at 5,000 nodes): rows stored before
# and after read alike.
_LEVEL = 1


class _Tail:
    """The packed arrays, one after another; a spec per column says how to read it back."""

    def __init__(self):
        self.parts: list[bytes] = []

    def column(self, values) -> list:
        """[typecode, count] for integers (in the smallest type that holds them), ["json",
        values] for anything else."""
        if isinstance(values, np.ndarray):
            values = int_column(values)
        if not isinstance(values, array):
            return ["json", list(values)]
        self.parts.append(values.tobytes())
        return [values.typecode, len(values)]

    def ids(self, values: np.ndarray, count: int) -> list:
        """column() of local ids in [0, count), every one of them used by the cycle (so the
        type that holds count - 1 is the smallest that holds them)."""
        return self.column(ids_column(values, count))


def _local(values: list, arrays: list) -> tuple[list, list[np.ndarray]]:
    """The values (names or shapes) the id arrays use, in order of first use, and each array
    in those local ids."""
    parts = [np.asarray(a, dtype=np.int64) for a in arrays]
    every = np.concatenate(parts)
    if not len(every):
        return [], parts
    # dict keys keep the first use's order: no sort (a cycle's ids are a few thousand)
    used = list(dict.fromkeys(every.tolist()))
    lut = np.empty(max(used) + 1, np.int64)
    lut[used] = np.arange(len(used))
    return [values[i] for i in used], [lut[p] for p in parts]


# A table is indexed by every id of the trace's tables: worth it while they are at most this
# many times the first array's ids (a cycle's Filter visits a share of a cluster's nodes).
_LUT_FROM_FIRST = 64


def _local_names(values: list, arrays: list) -> tuple[list, list[np.ndarray]]:
    """_local for node names: most often the Filter's visiting order is the order of first
    use (_local_of_first), found without a Python step per node."""
    parts = [np.asarray(a, dtype=np.int64) for a in arrays]
    if len(parts[0]) and len(values) <= _LUT_FROM_FIRST * len(parts[0]):
        found = _local_of_first(values, parts)
        if found is not None:
            return found
    return _local(values, parts)


def _local_of_first(values: list, parts: list[np.ndarray]) -> tuple | None:
    """_local's answer when the first array holds each id once and every id of the others
    (a cycle's Filter visits each node once, and scores and totals are over nodes it passed):
    the first array's order is the order of first use. None otherwise."""
    first = parts[0]
    lut = np.full(len(values), -1, np.int64)
    lut[first] = np.arange(len(first))
    if np.count_nonzero(lut >= 0) != len(first):   # an id repeated
        return None
    local = [np.arange(len(first))] + [lut[p] for p in parts[1:]]
    if any(len(p) and p.min() < 0 for p in local[1:]):   # an id the first does not hold
        return None
    used = first.tolist()
    return (list(itemgetter(*used)(values)) if len(used) > 1 else [values[used[0]]]), local


def pack(rec: TraceRecorder) -> bytes:
    """One recorded cycle as bytes (the recorder is read, not changed)."""
    tables, filt, score, totals = rec.tables, rec._filter, rec._score, rec._totals
    # Plugins that scored the same node list share its ids (ScoreColumns.node_ids).
    id_arrays, id_index = [], {}
    for entry in score.plugins:
        if id(entry[2]) not in id_index:
            id_index[id(entry[2])] = len(id_arrays)
            id_arrays.append(entry[2])
    if totals is not None and id(totals.ids) not in id_index:
        id_index[id(totals.ids)] = len(id_arrays)
        id_arrays.append(totals.ids)
    extra_ids = list(filt.extras)
    names, (filter_names, extra_local, *score_ids) = _local_names(
        tables.names, [filt.names, array("i", extra_ids), *id_arrays])
    shapes, (shape_ids,) = _local(tables.shapes, [filt.shapes])
    tail = _Tail()
    head = {
        "data": rec._data,
        "names": names,
        "shapes": shapes,
        "filter": [tail.ids(filter_names, len(names)), tail.ids(shape_ids, len(shapes))],
        "extras": [[int(n), filt.extras[g]] for n, g in zip(extra_local.tolist(), extra_ids)],
        "ids": [tail.ids(ids, len(names)) for ids in score_ids],
        "score": [[plugin, weight, id_index[id(ids)], tail.column(raw),
                   tail.column(normalized), detail]
                  for plugin, weight, ids, raw, normalized, detail in score.plugins],
        "totals": None if totals is None else [id_index[id(totals.ids)],
                                               tail.column(totals.totals)],
    }
    text = _compact(head)
    return isal_zlib.compress(
        _HEAD.pack(FORMAT, len(text)) + text + b"".join(tail.parts), _LEVEL)


def _compact(head: dict) -> bytes:
    """head as compact JSON: orjson, or json where orjson refuses a value (an integer beyond
    64 bits). Either reads back as the same values."""
    try:
        return orjson.dumps(head, default=expand, option=orjson.OPT_NON_STR_KEYS)
    except orjson.JSONEncodeError:
        return json.dumps(head, separators=(",", ":"), default=expand).encode()


def unpack(blob: bytes) -> TraceRecorder:
    """The recorder that `pack` was given, as far as `data` and `pretty` show it."""
    raw = zlib.decompress(blob)
    fmt, size = _HEAD.unpack_from(raw)
    if fmt != FORMAT:
        raise ValueError(f"packed cycle: unknown format {fmt}")
    start = _HEAD.size
    head = json.loads(raw[start:start + size])
    reader = _Reader(memoryview(raw)[start + size:])
    tables = Tables()
    for name in head["names"]:
        tables.name_id(name)
    for passed, last in head["shapes"]:
        tables.shape_id(tuple(passed), None if last is None else
                        (last[0], last[1], tuple(last[2])))
    filt = FilterColumns()
    names_spec, shapes_spec = head["filter"]
    filt.names, filt.shapes = reader.ints(names_spec), reader.ints(shapes_spec)
    filt.extras = {nid: entries for nid, entries in head["extras"]}
    ids = [reader.ints(spec) for spec in head["ids"]]
    score = ScoreColumns()
    score.plugins = [(plugin, weight, ids[i], reader.column(r), reader.column(n), detail)
                     for plugin, weight, i, r, n, detail in head["score"]]
    totals = None
    if head["totals"] is not None:
        i, spec = head["totals"]
        totals = TotalColumns(ids[i], reader.column(spec))
    # The recorder as TraceRecorder.__init__ would leave it, with these columns in it.
    rec = TraceRecorder.__new__(TraceRecorder)
    rec.tables, rec._data, rec._filter, rec._score, rec._totals = (
        tables, head["data"], filt, score, totals)
    return rec


class _Reader:
    def __init__(self, view: memoryview):
        self.view = view
        self.at = 0

    def column(self, spec):
        typecode, value = spec
        if typecode == "json":
            return value
        out = array(typecode)
        end = self.at + out.itemsize * value
        out.frombytes(self.view[self.at:end])
        self.at = end
        return out

    def ints(self, spec) -> array:
        """A column of ids as the recorder keeps them (int32)."""
        return array("i", self.column(spec))


def fields(rec: TraceRecorder) -> dict:
    """What a stored cycle keeps beside its packed trace, read from the recorder as it is:
    index, time, pod, outcome, node, message, and whether it preempted."""
    data = rec._data
    return {key: data[key] for key in ("index", "time", "pod", "outcome", "node", "message")} | {
        "preempted": data["preemption"] is not None}
