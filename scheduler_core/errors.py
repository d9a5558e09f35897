"""The engine's errors for bad input and configuration, worded as apimachinery's field errors
are. (A scheduling cycle that failed is framework.status.SchedulingError: it carries a Status,
and this basic layer imports nothing of the engine.)"""
from __future__ import annotations

import json


class InputError(Exception):
    """Bad input: names the file, the object and the field. Exit status 2 on the command line."""

    def __init__(self, message: str, *, file: str = "", obj: str = "", field: str = ""):
        self.file, self.obj, self.field, self.message = file, obj, field, message
        where = ": ".join(p for p in (file, obj) if p)
        if field:
            where = f"{where}: field {field}" if where else f"field {field}"
        super().__init__(f"{where}: {message}" if where else message)


class ConfigError(InputError):
    """An invalid KubeSchedulerConfiguration, with kube-scheduler's own messages."""

    def __init__(self, errors, *, file: str = ""):
        self.errors = list(errors) if not isinstance(errors, str) else [errors]
        text = self.errors[0] if len(self.errors) == 1 else "[" + ", ".join(self.errors) + "]"
        super().__init__(f"invalid KubeSchedulerConfiguration: {text}", file=file)


class Printed(str):
    """A value a field error prints as it is: a fmt.Stringer's String() (a metav1.Duration
    prints as "1m0s", unquoted)."""


def _go_value(value) -> str:
    if isinstance(value, Printed):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def invalid(path: str, value, detail: str) -> str:
    return f"{path}: Invalid value: {_go_value(value)}: {detail}"


def required(path: str, detail: str = "") -> str:
    return f"{path}: Required value" + (f": {detail}" if detail else "")


def unsupported(path: str, value, supported) -> str:
    options = ", ".join(_go_value(s) for s in supported)
    return f"{path}: Unsupported value: {_go_value(value)}: supported values: {options}"


def duplicate(path: str, value) -> str:
    return f"{path}: Duplicate value: {_go_value(value)}"


def forbidden(path: str, detail: str) -> str:
    return f"{path}: Forbidden: {detail}"


def child(path: str, name: str) -> str:
    """field.Path.Child: the field name below path, or name alone at the root (path "")."""
    return f"{path}.{name}" if path else name


def aggregate(messages: list[str]) -> str:
    """utilerrors.NewAggregate(errs).Error(): one message alone, several deduplicated in []."""
    unique = list(dict.fromkeys(messages))
    return unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"


def is_int(value) -> bool:
    """An integer as a YAML or JSON document gives it: bool is not one, though Python says so."""
    return isinstance(value, int) and not isinstance(value, bool)


def not_in_range(path: str, value, low, high="inf", *, open_low: bool = False) -> str:
    """The "not in valid range" field error of the plugin args validations: [low, high],
    "(" with open_low, and an unbounded high prints "inf)"."""
    opening = "(" if open_low else "["
    closing = ")" if high == "inf" else "]"
    return invalid(path, value, f"not in valid range {opening}{low}, {high}{closing}")


def json_kind(value) -> str:
    """The JSON kind encoding/json names in an UnmarshalTypeError."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def unmarshal_type_error(field: str, value, go_type: str) -> TypeError:
    """What kube-scheduler's strict decoder says when an args field has the wrong JSON type;
    field is the Go struct field, e.g. "InterPodAffinityArgs.hardPodAffinityWeight"."""
    return TypeError(f"json: cannot unmarshal {json_kind(value)} into Go struct field {field} "
                     f"of type {go_type}")
