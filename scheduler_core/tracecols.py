"""The trace's columnar store: a cycle's Filter trails and scores as small integer arrays over
names interned once per trace, and the contract's indented JSON rendered from them.

A Filter trail (the plugins a node passed and the one that stopped it, with its code and
reasons) is interned as a "shape": at cluster scale a cycle has thousands of nodes but a handful
of shapes. The text is what json.dumps(cycle, indent=2) prints, byte for byte, built from pieces
rendered once per name and per shape instead of re-encoding every cycle.
"""
from __future__ import annotations

import functools
import json
from array import array
from operator import attrgetter

import numpy as np
import orjson

_NAME = attrgetter("name")


def shift(text: str, depth: int) -> str:
    """json.dumps(..., indent=2) text placed `depth` spaces deep."""
    return text.replace("\n", "\n" + " " * depth) if depth else text


def dump_at(value, depth: int) -> str:
    return shift(json.dumps(value, indent=2), depth)


def dump_bytes(value, depth: int) -> bytes:
    """dump_at as bytes (json.dumps escapes every non-ASCII character: the text is ASCII)."""
    return dump_at(value, depth).encode()


@functools.cache
def key_text(key: str, depth: int) -> bytes:
    """A key of an object `depth` deep, as json.dumps(..., indent=2) prints it."""
    return f"{' ' * depth}{json.dumps(key)}: ".encode()


def column_bytes(values) -> int:
    return values.itemsize * len(values) if isinstance(values, array) else 8 * len(values)


_TYPECODES = (("b", 2**7), ("h", 2**15), ("i", 2**31), ("q", 2**63))
_LOWEST, _HIGHEST, _BITS = np.minimum.reduce, np.maximum.reduce, np.bitwise_or.reduce


def int_column(values) -> array | list:
    """The smallest signed integer array that holds the values when they are all plain ints
    in int64's range, else the list itself."""
    if isinstance(values, np.ndarray):
        return _int_column_of_array(values)
    if not values:
        return array("b")
    if not set(map(type, values)) <= {int}:  # bools and floats print differently
        return list(values)
    low, high = min(values), max(values)
    for code, bound in _TYPECODES:
        if -bound <= low and high < bound:
            return array(code, values)
    return list(values)


def _int_column_of_array(values: np.ndarray) -> array | list:
    """int_column of a numpy array, converted without a Python int per value."""
    if values.dtype.kind not in "iu":
        return values.tolist()
    if not len(values):
        return array("b")
    # One reduce for the usual scores, all >= 0: their OR is below 2**k exactly when their
    # maximum is (the bounds are powers of two), and negative when a value is.
    bits = int(_BITS(values))
    low, high = (0, bits) if bits >= 0 else (int(_LOWEST(values)), int(_HIGHEST(values)))
    for code, bound in _TYPECODES:
        if -bound <= low and high < bound:
            out = array(code)
            out.frombytes(values.astype(np.dtype(code), copy=False).tobytes())
            return out
    return values.tolist()


def ids_column(values: np.ndarray, count: int) -> array:
    """Ids known to lie in [0, count) in the smallest signed type that holds count - 1: no
    pass over the values to find their bounds (int_column's, when count - 1 is among them)."""
    for code, bound in _TYPECODES:
        if count <= bound:
            out = array(code)
            out.frombytes(values.astype(np.dtype(code), copy=False).tobytes())
            return out
    raise ValueError(f"{count} ids do not fit in int64")


def _narrowed(column: array, count: int) -> array:
    """An int32 column of ids in [0, count) in the smallest type that holds count - 1 (read
    through numpy: no Python int per value)."""
    if column.typecode != "i" or not column:
        return column
    return ids_column(np.frombuffer(column, np.int32), count)


def int_values(column) -> np.ndarray | None:
    """An integer column (array) as int64 numpy, None for a plain list (other values)."""
    if not isinstance(column, array):
        return None
    return np.frombuffer(column, np.dtype(column.typecode)).astype(np.int64)


