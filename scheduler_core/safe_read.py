"""YAML and JSON from untrusted text, the one reader for files, uploads and request bodies.

Every limit is checked before anything recurses or expands: the nesting depth is measured on
libyaml's event stream (which is not recursive) or on a scan of the JSON text, and YAML
aliases are counted as the nodes they would expand to. A document past a limit is refused
with an InputError naming the source and the limit, never a RecursionError, a crash of the
C composer or a billion laughs in memory.

Both formats read values as the API server does (sigs.k8s.io/yaml turns YAML into JSON):
timestamps stay strings, and a string that is not valid Unicode (a lone surrogate such as
"\\uD83D") is refused by either reader with the same message.
"""
from __future__ import annotations

import json
import re

import numpy as np
import orjson
import yaml

from .errors import InputError

MAX_BYTES = 64 * 1024 * 1024
# Far deeper than any Kubernetes object (a pod's affinity terms are about 10 levels deep) and
# far below Python's recursion limit, which the loader's and the validators' walks share.
MAX_DEPTH = 100
# Nodes that aliases may add to a stream: sigs.k8s.io/yaml refuses "excessive aliasing" too.
MAX_ALIAS_NODES = 1_000_000

_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")
# orjson reads an integer past 64 bits as a float: texts with digit runs this long are not its.
LONG_DIGITS = 19
_OPENING = frozenset("[{")
_SURROGATE = "invalid Unicode: a lone surrogate escape (such as \\uD83D) is not a character"


