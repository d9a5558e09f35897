"""Node selectors compiled once, as component-helpers/scheduling/corev1/nodeaffinity does.

A NodeSelectorTerm is parsed into label requirements (apimachinery labels.NewRequirement) and
field requirements (metadata.name In/NotIn with exactly one value). A term that fails to parse
never matches; the lazy selector only reports parse errors when no term matched, and the
scheduler ignores them, while NewNodeSelector and NewPreferredSchedulingTerms report them up
front (the plugin args validation and NodeAffinity's PreScore).

Error strings are worded as apimachinery's field.Error prints them.
"""
from __future__ import annotations

import json
import re

from ...errors import child, unsupported
from ...validation import is_qualified_name, is_valid_label_value

_INT64_RE = re.compile(r"[+-]?[0-9]+")


def parse_int64(text: str) -> int | None:
    """strconv.ParseInt(text, 10, 64), or None where Go returns an error."""
    if not isinstance(text, str) or not _INT64_RE.fullmatch(text):
        return None
    value = int(text)
    return value if -(2**63) <= value < 2**63 else None


# --- field.Error wording ---------------------------------------------------------------------

def _quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _bad_value(value) -> str:
    """A bad value as field.Error prints it: %q for strings, %#v for the values slice."""
    if isinstance(value, str):
        return _quote(value)
    if value is None:
        return "[]string(nil)"
    return "[]string{" + ", ".join(_quote(v) for v in value) + "}"


def _invalid(path: str, value, detail: str) -> str:
    return f"{path}: Invalid value: {_bad_value(value)}: {detail}"


# --- requirements ----------------------------------------------------------------------------

IN, NOT_IN, EXISTS, DOES_NOT_EXIST, GT, LT = "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"
_SELECTOR_OPERATORS = (IN, NOT_IN, EXISTS, DOES_NOT_EXIST, GT, LT)
_FIELD_OPERATORS = (IN, NOT_IN)
NODE_NAME_FIELD = "metadata.name"


def _values(expr: dict):
    raw = expr.get("values")
    return None if raw is None else [v if isinstance(v, str) else str(v) for v in raw]


def _label_requirements(exprs: list, path: str) -> tuple[list, list[str]]:
    """nodeSelectorRequirementsAsSelector: (key, operator, argument) triples and parse errors."""
    reqs, errs = [], []
    for i, expr in enumerate(exprs):
        p = f"{path}[{i}]"
        op = expr.get("operator") or ""
        if op not in _SELECTOR_OPERATORS:
            errs.append(unsupported(child(p, "operator"), op, _SELECTOR_OPERATORS))
            continue
        key = expr.get("key") or ""
        raw = _values(expr)
        values = raw or []
        req_errs = []
        key_errs = is_qualified_name(key)
        if key_errs:
            req_errs.append(_invalid(child(p, "key"), key, "; ".join(key_errs)))
        value_path = child(p, "values")
        arg = None
        if op in (IN, NOT_IN):
            if not values:
                req_errs.append(_invalid(value_path, raw,
                                         "for 'in', 'notin' operators, values set can't be empty"))
            arg = frozenset(values)
        elif op in (EXISTS, DOES_NOT_EXIST):
            if values:
                req_errs.append(_invalid(value_path, raw,
                                         "values set must be empty for exists and does not exist"))
        else:
            if len(values) != 1:
                req_errs.append(_invalid(value_path, raw,
                                         "for 'Gt', 'Lt' operators, exactly one value is required"))
            for j, v in enumerate(values):
                if parse_int64(v) is None:
                    req_errs.append(_invalid(
                        f"{value_path}[{j}]", v,
                        "for 'Gt', 'Lt' operators, the value must be an integer"))
            if len(values) == 1:
                arg = parse_int64(values[0])
        for j, v in enumerate(values):
            value_errs = is_valid_label_value(v)
            if value_errs:
                req_errs.append(_invalid(f"{value_path}[{j}][{key}]", v, "; ".join(value_errs)))
        if req_errs:
            errs += req_errs
        else:
            reqs.append((key, op, arg))
    return reqs, errs


def _field_requirements(exprs: list, path: str) -> tuple[list, list[str]]:
    """nodeSelectorRequirementsAsFieldSelector: (key, wants_equal, value) and parse errors."""
    reqs, errs = [], []
    for i, expr in enumerate(exprs):
        p = f"{path}[{i}]"
        op = expr.get("operator") or ""
        if op not in _FIELD_OPERATORS:
            errs.append(unsupported(child(p, "operator"), op, _FIELD_OPERATORS))
            continue
        raw = _values(expr)
        if raw is None or len(raw) != 1:
            errs.append(_invalid(child(p, "values"), raw, "must have one element"))
            continue
        reqs.append((expr.get("key") or "", op == IN, raw[0]))
    return reqs, errs