def map_chunks(tables: Tables, kind: tuple, make, ids, keys, depth: int, slot=None) -> list:
    """A JSON object `depth` deep, as pieces of text (bytes, or memoryviews of text kept for
    the trace): per node, its name as a key then the text of its key (make(key) the first
    time, kept for the trace as kind's). ids: NodeIds (or a numpy array of them); keys: a
    numpy array, or one int for every node.

    Runs of consecutive ids with one key (nodes visited in row order, scored alike) are each
    a slice of text kept for the trace (Tables.runs); a map of many short runs is joined from
    per-node pieces kept per slot (Tables.nodes: the map's name, e.g. its plugin). No Python
    frame per node."""
    if not isinstance(ids, NodeIds):
        ids = NodeIds(ids)
    count = len(ids.ids)
    if not count:
        return [b"{}"]
    # (numpy's methods and operators: its Python wrappers cost more than a short map)
    if isinstance(keys, int):
        breaks = ids.breaks()
    else:
        breaks = (ids.steps() | (keys[1:] != keys[:-1])).nonzero()[0]
    if len(breaks) * 8 < count:
        starts = np.empty(len(breaks) + 1, np.int64)
        starts[0] = 0
        starts[1:] = breaks + 1
        ends = np.empty_like(starts)
        ends[:-1] = starts[1:]
        ends[-1] = count
        run_keys = [keys] * len(starts) if isinstance(keys, int) else keys[starts].tolist()
        parts = [b"{\n", *tables.runs(kind, make, ids.ids[starts].tolist(), run_keys,
                                      (ends - starts).tolist(), depth + 2)]
    else:
        parts = [b"{\n", tables.nodes((kind, slot), kind, make, ids.ids, keys, depth + 2)]
    parts[-1] = memoryview(parts[-1])[:-2]          # no comma after the last
    parts.append(_CLOSE[depth])
    return parts if len(parts) < _PIECES_JOINED_FROM else [b"".join(parts)]


class NodeIds:
    """A map's node ids (numpy) and where they stop being consecutive, worked out once for
    the maps over one node list (each plugin's scores, the totals)."""

    __slots__ = ("_breaks", "_steps", "ids")

    def __init__(self, ids: np.ndarray):
        self.ids = ids
        self._steps = self._breaks = None

    def steps(self) -> np.ndarray:
        """Per pair of neighbours, whether the second is not the first's next id."""
        if self._steps is None:
            self._steps = self.ids[1:] != self.ids[:-1] + 1
        return self._steps

    def breaks(self) -> np.ndarray:
        if self._breaks is None:
            self._breaks = self.steps().nonzero()[0]
        return self._breaks


class _Closers(dict):
    def __missing__(self, depth: int) -> bytes:
        text = self[depth] = b"\n" + b" " * depth + b"}"
        return text


_CLOSE = _Closers()


