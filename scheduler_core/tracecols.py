"""The trace's columnar store: a cycle's Filter trails and scores as small integer arrays over
names interned once per trace, and the contract's indented JSON rendered from them.

A Filter trail (the plugins a node passed and the one that stopped it, with its code and
reasons) is interned as a "shape": at cluster scale a cycle has thousands of nodes but a handful
of shapes. The text is what json.dumps(cycle, indent=2) prints, byte for byte, built from pieces
rendered once per name and per shape instead of re-encoding every cycle.
"""
from __future__ import annotations

import json
from array import array
from operator import add, attrgetter

import numpy as np

_NAME = attrgetter("name")


def shift(text: str, depth: int) -> str:
    """json.dumps(..., indent=2) text placed `depth` spaces deep."""
    return text.replace("\n", "\n" + " " * depth) if depth else text


def dump_at(value, depth: int) -> str:
    return shift(json.dumps(value, indent=2), depth)


def column_bytes(values) -> int:
    return values.itemsize * len(values) if isinstance(values, array) else 8 * len(values)


_TYPECODES = (("b", 2**7), ("h", 2**15), ("i", 2**31), ("q", 2**63))


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
    low, high = int(values.min()), int(values.max())
    for code, bound in _TYPECODES:
        if -bound <= low and high < bound:
            out = array(code)
            out.frombytes(values.astype(np.dtype(code), copy=False).tobytes())
            return out
    return values.tolist()


def _narrowed(column: array) -> array:
    """An int32 column in the smallest type that holds it (read through numpy: no Python int
    per value)."""
    if column.typecode != "i" or not column:
        return column
    return _int_column_of_array(np.frombuffer(column, np.int32))


class Tables:
    """Names and trail shapes interned for the cycles of one trace."""

    def __init__(self):
        self.names: list[str] = []
        self.name_text: list[str] = []           # json.dumps(name)
        self._name_ids: dict[str, int] = {}
        self.shapes: list[tuple] = []            # (passed plugins, last entry or None)
        self._shape_ids: dict[tuple, int] = {}
        self._trail_text: dict[tuple[int, int], str] = {}
        self._row_ids: tuple[list, np.ndarray] | None = None
        self._prefixed: dict[tuple[int, str], list[str]] = {}
        self._score_tails: dict[tuple[int, int], dict[int, str]] = {}

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

    def prefixed(self, depth: int, suffix: str) -> list[str]:
        """Per name id, the name as a key `depth` deep followed by suffix: rendered once per
        name, depth and suffix for all the cycles of the trace."""
        texts = self._prefixed.setdefault((depth, suffix), [])
        if len(texts) < len(self.name_text):
            pad = " " * depth
            texts.extend(f"{pad}{text}: {suffix}" for text in self.name_text[len(texts):])
        return texts

    def score_tails(self, weight: int, depth: int, normalized) -> dict[int, str]:
        """The text after a node's raw score, per normalized score, `depth` deep."""
        tails = self._score_tails.setdefault((weight, depth), {})
        pad, inner = " " * depth, " " * (depth + 2)
        for n in set(normalized).difference(tails):
            tails[n] = f',\n{inner}"normalized": {n},\n{inner}"weighted": {n * weight}\n{pad}}}'
        return tails

    def trail_text(self, sid: int, depth: int) -> str:
        key = (sid, depth)
        text = self._trail_text.get(key)
        if text is None:
            text = self._trail_text[key] = dump_at(self.trail(sid), depth)
        return text


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

    def compact(self) -> None:
        """Once the cycle's Filter is over: each column in the smallest integer type that holds
        it (ids grow one append at a time, so they are collected as int32)."""
        self.names, self.shapes = _narrowed(self.names), _narrowed(self.shapes)

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

    def text(self, tables: Tables, depth: int) -> str:
        final = self.final()
        if not final:
            return "{}"
        heads = tables.prefixed(depth + 2, "")
        if self.extras:
            parts = [heads[nid] + self._trail_text(tables, nid, sid, depth + 2)
                     for nid, sid in final.items()]
        else:
            trails = {sid: tables.trail_text(sid, depth + 2) for sid in set(final.values())}
            parts = map(add, map(heads.__getitem__, final), map(trails.__getitem__,
                                                                final.values()))
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
            total += column_bytes(raw) + column_bytes(normalized)
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
        entry = (plugin, weight, self.node_ids(tables, nodes), int_column(raw),
                 int_column(normalized), detail)
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

    def text(self, tables: Tables, depth: int) -> str:
        if not self.plugins:
            return "{}"
        pad = " " * (depth + 2)
        parts = []
        for plugin, weight, ids, raw, normalized, detail in self.plugins:
            if detail or not isinstance(raw, array) or not isinstance(normalized, array):
                body = dump_at({tables.names[i]: {"raw": r, "normalized": n,
                                                  "weighted": n * weight,
                                                  **({"detail": detail} if detail else {})}
                                for i, r, n in zip(ids, raw, normalized)}, depth + 2)
            else:
                body = _node_scores_text(tables, ids, raw, normalized, weight, depth + 2)
            parts.append(f"{pad}{json.dumps(plugin)}: {body}")
        return "{\n" + ",\n".join(parts) + "\n" + " " * depth + "}"


def _node_scores_text(tables, ids, raw, normalized, weight, depth) -> str:
    if not ids:
        return "{}"
    heads = tables.prefixed(depth + 2, '{\n' + " " * (depth + 4) + '"raw": ')
    tails = tables.score_tails(weight, depth + 2, normalized)
    parts = map(add, map(add, map(heads.__getitem__, ids), map(str, raw)),
                map(tails.__getitem__, normalized))
    return "{\n" + ",\n".join(parts) + "\n" + " " * depth + "}"


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

    def text(self, tables: Tables, depth: int) -> str:
        if not isinstance(self.totals, array):
            return dump_at(self.to_dict(tables), depth)
        if not self.ids:
            return "{}"
        heads = tables.prefixed(depth + 2, "")
        parts = map(add, map(heads.__getitem__, self.ids), map(str, self.totals))
        return "{\n" + ",\n".join(parts) + "\n" + " " * depth + "}"
