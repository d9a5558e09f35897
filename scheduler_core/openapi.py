"""The Kubernetes API's field names and integer formats, from the OpenAPI document of each
release as the kubernetes-validate package ships it (kept up to date upstream, one copy per
minor release), so that no list of field names is kept by hand here.

`field_problems` walks an object against the definition of its kind the way the API server's
decoder does: a field the type does not have is an unknown field (a warning with
fieldValidation=Warn, an error with Strict; the object is used without it), and an integer
out of the range of its Go type is a decoding error, worded as encoding/json words it.
Walks are iterative, like every walk of untrusted input in the engine.
"""
from __future__ import annotations

import importlib.util
import json
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache

from .errors import InputError, is_int

# The releases the engine follows (--release) and kubernetes-validate's folder for each.
SCHEMA_DIRS = {"1.34": "v1.34.0-local", "1.35": "v1.35.0-local", "1.36": "v1.36.0-local",
               "1.37": "v1.37.0-local"}
DEFAULT_RELEASE = "1.37"
_INT_RANGES = {"int32": (-(2 ** 31), 2 ** 31 - 1), "int64": (-(2 ** 63), 2 ** 63 - 1)}
_REF_PREFIX = "#/$defs/"
_INDEX = re.compile(r"\[\d+\]")


def _schema_file(release: str) -> str:
    # The package's data, found without importing it (its import pulls in jsonschema).
    spec = importlib.util.find_spec("kubernetes_validate")
    root = list(spec.submodule_search_locations)[0]
    return os.path.join(root, "kubernetes-json-schema", SCHEMA_DIRS[release], "_definitions.json")


@lru_cache(maxsize=len(SCHEMA_DIRS))
def definitions(release: str = DEFAULT_RELEASE) -> dict:
    """Definition name ("io.k8s.api.core.v1.PodSpec") -> its JSON schema."""
    with open(_schema_file(release), encoding="utf-8") as fh:
        return json.load(fh)["$defs"]


@lru_cache(maxsize=len(SCHEMA_DIRS))
def _kinds(release: str) -> dict[tuple[str, str], str]:
    out = {}
    for name, schema in definitions(release).items():
        for gvk in schema.get("x-kubernetes-group-version-kind") or []:
            group_version = f"{gvk['group']}/{gvk['version']}" if gvk["group"] else gvk["version"]
            out[(group_version, gvk["kind"])] = name
    return out


def served_versions(group: str, kind: str, release: str = DEFAULT_RELEASE) -> list[str]:
    """The group/version strings under which the release's API server serves the kind."""
    return sorted(gv for gv, k in _kinds(release) if k == kind and gv.startswith(group + "/"))


def check_served(obj: dict, group: str, release: str, where: str) -> None:
    """InputError naming the served versions when the release's API server does not serve
    the object's kind at its apiVersion."""
    kind, api_version = obj.get("kind"), obj.get("apiVersion")
    served = served_versions(group, kind, release)
    if api_version not in served:
        raise InputError(f'no kind "{kind}" is registered for version "{api_version}" in '
                         f'kube-apiserver v{release} (served: {", ".join(served) or "none"})',
                         obj=where, field="apiVersion")


def kind_definition(api_version: str, kind: str, release: str = DEFAULT_RELEASE) -> str | None:
    """The definition of a kind at an apiVersion the release serves, or None."""
    return _kinds(release).get((api_version, kind))


@dataclass
class FieldProblems:
    unknown: list[str] = field(default_factory=list)             # field paths, sorted
    out_of_range: list[tuple[str, str]] = field(default_factory=list)   # (path, message)


def _range_error(value: int, path: str, go_type: str, fmt: str) -> str:
    """encoding/json's UnmarshalTypeError: its field path leaves the list indexes out."""
    return (f"json: cannot unmarshal number {value} into Go struct field "
            f"{go_type}.{_INDEX.sub('', path)} of type {fmt}")


def field_problems(obj: dict, definition: str, release: str = DEFAULT_RELEASE, *,
                   drop: bool = True, keep: frozenset[str] = frozenset()) -> FieldProblems:
    """The unknown fields and out-of-range integers of obj against a definition; with drop,
    each unknown field is removed from obj, as the decoder leaves it out of the object.
    keep: paths left alone (neither reported nor dropped), for another check to explain."""
    if _certainly_clean(obj, definition, release):
        return FieldProblems()
    return walk_field_problems(obj, definition, release, drop=drop, keep=keep)


