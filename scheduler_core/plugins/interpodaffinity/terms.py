"""Parsed pod (anti-)affinity terms (framework.AffinityTerm, framework.PodInfo's term lists).

A pod's terms are parsed once and cached in PodInfo.parsed["InterPodAffinity"], so existing pods
are not re-parsed every cycle. Label selectors are validated as metav1.LabelSelectorAsSelector
and labels.NewRequirement validate them, with the same error wording.
"""
from __future__ import annotations

from ...errors import aggregate
from ...framework.types import PodInfo
from ...labels import LabelSelector
from ...validation import is_qualified_name, is_valid_label_value
from ..names import INTER_POD_AFFINITY

_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")

NOTHING = LabelSelector(None)


class ParseError(ValueError):
    pass


def _go_quote(value: str) -> str:
    """Go's %q for the label strings the API carries (ASCII, with \\ and " escaped)."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def _go_strings(values) -> str:
    """Go's %#v of a []string; LabelSelectorAsSelector passes nil for an empty list."""
    if not values:
        return "[]string(nil)"
    return "[]string{" + ", ".join(_go_quote(v) for v in values) + "}"


def _requirement_errors(key: str, operator: str, values: list[str]) -> str | None:
    """labels.NewRequirement's field errors, aggregated, or None when the requirement is valid."""
    errs = []
    key_errs = is_qualified_name(key)
    if key_errs:
        errs.append(f"key: Invalid value: {_go_quote(key)}: {'; '.join(key_errs)}")
    if operator in ("In", "NotIn") and not values:
        errs.append(f"values: Invalid value: {_go_strings(values)}: "
                    "for 'in', 'notin' operators, values set can't be empty")
    elif operator in ("Exists", "DoesNotExist") and values:
        errs.append(f"values: Invalid value: {_go_strings(values)}: "
                    "values set must be empty for exists and does not exist")
    for i, value in enumerate(values):
        value_errs = is_valid_label_value(value)
        if value_errs:
            errs.append(f"values[{i}][{key}]: Invalid value: {_go_quote(value)}: "
                        f"{'; '.join(value_errs)}")
    return aggregate(errs) if errs else None


def compile_selector(selector: dict | None) -> LabelSelector:
    """metav1.LabelSelectorAsSelector: None selects nothing, {} everything; raises ParseError."""
    if selector is None:
        return NOTHING
    for key, value in (selector.get("matchLabels") or {}).items():
        err = _requirement_errors(str(key), "Equals", [str(value)])
        if err:
            raise ParseError(err)
    for expr in selector.get("matchExpressions") or []:
        operator = expr.get("operator") or ""
        if operator not in _OPERATORS:
            raise ParseError(f"{_go_quote(operator)} is not a valid label selector operator")
        err = _requirement_errors(expr.get("key") or "", operator,
                                  [str(v) for v in expr.get("values") or []])
        if err:
            raise ParseError(err)
    return LabelSelector(selector)


class AffinityTerm:
    """A processed PodAffinityTerm; weight is set for preferred (weighted) terms."""

    __slots__ = ("namespace_selector", "namespaces", "selector", "topology_key", "weight")

    def __init__(self, namespaces: frozenset, selector: LabelSelector, topology_key: str,
                 namespace_selector: LabelSelector, weight: int = 0):
        self.namespaces = namespaces
        self.selector = selector
        self.topology_key = topology_key
        self.namespace_selector = namespace_selector
        self.weight = weight

    def matches(self, pod: PodInfo, ns_labels: dict | None) -> bool:
        """The pod is in one of the term's namespaces (by name or label) and its labels match."""
        if pod.namespace in self.namespaces or self.namespace_selector.matches(ns_labels or {}):
            return self.selector.matches(pod.labels)
        return False

    def with_merged_namespaces(self, objects) -> AffinityTerm:
        """mergeAffinityTermNamespacesIfNotEmpty, on a copy: the namespaces the selector picks
        become names, so matching the incoming pod's terms never needs namespace labels."""
        if self.namespace_selector.is_empty():
            return self
        names = set(self.namespaces)
        for name in objects.namespaces:
            if self.namespace_selector.matches(objects.namespace_labels(name)):
                names.add(name)
        return AffinityTerm(frozenset(names), self.selector, self.topology_key, NOTHING,
                            self.weight)

    def __repr__(self):
        return (f"AffinityTerm(ns={sorted(self.namespaces)}, tk={self.topology_key!r}, "
                f"w={self.weight})")