class Tables:
    """Names and trail shapes interned for the cycles of one trace."""

    def __init__(self):
        self.names: list[str] = []
        self.name_text: list[str] = []           # json.dumps(name)
        self._name_ids: dict[str, int] = {}
        self.shapes: list[tuple] = []            # (passed plugins, last entry or None)
        self._shape_ids: dict[tuple, int] = {}
        self._row_ids: tuple[list, np.ndarray] | None = None
        self._ranks = np.empty(0, np.int64)
        self._heads: dict[int, list[bytes]] = {}
        self._values: dict[tuple, dict] = {}
        self._dumped: dict[tuple[int, bytes], bytes] = {}
        self._rotations: dict[tuple, tuple[memoryview, list[int]]] = {}
        self._rotation_bytes = 0
        self._run_nodes: dict[tuple, int] = {}
        self._pieces: dict[object, tuple[list, np.ndarray]] = {}

    def name_id(self, name: str) -> int:
        nid = self._name_ids.get(name)
        if nid is None:
            nid = self._name_ids[name] = len(self.names)
            self.names.append(name)
            self.name_text.append(json.dumps(name))
        return nid

    def ids_of(self, names) -> array:
        """name_id of each name, as an int32 array."""
        ids = list(map(self._name_ids.get, names))
        if None in ids:
            ids = [self.name_id(name) for name in names]
        return array("i", ids)

    def row_ids(self, names: list[str]) -> np.ndarray:
        """name_id of each name of the node columns' rows (a list kept for the columns'
        life, so known by identity), interned once."""
        if self._row_ids is None or self._row_ids[0] is not names:
            self._row_ids = (names, np.frombuffer(self.ids_of(names), np.int32))
        return self._row_ids[1]

    def ranks(self) -> np.ndarray:
        """Per name id, the name's place among the names sorted (as Python compares them),
        sorted again only once names were added."""
        if len(self._ranks) != len(self.names):
            order = sorted(range(len(self.names)), key=self.names.__getitem__)
            self._ranks = np.empty(len(order), np.int64)
            self._ranks[order] = np.arange(len(order))
        return self._ranks

    def shape_id(self, passed: tuple, last: tuple | None) -> int:
        """last: (plugin, code label, reasons tuple) of the entry that ended the trail."""
        key = (passed, last)
        sid = self._shape_ids.get(key)
        if sid is None:
            sid = self._shape_ids[key] = len(self.shapes)
            self.shapes.append(key)
        return sid

    def trail(self, sid: int) -> list[dict]:
        passed, last = self.shapes[sid]
        out = [{"plugin": p, "code": "Success", "reasons": []} for p in passed]
        if last is not None:
            out.append({"plugin": last[0], "code": last[1], "reasons": list(last[2])})
        return out

    def heads(self, depth: int) -> list[bytes]:
        """Per name id, the name as a key `depth` deep: rendered once per name and depth for
        all the cycles of the trace."""
        texts = self._heads.setdefault(depth, [])
        if len(texts) < len(self.name_text):
            pad = " " * depth
            texts.extend(f"{pad}{text}: ".encode() for text in self.name_text[len(texts):])
        return texts

    def values(self, kind: tuple) -> dict:
        """The texts of one kind of node value (a trail, a score, a total) at one depth, per
        key, each followed by ",\n": rendered once for all the cycles of the trace."""
        return self._values.setdefault(kind, {})

    def text(self, kind: tuple, make, key) -> bytes:
        """kind's text of key followed by ",\n", rendered once for the trace."""
        texts = self.values(kind)
        text = texts.get(key)
        if text is None:
            text = texts[key] = make(key).encode() + b",\n"
        return text

    def runs(self, kind: tuple, make, firsts: list, keys: list, counts: list,
             depth: int) -> list:
        """Per run, the names first..first+count-1 as keys `depth` deep, each followed by
        kind's text of the run's key. A long run is a slice of its key's *rotation*, the text
        of every name followed by that text, built once the key's long runs have covered the
        names twice (the rotating start index comes back to them) and then written again
        without being copied."""
        heads = self.heads(depth)
        out = []
        for first, key, count in zip(firsts, keys, counts):
            text = self.text(kind, make, key)
            if count < _RUN_KEPT_FROM:
                out += (text.join(heads[first:first + count]), text)
                continue
            rotation = self._rotation(kind, key, text, heads, count)
            if rotation is not None and first + count < len(rotation[1]):
                whole, ends = rotation
                out.append(whole[ends[first]:ends[first + count]])
            else:
                out += (text.join(heads[first:first + count]), text)
        return out

    def _rotation(self, kind, key, text: bytes, heads: list[bytes], count: int):
        """(memoryview of the rotation, offsets where each name starts, then its end), or None
        while the key's long runs have not yet covered the names twice."""
        rotation = self._rotations.get((kind, key))
        if rotation is not None and len(rotation[1]) > len(heads):
            return rotation
        seen = self._run_nodes[(kind, key)] = self._run_nodes.get((kind, key), 0) + count
        if seen < 2 * len(heads):
            return rotation
        whole = text.join(heads) + text
        if rotation is not None:   # built before more names were interned
            self._rotation_bytes -= len(rotation[0])
        if self._rotation_bytes + len(whole) > _ROTATION_BYTES_KEPT:
            self._rotations.clear()
            self._rotation_bytes = 0
        ends = np.zeros(len(heads) + 1, np.int64)
        np.cumsum(np.fromiter(map(len, heads), np.int64, len(heads)) + len(text), out=ends[1:])
        rotation = self._rotations[(kind, key)] = (memoryview(whole), ends.tolist())
        self._rotation_bytes += len(whole)
        self._run_nodes[(kind, key)] = 0
        return rotation

    def nodes(self, slot, kind: tuple, make, ids: np.ndarray, keys: np.ndarray | int,
              depth: int) -> bytes:
        """The nodes' pieces (name as a key `depth` deep, then kind's text of its key) joined,
        each piece kept per slot and node for the next map of that slot, which mostly
        gives the nodes the same keys (a map's scores change where the last pod went).
        ids are distinct."""
        pieces, have = self._pieces_of(slot)
        stale = (have[ids] != keys).nonzero()[0]
        if len(stale):
            heads = self.heads(depth)
            changed = ids[stale]
            new_keys = keys if isinstance(keys, int) else keys[stale]
            for nid, key in zip(changed.tolist(), [keys] * len(stale)
                                if isinstance(keys, int) else new_keys.tolist()):
                pieces[nid] = heads[nid] + self.text(kind, make, key)
            have[changed] = new_keys
        return b"".join(map(pieces.__getitem__, ids.tolist()))

    def _pieces_of(self, slot) -> tuple[list, np.ndarray]:
        """slot's per-node pieces and the key each was rendered for (_UNSET: none yet),
        covering every name interned so far."""
        kept = self._pieces.get(slot)
        count = len(self.names)
        if kept is None or len(kept[0]) < count:
            pieces, have = kept if kept is not None else ([], np.zeros(0, np.int64))
            pieces.extend([b""] * (count - len(pieces)))
            have = np.concatenate((have, np.full(count - len(have), _UNSET, np.int64)))
            kept = self._pieces[slot] = (pieces, have)
        return kept

    def trail_text(self, sid: int, depth: int) -> str:
        return dump_at(self.trail(sid), depth)

    def dumped(self, value, depth: int) -> bytes:
        """dump_bytes(value, depth), kept per value for the cycles that repeat it (a cycle's
        preFilter, preScore, bind... entries are mostly those of the cycle before).

        orjson's compact text is the key: it tells values apart as json.dumps does, except
        that NaN, infinities and None all write null (such values are not kept)."""
        if not isinstance(value, (list, tuple, dict)):
            return json.dumps(value).encode()   # a scalar: the C encoder, nothing to keep
        try:
            key = orjson.dumps(value)
        except TypeError:                 # what orjson refuses (non-str keys, big ints)
            return dump_bytes(value, depth)
        if b"null" in key:
            return _pretty(value, key, depth)
        text = self._dumped.get((depth, key))
        if text is None:
            if len(self._dumped) >= _DUMPED_KEPT:
                self._dumped.clear()
            text = self._dumped[(depth, key)] = _pretty(value, key, depth)
        return text


