"""PodTopologySpreadArgs defaults and validation (apis/config/v1 defaults,
apis/config/validation/validation_pluginargs.go)."""
from __future__ import annotations

from ...errors import (
    child,
    duplicate,
    forbidden,
    invalid,
    is_int,
    not_in_range,
    required,
    unsupported,
)
from ...validation import is_qualified_name
from .common import DO_NOT_SCHEDULE, SCHEDULE_ANYWAY

SYSTEM_DEFAULTING = "System"
LIST_DEFAULTING = "List"


def default_args(args: dict) -> dict:
    """SetDefaults_PodTopologySpreadArgs: defaultingType is System unless set."""
    out = dict(args or {})
    if not out.get("defaultingType"):
        out["defaultingType"] = SYSTEM_DEFAULTING
    return out


def validate_args(args: dict, path: str = "") -> list[str]:
    """ValidatePodTopologySpreadArgs: the API server's spread-constraint checks plus
    no labelSelector (it is deduced per pod) and a defaultingType that fits the list."""
    errs = []
    defaulting = (args or {}).get("defaultingType")
    constraints = (args or {}).get("defaultConstraints") or []
    defaulting_path = child(path, "defaultingType")
    if defaulting not in (SYSTEM_DEFAULTING, LIST_DEFAULTING):
        errs.append(unsupported(defaulting_path, defaulting, [SYSTEM_DEFAULTING, LIST_DEFAULTING]))
    elif defaulting == SYSTEM_DEFAULTING and constraints:
        errs.append(invalid(defaulting_path, defaulting, "when .defaultConstraints are not empty"))
    list_path = child(path, "defaultConstraints")
    for i, c in enumerate(constraints):
        p = f"{list_path}[{i}]"
        max_skew = c.get("maxSkew") or 0
        if not is_int(max_skew) or max_skew <= 0:
            errs.append(not_in_range(f"{p}.maxSkew", max_skew, 0, open_low=True))
        key = c.get("topologyKey") or ""
        if not key:
            errs.append(required(f"{p}.topologyKey", "can not be empty"))
        else:
            errs += [invalid(f"{p}.topologyKey", key, m) for m in is_qualified_name(key)]
        when = c.get("whenUnsatisfiable") or ""
        if not when:
            errs.append(required(f"{p}.whenUnsatisfiable", "can not be empty"))
        elif when not in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY):
            errs.append(unsupported(f"{p}.whenUnsatisfiable", when,
                                    [DO_NOT_SCHEDULE, SCHEDULE_ANYWAY]))
        if c.get("labelSelector") is not None:
            errs.append(forbidden(f"{p}.labelSelector",
                                  "constraint must not define a selector, as they deduced for "
                                  "each pod"))
        for other in constraints[:i]:
            if (other.get("topologyKey") or "", other.get("whenUnsatisfiable") or "") == (
                    key, when):
                errs.append(duplicate(p, f"{{{key}, {when}}}"))
                break
    return errs
