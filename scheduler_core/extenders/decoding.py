"""JSON in Go's shape for the extender protocol (k8s.io/kube-scheduler/extender/v1).

Bodies are encoded as encoding/json would, and results are decoded as json.Unmarshal decodes
them into the v1 types: field names match case-insensitively, unknown fields are dropped, and a
value of the wrong kind fails with Go's own error text, which the trace then shows.
"""
from __future__ import annotations

import json
from datetime import UTC, date, datetime

from ..errors import is_int, json_kind


class ExtenderError(OSError):
    """A failed call: no connection, timeout, HTTP status, undecodable body or result.Error.

    An OSError so that DefaultPreemption's seam (which catches OSError and ValueError) and the
    scheduler treat every failure alike; str() is the message kube-scheduler would log.
    """


def _json_default(value):
    """YAML timestamps back to the RFC 3339 text Go's metav1.Time marshals."""
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            value = value.astimezone(UTC).replace(tzinfo=None)
        return value.strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, date):
        return value.isoformat()
    return str(value)


def encode(args) -> bytes:
    return json.dumps(args, default=_json_default, separators=(",", ":")).encode()


class _Number(float):
    """A JSON number with a fraction or exponent, remembering its text for Go's messages."""

    text = ""


def _parse_float(text: str) -> _Number:
    number = _Number(text)
    number.text = text
    return number


_DECODER = json.JSONDecoder(parse_float=_parse_float)


def _go_quote_char(ch: str) -> str:
    return "'\\''" if ch == "'" else f"'{ch}'"


def _go_value_error(text: str, pos: int) -> str:
    """The scanner error Go gives where Python expected a value."""
    if pos >= len(text):
        return "unexpected EOF"
    literal = {"t": "true", "f": "false", "n": "null"}.get(text[pos])
    if literal is None:
        return f"invalid character {_go_quote_char(text[pos])} looking for beginning of value"
    for i, want in enumerate(literal):
        if pos + i >= len(text):
            return "unexpected EOF"
        if text[pos + i] != want:
            return (f"invalid character {_go_quote_char(text[pos + i])} in literal {literal} "
                    f"(expecting {_go_quote_char(want)})")
    return f"invalid character {_go_quote_char(text[pos])} looking for beginning of value"


def decode_json(data: bytes):
    """json.Decoder.Decode: the first JSON value of the body; trailing bytes are not read."""
    text = data.decode("utf-8", errors="replace").lstrip(" \t\r\n")
    if not text:
        raise ExtenderError("EOF")
    try:
        value, _ = _DECODER.raw_decode(text)
    except json.JSONDecodeError as exc:
        if exc.msg == "Expecting value":
            raise ExtenderError(_go_value_error(text, exc.pos)) from None
        raise ExtenderError(f"invalid JSON: {exc.msg} (line {exc.lineno} column {exc.colno})"
                            ) from None
    return value


class _Struct:
    """A Go struct type: its name and its fields (JSON name -> field type)."""

    def __init__(self, go_type: str, fields: dict):
        self.go_type = go_type
        self.name = go_type.rsplit(".", 1)[-1]
        self.fields = fields


class _Slice:
    def __init__(self, elem, go_type: str):
        self.elem, self.go_type = elem, go_type


class _Map:
    def __init__(self, elem, go_type: str):
        self.elem, self.go_type = elem, go_type


_OBJECT_META = _Struct("v1.ObjectMeta", {"name": "string", "uid": "string"})
_NODE = _Struct("v1.Node", {"metadata": _OBJECT_META})
_NODE_LIST = _Struct("v1.NodeList", {"items": _Slice(_NODE, "[]v1.Node")})
_FAILED_NODES = _Map("string", "v1.FailedNodesMap")
FILTER_RESULT = _Struct("v1.ExtenderFilterResult", {
    "Nodes": _NODE_LIST,
    "NodeNames": _Slice("string", "[]string"),
    "FailedNodes": _FAILED_NODES,
    "FailedAndUnresolvableNodes": _FAILED_NODES,
    "Error": "string",
})
HOST_PRIORITY_LIST = _Slice(_Struct("v1.HostPriority", {"Host": "string", "Score": "int64"}),
                            "v1.HostPriorityList")
BINDING_RESULT = _Struct("v1.ExtenderBindingResult", {"Error": "string"})
_META_VICTIMS = _Struct("v1.MetaVictims", {
    "Pods": _Slice(_Struct("v1.MetaPod", {"UID": "string"}), "[]*v1.MetaPod"),
    "NumPDBViolations": "int64",
})
PREEMPTION_RESULT = _Struct("v1.ExtenderPreemptionResult", {
    "NodeNameToMetaVictims": _Map(_META_VICTIMS, "map[string]*v1.MetaVictims"),
})


def decode(value, spec, struct: str = "", path: tuple = ()):
    """encoding/json's Unmarshal into a Go type: field names match case-insensitively, unknown
    fields are dropped, null leaves the zero value (None for slices, maps and pointers), and a
    value of the wrong kind fails with Go's own UnmarshalTypeError text."""
    def mismatch(kind: str, go_type: str):
        if not path:
            return ExtenderError(f"json: cannot unmarshal {kind} into Go value of type {go_type}")
        return ExtenderError(f"json: cannot unmarshal {kind} into Go struct field "
                             f"{struct}.{'.'.join(path)} of type {go_type}")

    if value is None:
        return {"string": "", "int64": 0}.get(spec) if isinstance(spec, str) else None
    if spec == "string":
        if not isinstance(value, str):
            raise mismatch(json_kind(value), "string")
        return value
    if spec == "int64":
        if isinstance(value, _Number):
            raise mismatch(f"number {value.text}", "int64")
        if not is_int(value):
            raise mismatch(json_kind(value), "int64")
        return value
    if isinstance(spec, _Slice):
        if not isinstance(value, list):
            raise mismatch(json_kind(value), spec.go_type)
        return [decode(item, spec.elem, struct, path) for item in value]
    if isinstance(spec, _Map):
        if not isinstance(value, dict):
            raise mismatch(json_kind(value), spec.go_type)
        return {key: decode(item, spec.elem, struct, path) for key, item in value.items()}
    if not isinstance(value, dict):
        raise mismatch(json_kind(value), spec.go_type)
    out: dict = {}
    folded = {name.casefold(): name for name in spec.fields}
    for key, item in value.items():
        name = key if key in spec.fields else folded.get(key.casefold())
        if name is not None:
            out[name] = decode(item, spec.fields[name], spec.name, (*path, name))
    return out