_DUMPED_KEPT = 4096
_RUN_KEPT_FROM, _ROTATION_BYTES_KEPT = 64, 64 << 20
_UNSET = np.iinfo(np.int64).min
_PIECES_JOINED_FROM = 256


def _pretty(value, compact: bytes, depth: int) -> bytes:
    """dump_bytes(value, depth), by orjson when its compact text (given) is json.dumps': the
    same tokens, so the same indented text (floats, NaN, non-ASCII and DEL are written
    differently, and then json.dumps writes it)."""
    if json.dumps(value, separators=(",", ":")).encode() != compact:
        return dump_bytes(value, depth)
    text = orjson.dumps(value, option=orjson.OPT_INDENT_2)
    return text.replace(b"\n", b"\n" + b" " * depth) if depth else text


def status_entry(plugin: str, status) -> tuple:
    return (plugin, status.code.label, tuple(status.reasons))


class FilterColumns:
    """The `filter` map of one cycle: node ids and shape ids in the order nodes were first
    evaluated (a node evaluated twice keeps its place and its last trail), plus the entries
    extenders appended to some trails."""

    __slots__ = ("extras", "names", "shapes")

    def __init__(self):
        self.names = array("i")
        self.shapes = array("i")
        self.extras: dict[int, list[dict]] = {}

    def add(self, name_id: int, shape_id: int) -> None:
        self.names.append(name_id)
        self.shapes.append(shape_id)

    def extend(self, name_ids: array, shape_ids: array) -> None:
        self.names.extend(name_ids)
        self.shapes.extend(shape_ids)

    def compact(self, tables: Tables) -> None:
        """Once the cycle's Filter is over: each column in the smallest integer type that holds
        the ids of the trace's tables (ids grow one append at a time, so they are collected as
        int32)."""
        self.names = _narrowed(self.names, len(tables.names))
        self.shapes = _narrowed(self.shapes, len(tables.shapes))

    def nbytes(self) -> int:
        return column_bytes(self.names) + column_bytes(self.shapes) + sum(
            len(json.dumps(e)) for entries in self.extras.values() for e in entries)

    def final(self) -> dict[int, int]:
        """name id -> shape id, in first-evaluation order, last trail winning."""
        out = dict(zip(self.names, self.shapes))
        for nid in self.extras:
            out.setdefault(nid, -1)  # an extender's verdict on a node no plugin filtered
        return out

    def to_dict(self, tables: Tables) -> dict:
        out = {}
        for nid, sid in self.final().items():
            trail = tables.trail(sid) if sid >= 0 else []
            out[tables.names[nid]] = trail + [dict(e) for e in self.extras.get(nid, ())]
        return out

    def chunks(self, tables: Tables, depth: int) -> list[bytes]:
        """The map's text `depth` deep, in pieces."""
        names, shapes = int_values(self.names), int_values(self.shapes)
        if self.extras or names is None or shapes is None:
            return [self._text(tables, depth).encode()]
        if len(names) and np.bincount(names).max() > 1:   # a node evaluated twice
            final = self.final()
            names = np.fromiter(final, np.int64, len(final))
            shapes = np.fromiter(final.values(), np.int64, len(final))
        return map_chunks(tables, ("trail", depth + 2),
                          lambda sid: tables.trail_text(sid, depth + 2), names, shapes, depth)

    def _text(self, tables: Tables, depth: int) -> str:
        final = self.final()
        if not final:
            return "{}"
        pad = " " * (depth + 2)
        parts = [f"{pad}{tables.name_text[nid]}: " + self._trail_text(tables, nid, sid, depth + 2)
                 for nid, sid in final.items()]
        return "{\n" + ",\n".join(parts) + "\n" + " " * depth + "}"

    def _trail_text(self, tables: Tables, nid: int, sid: int, depth: int) -> str:
        extra = self.extras.get(nid)
        if extra is None:
            return tables.trail_text(sid, depth)
        return dump_at((tables.trail(sid) if sid >= 0 else []) + extra, depth)