def walk_field_problems(obj: dict, definition: str, release: str = DEFAULT_RELEASE, *,
                        drop: bool = True, keep: frozenset[str] = frozenset()) -> FieldProblems:
    """field_problems by the walk alone, which names every problem."""
    defs = definitions(release)
    problems = FieldProblems()
    # (value, schema, path, the Go type holding the field) for each value still to walk.
    pending = [(obj, {"$ref": _REF_PREFIX + definition}, "", definition.rsplit(".", 1)[-1])]
    while pending:
        value, schema, path, go_type = pending.pop()
        ref = schema.get("$ref")
        if ref is not None:
            schema = defs.get(ref[len(_REF_PREFIX):], {})
            go_type = ref.rsplit(".", 1)[-1]
        if isinstance(value, dict):
            pending += _children_of_object(value, schema, path, go_type, problems, drop, keep)
        elif isinstance(value, list) and "items" in schema:
            pending += [(v, schema["items"], f"{path}[{i}]", go_type)
                        for i, v in enumerate(value)]
        elif is_int(value) and schema.get("format") in _INT_RANGES:
            low, high = _INT_RANGES[schema["format"]]
            if not low <= value <= high:
                problems.out_of_range.append(
                    (path, _range_error(value, path, go_type, schema["format"])))
    problems.unknown.sort()
    return problems


def _children_of_object(value: dict, schema: dict, path: str, go_type: str,
                        problems: FieldProblems, drop: bool, keep: frozenset[str]) -> list:
    properties = schema.get("properties")
    if properties is not None:
        children = []
        for key in list(value):
            child_path = f"{path}.{key}" if path else str(key)
            if key in properties:
                children.append((value[key], properties[key], child_path, go_type))
            elif child_path not in keep:
                problems.unknown.append(child_path)
                if drop:
                    del value[key]
        return children
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        return [(v, extra, f"{path}.{k}" if path else str(k), go_type) for k, v in value.items()]
    return []      # a free-form object (RawExtension, JSON): nothing to check


# --- the common case, decided without the walk -------------------------------------------------
# The walk above builds a path for every value of the object; an object with no unknown field
# and no integer out of range (nearly every one) is told apart by checkers made once per
# schema, which look only at the values where a problem can be (objects, lists, integers of a
# ranged format) and build no path. Any doubt sends the object to the walk, whose answer it is.
_CLEAN: dict[tuple[str, int], object] = {}


def _certainly_clean(obj, definition: str, release: str) -> bool:
    """True when field_problems would find nothing in obj (False: it may)."""
    check = _clean_checker(release, {"$ref": _REF_PREFIX + definition}, definition)
    try:
        return check(obj)
    except RecursionError:      # a value nested past the stack: the iterative walk decides
        return False


def _clean_checker(release: str, schema: dict, key=None):
    """The checker of a schema (the definition's name, or the schema's id, as key): one per
    schema, kept with it."""
    key = (release, id(schema) if key is None else key)
    entry = _CLEAN.get(key)
    if entry is None or (isinstance(key[1], int) and entry[0] is not schema):
        entry = _CLEAN[key] = (schema, _make_clean_checker(release, schema))
    return entry[1]


def _always(value) -> bool:
    return True


def _make_clean_checker(release: str, schema: dict):
    """The walk's step for one schema: a reference resolved once, then what a dict, a list or
    an integer value meets there. Children are looked up when first met (schemas nest
    themselves), so a schema's checker is made before its children's."""
    ref = schema.get("$ref")
    if ref is not None:
        schema = definitions(release).get(ref[len(_REF_PREFIX):], {})
    properties = schema.get("properties")
    extra = schema.get("additionalProperties")
    items = schema.get("items")
    bounds = _INT_RANGES.get(schema.get("format"))
    if properties is None and not isinstance(extra, dict) and items is None and bounds is None:
        return _always
    on_dict = _always
    if properties is not None:
        names = frozenset(properties)
        children: dict = {}

        def on_dict(value: dict) -> bool:
            if not value.keys() <= names:
                return False
            for name, child in value.items():
                check = children.get(name)
                if check is None:
                    check = children[name] = _clean_checker(release, properties[name])
                if check is not _always and not check(child):
                    return False
            return True
    elif isinstance(extra, dict):
        def on_dict(value: dict) -> bool:
            check = _clean_checker(release, extra)
            return check is _always or all(check(child) for child in value.values())

    def check(value) -> bool:
        if isinstance(value, dict):
            return on_dict(value)
        if isinstance(value, list):
            if items is None:
                return True
            item = _clean_checker(release, items)
            return item is _always or all(item(v) for v in value)
        if bounds is not None and is_int(value):
            return bounds[0] <= value <= bounds[1]
        return True
    return check
