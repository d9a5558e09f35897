"""Device selectors: DRA's CEL environment (dynamic-resource-allocation/cel) on the `cel` package.

A selector sees one variable, `device`, with `driver`, `allowMultipleAllocations` (false unless
the device sets it), `attributes` and `capacity`. Attributes
and capacities are maps of domain -> map of name -> value; an unqualified name belongs to the
driver's domain. As in Go, looking up a domain the device has no attribute in gives an empty
map, so `device.attributes["other.example.com"].model` is a "no such key" runtime error and
`has(...)` is false. Kubernetes' `quantity()` and `semver()` values are maps tagged with a
private key; their methods (`compareTo`, `isGreaterThan`, ...) are functions on those maps.
"""
from __future__ import annotations

import re
from functools import lru_cache

from ...quantity import QuantityError, parse_quantity

QUANTITY_TAG = "__k8s_quantity__"   # value: the quantity's exact value as a string
SEMVER_TAG = "__k8s_semver__"       # value: [major, minor, patch]
_STRING_LITERAL = re.compile(r"""'([^'\\]*)'|"([^"\\]*)\"""")
_MACRO_VARIABLE = re.compile(r"\.(?:all|exists|exists_one|map|filter)\(\s*([A-Za-z_]\w*)\s*,")
_SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?"
                     r"(?:\+[0-9A-Za-z.-]+)?$")


class CELError(Exception):
    """A selector that does not compile, or fails while it runs on a device."""


def _quantity(text):
    try:
        return {QUANTITY_TAG: str(parse_quantity(text))}
    except QuantityError as exc:
        raise ValueError(str(exc)) from exc


def _semver(text):
    match = _SEMVER.match(str(text))
    if match is None:
        raise ValueError(f"invalid semver: {text}")
    return {SEMVER_TAG: [int(p) for p in match.groups()]}


def _key(value):
    """What two quantities or two versions are compared by."""
    if isinstance(value, dict) and QUANTITY_TAG in value:
        return parse_quantity(value[QUANTITY_TAG])
    if isinstance(value, dict) and SEMVER_TAG in value:
        return tuple(value[SEMVER_TAG])
    raise ValueError("no such overload")


def _compare(a, b) -> int:
    ka, kb = _key(a), _key(b)
    return (ka > kb) - (ka < kb)


def _number(q):
    value = _key(q)
    if isinstance(value, tuple):
        raise ValueError("no such overload")
    return value


def _quantity_result(value) -> dict:
    return {QUANTITY_TAG: str(value)}


_FUNCTIONS = {
    "quantity": _quantity,
    "semver": _semver,
    "isQuantity": lambda s: _try(_quantity, s),
    "isSemver": lambda s: _try(_semver, s),
    "compareTo": _compare,
    "isGreaterThan": lambda a, b: _compare(a, b) > 0,
    "isLessThan": lambda a, b: _compare(a, b) < 0,
    "isEqualTo": lambda a, b: _compare(a, b) == 0,
    "add": lambda a, b: _quantity_result(_number(a) + (_number(b) if isinstance(b, dict) else b)),
    "sub": lambda a, b: _quantity_result(_number(a) - (_number(b) if isinstance(b, dict) else b)),
    "sign": lambda q: (_number(q) > 0) - (_number(q) < 0),
    "isInteger": lambda q: _number(q) == int(_number(q)),
    "asInteger": lambda q: int(_number(q)),
    "asApproximateFloat": lambda q: float(_number(q)),
    "major": lambda v: _key(v)[0],
    "minor": lambda v: _key(v)[1],
    "patch": lambda v: _key(v)[2],
}


def _try(fn, text) -> bool:
    try:
        fn(text)
    except ValueError:
        return False
    return True


def _celpkg():
    """The CEL package, imported on first use: importing it costs about half a second (its
    command line pulls in typer, rich and prompt_toolkit), which every run paid before."""
    import cel

    return cel