def _loader_base():
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_loader_base()):
    """The safe loader without the timestamp type: "2024-01-01" stays the string it is in
    JSON, so what YAML and JSON give is the same and can be stored as JSON."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in _Loader.yaml_implicit_resolvers.items()
}


def _check_size(text: str, source: str) -> None:
    if len(text) > MAX_BYTES:
        raise InputError(f"is larger than the limit of {MAX_BYTES} bytes", file=source)


def _too_deep(source: str) -> InputError:
    return InputError(f"nesting is deeper than the limit of {MAX_DEPTH} levels", file=source)


def _check_yaml_events(text: str, source: str) -> None:
    """Depth and alias expansion measured on the event stream, before any node is built."""
    depth, nodes, alias_nodes = 0, 0, 0
    anchored: dict[str, int] = {}   # anchor -> nodes its value expands to
    open_anchors: list[tuple[str | None, int]] = []
    for event in yaml.parse(text, Loader=_loader_base()):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise _too_deep(source)
            nodes += 1
            open_anchors.append((event.anchor, nodes))
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
            anchor, start = open_anchors.pop()
            if anchor:
                anchored[anchor] = nodes - start + 1
        elif isinstance(event, yaml.ScalarEvent):
            nodes += 1
            if event.anchor:
                anchored[event.anchor] = 1
        elif isinstance(event, yaml.AliasEvent):
            size = anchored.get(event.anchor, 1)
            nodes += size
            alias_nodes += size
            if alias_nodes > MAX_ALIAS_NODES:
                raise InputError(f"YAML aliases expand to more than {MAX_ALIAS_NODES} nodes "
                                 "(excessive aliasing)", file=source)


def _check_json_depth(text: str, source: str) -> None:
    depth = 0
    for match in _BRACKET.finditer(_JSON_STRING.sub('""', text)):
        if match.group() in _OPENING:
            depth += 1
            if depth > MAX_DEPTH:
                raise _too_deep(source)
        else:
            depth -= 1


def _has_long_digits(data: np.ndarray) -> bool:
    """Whether the text (its UTF-8 bytes) has a run of LONG_DIGITS digits or more."""
    digits = np.flatnonzero((data >= 48) & (data <= 57))
    if len(digits) < LONG_DIGITS:
        return False
    breaks = np.flatnonzero(np.diff(digits) != 1)
    ends = np.r_[breaks, len(digits) - 1]
    starts = np.r_[0, breaks + 1]
    return bool(((ends - starts + 1) >= LONG_DIGITS).any())


def _json_depth(data: np.ndarray) -> int:
    """The deepest nesting of valid JSON text (its UTF-8 bytes): its brackets outside
    strings, counted on arrays (the text is valid, so a quote starts or ends a string unless
    an odd run of backslashes escapes it)."""
    slashes = np.flatnonzero(data == 92)
    quotes = np.flatnonzero(data == 34)
    if len(slashes) and len(quotes):
        # Runs of backslashes: where each ends and whether its length is odd.
        breaks = np.flatnonzero(np.diff(slashes) != 1)
        ends = slashes[np.r_[breaks, len(slashes) - 1]]
        starts = slashes[np.r_[0, breaks + 1]]
        odd_ends = ends[(ends - starts) % 2 == 0]
        quotes = quotes[~np.isin(quotes - 1, odd_ends)]
    opening = np.flatnonzero((data == 91) | (data == 123))
    closing = np.flatnonzero((data == 93) | (data == 125))
    events = np.concatenate([quotes, opening, closing])
    steps = np.concatenate([np.zeros(len(quotes), np.int64), np.ones(len(opening), np.int64),
                            np.full(len(closing), -1, np.int64)])
    order = np.argsort(events, kind="stable")
    is_quote = np.zeros(len(events), bool)
    is_quote[:len(quotes)] = True
    is_quote, steps = is_quote[order], steps[order]
    outside = np.cumsum(is_quote) % 2 == 0
    depth = np.cumsum(np.where(outside, steps, 0))
    return int(depth.max()) if len(depth) else 0


def _check_unicode(docs, source: str) -> None:
    try:
        json.dumps(docs, ensure_ascii=False, default=str).encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(_SURROGATE, file=source) from exc


def _parse_error(exc: Exception, source: str) -> InputError:
    text = " ".join(str(exc).split())
    if "invalid Unicode character escape code" in text:
        # libyaml's word for a surrogate escape; the Python reader and JSON give the other.
        return InputError(_SURROGATE, file=source)
    return InputError(f"cannot parse: {text}", file=source)


def is_json(text: str) -> bool:
    """JSON when the text starts with an object or an array, as kubectl tells them apart."""
    return text.lstrip().startswith(("{", "["))


def read_json(text: str, *, source: str = "") -> object:
    """One JSON value, within the limits.

    orjson reads it first (it refuses lone surrogates, as Go does), and the depth is measured
    on arrays over the text; whatever orjson refuses (NaN, bad syntax) is read again the slow
    way, which says what the matter is as it always has. So is a text with a long run of
    digits, which may hold an integer orjson would read as a float.
    """
    _check_size(text, source)
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        pass
    else:
        data = np.frombuffer(text.encode("utf-8", "surrogatepass"), np.uint8)
        if not _has_long_digits(data):
            if _json_depth(data) > MAX_DEPTH:
                raise _too_deep(source)
            return value
    _check_json_depth(text, source)
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise _parse_error(exc, source) from exc
    _check_unicode(value, source)
    return value


def read_yaml(text: str, *, source: str = "") -> list:
    """Every document of a YAML stream (None for an empty one), within the limits."""
    _check_size(text, source)
    try:
        _check_yaml_events(text, source)
        docs = list(yaml.load_all(text, Loader=_Loader))
    except (yaml.YAMLError, RecursionError) as exc:
        raise _parse_error(exc, source) from exc
    _check_unicode(docs, source)
    return docs


def read_documents(text: str, *, source: str = "") -> list:
    """The documents of a file: a JSON value (an array is a list of documents), or every
    non-empty document of a YAML stream."""
    if is_json(text):
        doc = read_json(text, source=source)
        return doc if isinstance(doc, list) else [doc]
    return [d for d in read_yaml(text, source=source) if d is not None]