class ScoreColumns:
    """The `score` map of one cycle: per plugin its raw and normalized scores over the nodes
    scored (node ids shared by the plugins that scored the same list)."""

    __slots__ = ("_last_nodes", "plugins")

    def __init__(self):
        self.plugins: list[tuple] = []   # (plugin, weight, node ids, raw, normalized, detail)
        self._last_nodes = (None, None)

    def nbytes(self) -> int:
        seen, total = set(), 0
        for _, _, ids, raw, normalized, _ in self.plugins:
            if id(ids) not in seen:
                seen.add(id(ids))
                total += column_bytes(ids)
            total += column_bytes(raw) + (0 if normalized is raw else column_bytes(normalized))
        return total

    def release(self) -> None:
        """Forget the last node list (the cycle is over): a trace keeps ids, not node infos."""
        self._last_nodes = (None, None)

    def node_ids(self, tables: Tables, nodes) -> array:
        source, ids = self._last_nodes
        if source is not nodes:
            rows = getattr(nodes, "rows", None)   # the columns path's feasible nodes
            if rows is not None:
                ids = array("i", tables.row_ids(nodes.names)[rows].tobytes())
            else:
                ids = tables.ids_of(list(map(_NAME, nodes)))
            self._last_nodes = (nodes, ids)
        return ids

    def add(self, tables, plugin, nodes, raw, normalized, weight, detail) -> None:
        raw_column = int_column(raw)
        # Without NormalizeScore the normalized scores are the raw ones: one column for both.
        entry = (plugin, weight, self.node_ids(tables, nodes), raw_column,
                 raw_column if normalized is raw else int_column(normalized), detail)
        # A plugin scoring again replaces its scores in place, as the dict it stands for would.
        for i, existing in enumerate(self.plugins):
            if existing[0] == plugin:
                self.plugins[i] = entry
                return
        self.plugins.append(entry)

    def to_dict(self, tables: Tables) -> dict:
        out = {}
        for plugin, weight, ids, raw, normalized, detail in self.plugins:
            extra = {"detail": detail} if detail else {}
            out[plugin] = {tables.names[i]: {"raw": r, "normalized": n, "weighted": n * weight,
                                             **extra}
                           for i, r, n in zip(ids, raw, normalized)}
        return out

    def chunks(self, tables: Tables, depth: int) -> list[bytes]:
        """The map's text `depth` deep, in pieces."""
        if not self.plugins:
            return [b"{}"]
        parts = [b"{\n"]
        node_ids = {}    # plugins that scored the same node list share its ids
        for plugin, weight, ids, raw, normalized, detail in self.plugins:
            parts.append(key_text(plugin, depth + 2))
            keys = None if detail or not isinstance(ids, array) else _score_keys(
                raw, normalized)
            if keys is None:
                parts.append(dump_bytes({tables.names[i]: {"raw": r, "normalized": n,
                                                        "weighted": n * weight,
                                                        **({"detail": detail} if detail else {})}
                                      for i, r, n in zip(ids, raw, normalized)}, depth + 2))
            else:
                if id(ids) not in node_ids:
                    node_ids[id(ids)] = NodeIds(int_values(ids))
                parts += map_chunks(tables, ("score", weight, depth + 4),
                                    _score_text(weight, depth + 4), node_ids[id(ids)], keys,
                                    depth + 2, plugin)
            parts.append(b",\n")
        parts[-1] = b"\n" + b" " * depth + b"}"
        return parts


