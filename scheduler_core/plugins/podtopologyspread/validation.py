"""PodTopologySpreadArgs defaults and validation (apis/config/v1 defaults,
apis/config/validation/validation_pluginargs.go)."""
from __future__ import annotations

import re

from ...errors import duplicate, forbidden, invalid, required, unsupported
from .common import DO_NOT_SCHEDULE, SCHEDULE_ANYWAY

SYSTEM_DEFAULTING = "System"
LIST_DEFAULTING = "List"

_QNAME_CHAR = "[A-Za-z0-9]"
_QNAME_EXT_CHAR = "[-A-Za-z0-9_.]"
_QUALIFIED_NAME_FMT = f"({_QNAME_CHAR}{_QNAME_EXT_CHAR}*)?{_QNAME_CHAR}"
_QUALIFIED_NAME_ERR = ("must consist of alphanumeric characters, '-', '_' or '.', and must start "
                       "and end with an alphanumeric character")
_QUALIFIED_NAME_RE = re.compile(_QUALIFIED_NAME_FMT)
_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT = f"{_DNS1123_LABEL_FMT}(\\.{_DNS1123_LABEL_FMT})*"
_DNS1123_SUBDOMAIN_ERR = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                          "characters, '-' or '.', and must start and end with an alphanumeric "
                          "character")
_DNS1123_SUBDOMAIN_RE = re.compile(_DNS1123_SUBDOMAIN_FMT)


def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    """validation.RegexError."""
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    shown = " or ".join(f"'{e}', " for e in examples)
    return f"{msg} (e.g. {shown}regex used for validation is '{fmt}')"


def _dns1123_subdomain_errors(value: str) -> list[str]:
    errs = []
    if len(value) > 253:
        errs.append("must be no more than 253 characters")
    if not _DNS1123_SUBDOMAIN_RE.fullmatch(value):
        errs.append(_regex_error(_DNS1123_SUBDOMAIN_ERR, _DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


def qualified_name_errors(value: str) -> list[str]:
    """validation.IsQualifiedName: an optional DNS subdomain prefix and '/', then a name."""
    parts = value.split("/")
    errs = []
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs += ["prefix part " + m for m in _dns1123_subdomain_errors(prefix)]
    else:
        return ["a qualified name " + _regex_error(
            _QUALIFIED_NAME_ERR, _QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
    if not name:
        errs.append("name part must be non-empty")
    elif len(name) > 63:
        errs.append("name part must be no more than 63 characters")
    if not _QUALIFIED_NAME_RE.fullmatch(name):
        errs.append("name part " + _regex_error(
            _QUALIFIED_NAME_ERR, _QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc"))
    return errs


def default_args(args: dict) -> dict:
    """SetDefaults_PodTopologySpreadArgs: defaultingType is System unless set."""
    out = dict(args or {})
    if not out.get("defaultingType"):
        out["defaultingType"] = SYSTEM_DEFAULTING
    return out


def _child(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def validate_args(args: dict, path: str = "") -> list[str]:
    """ValidatePodTopologySpreadArgs: the API server's spread-constraint checks plus
    no labelSelector (it is deduced per pod) and a defaultingType that fits the list."""
    errs = []
    defaulting = (args or {}).get("defaultingType")
    constraints = (args or {}).get("defaultConstraints") or []
    defaulting_path = _child(path, "defaultingType")
    if defaulting not in (SYSTEM_DEFAULTING, LIST_DEFAULTING):
        errs.append(unsupported(defaulting_path, defaulting, [SYSTEM_DEFAULTING, LIST_DEFAULTING]))
    elif defaulting == SYSTEM_DEFAULTING and constraints:
        errs.append(invalid(defaulting_path, defaulting, "when .defaultConstraints are not empty"))
    list_path = _child(path, "defaultConstraints")
    for i, c in enumerate(constraints):
        p = f"{list_path}[{i}]"
        max_skew = c.get("maxSkew") or 0
        if not isinstance(max_skew, int) or isinstance(max_skew, bool) or max_skew <= 0:
            errs.append(invalid(f"{p}.maxSkew", max_skew, "not in valid range (0, inf)"))
        key = c.get("topologyKey") or ""
        if not key:
            errs.append(required(f"{p}.topologyKey", "can not be empty"))
        else:
            errs += [invalid(f"{p}.topologyKey", key, m) for m in qualified_name_errors(key)]
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
