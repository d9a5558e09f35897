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

import functools
import json
import re
from dataclasses import dataclass

import numpy as np
import orjson

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


def _yaml():
    """PyYAML, imported when a YAML text is first read: a run from JSON files never needs it
    (its import is a measurable part of a short process's start)."""
    import yaml
    return yaml


def _loader_base():
    yaml = _yaml()
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class Duplicate:
    """A key given twice in one mapping: the API server warns of it (fieldValidation=Warn) and
    kube-scheduler refuses it; the value given last is the one kept, as in both."""
    document: int          # index among the non-empty documents
    key: object
    line: int | None       # 1-based line of the second key in the text (YAML)
    path: str = ""         # the field path (JSON), as sigs.k8s.io/json names it

    def message(self) -> str:
        """In the words of the parser the API server uses for the format."""
        if self.line is None:
            return f'duplicate field "{self.path}"'
        key = json.dumps(self.key) if isinstance(self.key, str) else _go_scalar(self.key)
        return f"line {self.line}: key {key} already set in map"


def _go_scalar(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "null" if value is None else str(value)


@functools.cache
def _loader_class():
    """The loader, made on first use (PyYAML is imported then)."""
    class _Loader(_loader_base()):
        """The safe loader without the timestamp type: "2024-01-01" stays the string it is in
        JSON, so what YAML and JSON give is the same and can be stored as JSON. It notes each
        key a mapping repeats (`duplicates`: (key, line)), as Go's strict YAML decoder does."""

        def __init__(self, stream):
            super().__init__(stream)
            self.duplicates: list[tuple[object, int]] = []

        def construct_yaml_map(self, node):
            data: dict = {}
            yield data
            self._note_duplicates(node)
            data.update(self.construct_mapping(node))

        def _note_duplicates(self, node) -> None:
            """Explicit keys only (before merge keys are flattened in): a key that `<<`
            merges in and the mapping overrides is no duplicate, in Go's decoder either."""
            if len(node.value) < 2:
                return
            seen = set()
            for key_node, _ in node.value:
                if (key_node.tag == "tag:yaml.org,2002:merge"
                        or not isinstance(key_node.value, str)):
                    continue
                marker = (key_node.tag, key_node.value)
                if marker in seen:
                    self.duplicates.append((self.construct_object(key_node),
                                            key_node.start_mark.line + 1))
                seen.add(marker)

    _Loader.add_constructor("tag:yaml.org,2002:map", _Loader.construct_yaml_map)
    _Loader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers
                if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in _Loader.yaml_implicit_resolvers.items()
    }

    return _Loader


def _check_size(text: str, source: str) -> None:
    if len(text) > MAX_BYTES:
        raise InputError(f"is larger than the limit of {MAX_BYTES} bytes", file=source)


def _too_deep(source: str) -> InputError:
    return InputError(f"nesting is deeper than the limit of {MAX_DEPTH} levels", file=source)


def _check_yaml_events(text: str, source: str) -> None:
    """Depth and alias expansion measured on the event stream, before any node is built."""
    yaml = _yaml()
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


def _json_structure(data: np.ndarray) -> tuple[int, int]:
    """The deepest nesting of valid JSON text (its UTF-8 bytes) and how many keys its objects
    hold (its colons): its brackets and colons outside strings, counted on arrays (the text
    is valid, so a quote starts or ends a string unless an odd run of backslashes escapes
    it). Byte by byte in chunks (no sort; memory bounded), the string parity and the depth
    carried from one chunk to the next."""
    escaped = _escaped_quotes(data)
    depth = keys = parity = 0
    deepest = 0
    for start in range(0, len(data), _CHUNK):
        chunk = data[start:start + _CHUNK]
        toggles = (chunk == 34).view(np.uint8)
        if len(escaped):
            inner = escaped[(escaped >= start) & (escaped < start + len(chunk))] - start
            toggles[inner] = 0
        # Inside a string where the count of quotes so far is odd (a running sum mod 256).
        inside = (np.cumsum(toggles, dtype=np.uint8) + parity) & 1
        parity = int(inside[-1])
        outside = inside == 0
        steps = ((chunk == 91) | (chunk == 123)).view(np.int8) - (
            (chunk == 93) | (chunk == 125)).view(np.int8)
        levels = np.cumsum(steps * outside, dtype=np.int32) + depth
        deepest = max(deepest, int(levels.max()))
        depth = int(levels[-1])
        keys += int(np.count_nonzero((chunk == 58) & outside))
    return deepest, keys