class Selector:
    """One compiled CEL selector expression."""

    def __init__(self, expression: str):
        self.expression = expression
        try:
            self._program = _celpkg().compile(expression)
        except Exception as exc:  # the package reports syntax errors as several types
            raise CELError(_first_line(exc)) from exc
        # cel-go's type check: the only variable is `device` (and the macros' own variables).
        bound = set(_MACRO_VARIABLE.findall(expression)) | {"device"}
        undeclared = sorted(set(self._program.references()["variables"]) - bound)
        if undeclared:
            raise CELError(f"undeclared reference to '{undeclared[0]}' (in container '')")
        # Every string literal may be used as a domain key: those get an empty map by default.
        self._literals = {a or b for a, b in _STRING_LITERAL.findall(expression)}

    def matches(self, driver: str, attributes: dict, capacity: dict,
                allow_multiple_allocations: bool = False) -> bool:
        """Whether the device matches; CELError when evaluation fails or yields no bool."""
        context = _celpkg().Context()
        for name, fn in _FUNCTIONS.items():
            context.add_function(name, fn)
        context.add_variable("device", {
            "driver": driver,
            "allowMultipleAllocations": allow_multiple_allocations,
            "attributes": self._with_empty_domains(attributes),
            "capacity": self._with_empty_domains(capacity),
        })
        try:
            result = self._program.execute(context)
        except KeyError as exc:
            raise CELError(f"no such key: {exc.args[0] if exc.args else ''}") from exc
        except Exception as exc:  # runtime errors come as several Python types
            raise CELError(_first_line(exc)) from exc
        if not isinstance(result, bool):
            raise CELError(f"CEL result of type {type(result).__name__} could not be "
                           "converted to bool")
        return result

    def _with_empty_domains(self, by_domain: dict) -> dict:
        out = {literal: {} for literal in self._literals}
        out.update(by_domain)
        return out


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


@lru_cache(maxsize=256)
def compile_selector(expression: str) -> Selector:
    """A compiled selector, cached as the plugin's celCache does (across cycles)."""
    return Selector(expression)


def device_variables(device: dict, driver: str, lists: bool = True) -> tuple[dict, dict]:
    """(attributes, capacity) of a ResourceSlice device as CEL sees them, by domain.

    An attribute without a value of a known type is an error, as in Go's DeviceMatches
    (cel/compile.go: "attribute <name>: unsupported attribute value"); so is a list value
    (or an empty list) unless lists (DRAListTypeAttributes) is on, when it is a CEL list."""
    attributes: dict[str, dict] = {}
    for name, attr in (device.get("attributes") or {}).items():
        domain, ident = _split(name, driver)
        value = attribute_value(attr or {}, lists)
        if value is None:
            raise CELError(f"attribute {name}: unsupported attribute value")
        attributes.setdefault(domain, {})[ident] = value
    capacity: dict[str, dict] = {}
    for name, cap in (device.get("capacity") or {}).items():
        domain, ident = _split(name, driver)
        capacity.setdefault(domain, {})[ident] = {QUANTITY_TAG: str(
            parse_quantity((cap or {}).get("value", "0")))}
    return attributes, capacity


def _split(name: str, driver: str) -> tuple[str, str]:
    domain, sep, ident = name.rpartition("/")
    return (domain, ident) if sep else (driver, name)


# A DeviceAttribute's scalar kinds, and the list kind of each (DRAListTypeAttributes:
# k8s.io/api resource/v1 DeviceAttribute's ints, bools, strings and versions).
SCALAR_KINDS = ("int", "bool", "string", "version")
LIST_KINDS = {"ints": "int", "bools": "bool", "strings": "string", "versions": "version"}
ATTRIBUTE_KINDS = (*SCALAR_KINDS, *LIST_KINDS)
_CONVERT = {"int": int, "bool": bool, "string": str, "version": lambda v: _semver(v)}


def attribute_value(attr: dict, lists: bool = True):
    """A DeviceAttribute's value as CEL sees it: the one value (int, bool, string or
    version), or with lists (DRAListTypeAttributes) a non-empty list of them; None for no
    value of a known type (an empty list included, as Go's "non-empty list")."""
    for kind in SCALAR_KINDS:
        if kind in attr:
            return _CONVERT[kind](attr[kind])
    if not lists:
        return None
    for key, kind in LIST_KINDS.items():
        values = attr.get(key)
        if isinstance(values, list) and values:
            return [_CONVERT[kind](v) for v in values]
    return None