_RAW_TYPES, _NORMALIZED_TYPES = "bhi", "bh"


def _score_keys(raw, normalized) -> np.ndarray | int | None:
    """One integer per node for its (raw, normalized) pair (one int when every node has the
    same pair), when both are integer columns small enough to pack (raw in int32, normalized
    in int16), else None."""
    if not (isinstance(raw, array) and raw.typecode in _RAW_TYPES
            and isinstance(normalized, array) and normalized.typecode in _NORMALIZED_TYPES):
        return None
    if raw and raw.count(raw[0]) == len(raw) and (
            normalized is raw or normalized.count(normalized[0]) == len(normalized)):
        return (raw[0] << 16) + normalized[0] + 2**15
    keys = int_values(raw) << 16
    keys += int_values(normalized)
    keys += 2**15
    return keys


def _score_text(weight: int, depth: int):
    """make() of a node's scores `depth` deep from the key _score_keys packed."""
    pad, inner = " " * depth, " " * (depth + 2)

    def make(key: int) -> str:
        raw, normalized = key >> 16, (key & 0xFFFF) - 2**15
        return (f'{{\n{inner}"raw": {raw},\n{inner}"normalized": {normalized},\n'
                f'{inner}"weighted": {normalized * weight}\n{pad}}}')
    return make


class TotalColumns:
    """The `totalScore` map of one cycle."""

    __slots__ = ("ids", "totals")

    def __init__(self, ids, totals):
        self.ids = ids
        self.totals = int_column(totals)

    def nbytes(self) -> int:
        return column_bytes(self.totals)  # the ids are the scores' own

    def to_dict(self, tables: Tables) -> dict:
        return {tables.names[i]: t for i, t in zip(self.ids, self.totals)}

    def chunks(self, tables: Tables, depth: int) -> list[bytes]:
        """The map's text `depth` deep, in pieces."""
        totals = int_values(self.totals)
        if totals is None:
            return [dump_bytes(self.to_dict(tables), depth)]
        return map_chunks(tables, ("total", depth + 2), str, int_values(self.ids), totals, depth)