def _labels_match(reqs: list, labels: dict) -> bool:
    for key, op, arg in reqs:
        if op == IN:
            if key not in labels or labels[key] not in arg:
                return False
        elif op == NOT_IN:
            if key in labels and labels[key] in arg:
                return False
        elif op == EXISTS:
            if key not in labels:
                return False
        elif op == DOES_NOT_EXIST:
            if key in labels:
                return False
        else:
            have = parse_int64(labels[key]) if key in labels else None
            if have is None or not (have > arg if op == GT else have < arg):
                return False
    return True


class NodeSelectorTerm:
    """One parsed term: its label and field requirements ANDed, or its parse errors."""

    __slots__ = ("errors", "fields", "labels")

    def __init__(self, term: dict, path: str):
        self.labels = self.fields = None
        self.errors: list[str] = []
        exprs = term.get("matchExpressions") or []
        fields = term.get("matchFields") or []
        if exprs:
            self.labels, errs = _label_requirements(exprs, child(path, "matchExpressions"))
            self.errors += errs
        if fields:
            self.fields, errs = _field_requirements(fields, child(path, "matchFields"))
            self.errors += errs

    def matches(self, labels: dict, node_name: str) -> bool:
        if self.errors:
            return False
        if self.labels is not None and not _labels_match(self.labels, labels):
            return False
        # A node without a name has no fields, and then field requirements are not checked.
        if self.fields is not None and node_name:
            for key, equal, value in self.fields:
                have = node_name if key == NODE_NAME_FIELD else ""
                if (have == value) != equal:
                    return False
        return True


def _is_empty_term(term: dict) -> bool:
    return not term.get("matchExpressions") and not term.get("matchFields")


class LazyErrorNodeSelector:
    """A v1.NodeSelector: its non-empty terms ORed; terms with parse errors match nothing."""

    __slots__ = ("terms",)

    def __init__(self, node_selector: dict, path: str = ""):
        terms_path = child(path, "nodeSelectorTerms")
        self.terms = [NodeSelectorTerm(term or {}, f"{terms_path}[{i}]")
                      for i, term in enumerate(node_selector.get("nodeSelectorTerms") or [])
                      if not _is_empty_term(term or {})]

    def errors(self) -> list[str]:
        return [e for term in self.terms for e in term.errors]

    def matches(self, labels: dict, node_name: str) -> bool:
        for term in self.terms:
            if term.matches(labels, node_name):
                return True
        return False


def new_node_selector(node_selector: dict, path: str = "") -> tuple[LazyErrorNodeSelector | None,
                                                                     list[str]]:
    """NewNodeSelector: the selector, or None and every parse error."""
    selector = LazyErrorNodeSelector(node_selector, path)
    errors = selector.errors()
    return (None, errors) if errors else (selector, [])


class PreferredSchedulingTerms:
    """Weighted terms; a node scores the sum of the weights of the terms it matches."""

    __slots__ = ("terms",)

    def __init__(self, terms: list):
        self.terms = terms

    def score(self, labels: dict, node_name: str) -> int:
        return sum(weight for term, weight in self.terms if term.matches(labels, node_name))


def new_preferred_scheduling_terms(terms: list, path: str = "") -> tuple[
        PreferredSchedulingTerms | None, list[str]]:
    """NewPreferredSchedulingTerms: zero-weight and empty terms are skipped unparsed."""
    parsed, errors = [], []
    for i, term in enumerate(terms):
        weight = int(term.get("weight") or 0)
        preference = term.get("preference") or {}
        if weight == 0 or _is_empty_term(preference):
            continue
        compiled = NodeSelectorTerm(preference, f"{path}[{i}]")
        if compiled.errors:
            errors += compiled.errors
        else:
            parsed.append((compiled, weight))
    return (None, errors) if errors else (PreferredSchedulingTerms(parsed), [])


class RequiredNodeAffinity:
    """GetRequiredNodeAffinity: the pod's nodeSelector ANDed with its required node affinity."""

    __slots__ = ("affinity", "node_selector")

    def __init__(self, spec: dict):
        self.node_selector = dict(spec.get("nodeSelector") or {}) or None
        required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
            "requiredDuringSchedulingIgnoredDuringExecution")
        self.affinity = None if required is None else LazyErrorNodeSelector(required)

    def matches(self, labels: dict, node_name: str) -> bool:
        """Match, with parse errors ignored as the scheduler ignores them."""
        if self.node_selector is not None:
            for key, value in self.node_selector.items():
                if labels.get(key) != value:
                    return False
        if self.affinity is not None:
            return self.affinity.matches(labels, node_name)
        return True