_CHUNK = 1 << 22
# In compact JSON a quote followed by a colon ends a key, unless the quote opens a string (after
# one of `{[,:`) or is escaped (after a backslash): texts with those are counted on arrays.
_NOT_A_KEY_END = (b'{":', b'[":', b',":', b':":', b'\\":')


def _keys_read(value) -> int:
    """How many keys the objects of a value orjson read hold: its compact text's `":` pairs
    (a byte search), or its colons outside strings where a string may start with a colon or
    hold an escaped quote before one."""
    text = orjson.dumps(value)
    if any(pattern in text for pattern in _NOT_A_KEY_END):
        return _json_structure(np.frombuffer(text, np.uint8))[1]
    return text.count(b'":')


def _escaped_quotes(data: np.ndarray) -> np.ndarray:
    """The positions of the quotes an odd run of backslashes escapes."""
    slashes = np.flatnonzero(data == 92)
    if not len(slashes):
        return slashes
    breaks = np.flatnonzero(np.diff(slashes) != 1)
    ends = slashes[np.r_[breaks, len(slashes) - 1]]
    starts = slashes[np.r_[0, breaks + 1]]
    after = ends[(ends - starts) % 2 == 0] + 1
    after = after[after < len(data)]
    return after[data[after] == 34]


def _utf8(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-8", "surrogatepass"), np.uint8)


def _check_unicode(docs, source: str) -> None:
    try:
        json.dumps(docs, ensure_ascii=False, default=str).encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(_SURROGATE, file=source) from exc


_TEMPLATE_HINT = " (a template? render it first, e.g. with `helm template`)"


def _yaml_error(exc: Exception, source: str, text: str) -> InputError:
    """libyaml's problem at its line and column, and the context it was in."""
    problem = " ".join(str(getattr(exc, "problem", "") or exc).split())
    if "invalid Unicode character escape code" in problem:
        # libyaml's word for a surrogate escape; the Python reader and JSON give the other.
        return InputError(_SURROGATE, file=source)
    mark = getattr(exc, "problem_mark", None)
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
    context = getattr(exc, "context", None)
    context_mark = getattr(exc, "context_mark", None)
    if context and context_mark is not None:
        problem += f" ({context} at line {context_mark.line + 1})"
    hint = _TEMPLATE_HINT if "{{" in text else ""
    return InputError(f"cannot parse YAML: {where}{problem}{hint}", file=source)


def _json_error(exc: Exception, source: str) -> InputError:
    if isinstance(exc, json.JSONDecodeError):
        return InputError(f"cannot parse JSON: line {exc.lineno}, column {exc.colno}: "
                          f"{exc.msg}", file=source)
    if "surrogate" in str(exc):
        return InputError(_SURROGATE, file=source)
    return InputError(f"cannot parse JSON: {' '.join(str(exc).split())}", file=source)


def is_json(text: str) -> bool:
    """JSON when the text starts with an object or an array, as kubectl tells them apart; a
    template's `{{` starts neither."""
    start = text.lstrip()
    return start.startswith(("{", "[")) and not start.startswith("{{")


def _json_value(text: str, source: str, duplicates: list) -> object:
    """json.loads noting every object that repeats a key: (the object, the keys)."""
    def pairs_hook(pairs):
        obj = dict(pairs)
        if len(obj) != len(pairs):
            seen: set = set()
            repeated = [k for k, _ in pairs if k in seen or seen.add(k)]
            duplicates.append((obj, repeated))
        return obj
    try:
        return json.loads(text, object_pairs_hook=pairs_hook)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise _json_error(exc, source) from exc


def read_json(text: str, *, source: str = "") -> object:
    """One JSON value, within the limits.

    orjson reads it first (it refuses lone surrogates, as Go does), and the depth is measured
    on arrays over the text; whatever orjson refuses (NaN, bad syntax) is read again the slow
    way, which says what the matter is as it always has. So is a text with a long run of
    digits, which may hold an integer orjson would read as a float.
    """
    return _read_json(text, source, [])


def _read_json(text: str, source: str, repeated: list) -> object:
    """read_json, noting every object that repeats a key in `repeated`: (the object, the
    keys). orjson keeps the last of repeated keys silently, so a text whose colons outnumber
    the keys orjson read is read again the slow way, which notes them."""
    _check_size(text, source)
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        pass
    else:
        data = _utf8(text)
        if not _has_long_digits(data):
            depth, keys = _json_structure(data)
            if depth > MAX_DEPTH:
                raise _too_deep(source)
            if keys == _keys_read(value):
                return value
    _check_json_depth(text, source)
    value = _json_value(text, source, repeated)
    _check_unicode(value, source)
    return value


def _yaml_documents(text: str, source: str) -> list[tuple[object, list]]:
    """Every document of the stream with the keys it repeats."""
    _check_size(text, source)
    yaml = _yaml()
    out = []
    try:
        _check_yaml_events(text, source)
        loader = _loader_class()(text)
        try:
            while loader.check_data():
                doc = loader.get_data()
                out.append((doc, loader.duplicates))
                loader.duplicates = []
        finally:
            loader.dispose()
    except (yaml.YAMLError, RecursionError) as exc:
        raise _yaml_error(exc, source, text) from exc
    _check_unicode([doc for doc, _ in out], source)
    return out


def read_yaml(text: str, *, source: str = "") -> list:
    """Every document of a YAML stream (None for an empty one), within the limits."""
    return [doc for doc, _ in _yaml_documents(text, source)]


def _json_paths(root, objects: set[int]) -> dict[int, str]:
    """The field path of each object (by id) in root, as sigs.k8s.io/json names a field:
    "spec.containers[0]". Iterative, like every walk of untrusted input here."""
    paths, pending = {}, [(root, "")]
    while pending and len(paths) < len(objects):
        value, path = pending.pop()
        if isinstance(value, dict):
            if id(value) in objects:
                paths[id(value)] = path
            pending += [(v, f"{path}.{k}" if path else str(k)) for k, v in value.items()]
        elif isinstance(value, list):
            pending += [(v, f"{path}[{i}]") for i, v in enumerate(value)]
    return paths


def _json_documents(text: str, source: str) -> tuple[list, list[Duplicate]]:
    repeated: list = []
    value = _read_json(text, source, repeated)
    docs = value if isinstance(value, list) else [value]
    duplicates = []
    if repeated:
        objects = {id(obj) for obj, _ in repeated}
        for index, doc in enumerate(docs):
            paths = _json_paths(doc, objects)
            duplicates += [Duplicate(index, key, None, f"{paths[id(obj)]}.{key}".lstrip("."))
                           for obj, keys in repeated if id(obj) in paths for key in keys]
    return docs, duplicates


def read_with_duplicates(text: str, *, source: str = "") -> tuple[list, list[Duplicate]]:
    """read_documents, and every key a mapping of a document repeats (in line order)."""
    if is_json(text):
        return _json_documents(text, source)
    return read_yaml_with_duplicates(text, source=source)


def read_yaml_with_duplicates(text: str, *, source: str = "") -> tuple[list, list[Duplicate]]:
    """The non-empty documents of a YAML stream and the keys they repeat (in line order)."""
    return _from_yaml(_yaml_documents(text, source))


def _from_yaml(documents: list[tuple[object, list]]) -> tuple[list, list[Duplicate]]:
    docs, duplicates = [], []
    for doc, repeated in documents:
        if doc is None:
            continue
        duplicates += [Duplicate(len(docs), key, line) for key, line in sorted(
            repeated, key=lambda pair: pair[1])]
        docs.append(doc)
    return docs, duplicates


def read_documents(text: str, *, source: str = "") -> list:
    """The documents of a file: a JSON value (an array is a list of documents), or every
    non-empty document of a YAML stream."""
    return read_with_duplicates(text, source=source)[0]