def _with_label_keys(term: dict, pod_labels: dict) -> dict | None:
    """The API server's matchLabelKeys/mismatchLabelKeys merge (MatchLabelKeysInPodAffinity, on
    by default in v1.31): each key the pod carries becomes `key In/NotIn (value)` in the
    labelSelector. A nil labelSelector stays nil (it matches nothing)."""
    selector = term.get("labelSelector")
    match_keys = term.get("matchLabelKeys") or []
    mismatch_keys = term.get("mismatchLabelKeys") or []
    if selector is None or not (match_keys or mismatch_keys):
        return selector
    exprs = list(selector.get("matchExpressions") or [])
    for keys, operator in ((match_keys, "In"), (mismatch_keys, "NotIn")):
        for key in keys:
            if key in pod_labels:
                exprs.append({"key": key, "operator": operator, "values": [pod_labels[key]]})
    return {**selector, "matchExpressions": exprs}


def new_affinity_term(pod: PodInfo, term: dict, weight: int = 0) -> AffinityTerm:
    selector = compile_selector(_with_label_keys(term, pod.labels))
    ns_selector_spec = term.get("namespaceSelector")
    names = term.get("namespaces") or []
    # getNamespacesFromPodAffinityTerm: neither namespaces nor a selector means the pod's own.
    namespaces = frozenset(names) if names or ns_selector_spec is not None \
        else frozenset((pod.namespace,))
    return AffinityTerm(namespaces, selector, term.get("topologyKey") or "",
                        compile_selector(ns_selector_spec), weight)


def _affinity_terms(pod: PodInfo, terms: list) -> list[AffinityTerm]:
    return [new_affinity_term(pod, t or {}) for t in terms]


def _weighted_terms(pod: PodInfo, terms: list) -> list[AffinityTerm]:
    return [new_affinity_term(pod, t.get("podAffinityTerm") or {}, int(t.get("weight") or 0))
            for t in (t or {} for t in terms)]


class ParsedAffinity:
    """framework.PodInfo's four term lists. A list that fails to parse is empty and its error
    is kept (NewPodInfo's aggregate); the scheduler's cache keeps such pods with no terms."""

    __slots__ = (
        "error",
        "preferred_affinity",
        "preferred_anti_affinity",
        "required_affinity",
        "required_anti_affinity",
    )

    def __init__(self, pod: PodInfo):
        affinity = pod.affinity or {}
        pod_affinity = affinity.get("podAffinity") or {}
        pod_anti = affinity.get("podAntiAffinity") or {}
        errors = []
        lists = []
        for label, parse, terms in (
                ("requiredAffinityTerms", _affinity_terms,
                 pod_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")),
                ("requiredAntiAffinityTerms", _affinity_terms,
                 pod_anti.get("requiredDuringSchedulingIgnoredDuringExecution")),
                ("preferredAffinityTerms", _weighted_terms,
                 pod_affinity.get("preferredDuringSchedulingIgnoredDuringExecution")),
                ("preferredAntiAffinityTerms", _weighted_terms,
                 pod_anti.get("preferredDuringSchedulingIgnoredDuringExecution"))):
            try:
                lists.append(parse(pod, terms or []))
            except ParseError as err:
                errors.append(f"{label}: {err}")
                lists.append([])
        (self.required_affinity, self.required_anti_affinity, self.preferred_affinity,
         self.preferred_anti_affinity) = lists
        self.error = aggregate(errors) if errors else None


def parsed_affinity(pod: PodInfo) -> ParsedAffinity:
    """The pod's parsed terms, computed on first use and cached on the PodInfo."""
    parsed = pod.parsed.get(INTER_POD_AFFINITY)
    if parsed is None:
        parsed = pod.parsed[INTER_POD_AFFINITY] = ParsedAffinity(pod)
    return parsed


def pod_matches_all_affinity_terms(terms: list[AffinityTerm], pod: PodInfo) -> bool:
    """True iff there are terms and the pod matches every one. The terms are the incoming pod's,
    whose namespace selectors were merged into names, so no namespace labels are needed."""
    if not terms:
        return False
    for term in terms:
        if not term.matches(pod, None):
            return False
    return True
