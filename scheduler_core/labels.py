"""Label selectors and node selectors, matched as apimachinery and component-helpers match them."""
from __future__ import annotations


class SelectorError(ValueError):
    pass


def _requirement_matches(labels: dict, key: str, operator: str, values) -> bool:
    present = key in labels
    if operator == "In":
        return present and labels[key] in values
    if operator == "NotIn":
        return not present or labels[key] not in values
    if operator == "Exists":
        return present
    if operator == "DoesNotExist":
        return not present
    if operator in ("Gt", "Lt"):
        if not present or len(values) != 1:
            return False
        try:
            have, want = int(labels[key]), int(values[0])
        except ValueError:
            return False
        return have > want if operator == "Gt" else have < want
    raise SelectorError(f"{operator!r} is not a valid label selector operator")


class LabelSelector:
    """A compiled metav1.LabelSelector. None compiles to 'nothing', {} to 'everything'."""

    __slots__ = ("match_labels", "expressions", "nothing")

    def __init__(self, selector: dict | None):
        self.nothing = selector is None
        selector = selector or {}
        self.match_labels = dict(selector.get("matchLabels") or {})
        self.expressions = []
        for expr in selector.get("matchExpressions") or []:
            op = expr.get("operator")
            values = tuple(expr.get("values") or ())
            if op not in ("In", "NotIn", "Exists", "DoesNotExist"):
                raise SelectorError(f"{op!r} is not a valid label selector operator")
            if op in ("In", "NotIn") and not values:
                raise SelectorError("for 'in', 'notin' operators, values set can't be empty")
            self.expressions.append((expr.get("key", ""), op, values))

    def matches(self, labels: dict) -> bool:
        if self.nothing:
            return False
        for key, value in self.match_labels.items():
            if labels.get(key) != value:
                return False
        for key, op, values in self.expressions:
            if not _requirement_matches(labels, key, op, values):
                return False
        return True

    def is_empty(self) -> bool:
        return not self.nothing and not self.match_labels and not self.expressions


def match_node_selector_term(term: dict, node_labels: dict, node_name: str) -> bool:
    """One NodeSelectorTerm: its expressions and fields ANDed; an empty term matches nothing."""
    exprs = term.get("matchExpressions") or []
    fields = term.get("matchFields") or []
    if not exprs and not fields:
        return False
    for expr in exprs:
        if not _requirement_matches(node_labels, expr.get("key", ""), expr.get("operator"),
                                    tuple(expr.get("values") or ())):
            return False
    for field in fields:
        # Go parses matchFields as a field selector: only metadata.name, one value each.
        if field.get("key") != "metadata.name" or len(field.get("values") or ()) != 1:
            return False
        if not _requirement_matches({"metadata.name": node_name}, "metadata.name",
                                    field.get("operator"), tuple(field.get("values") or ())):
            return False
    return True


def match_node_selector_terms(selector: dict | None, node_labels: dict, node_name: str) -> bool:
    """A NodeSelector: its terms ORed."""
    terms = (selector or {}).get("nodeSelectorTerms") or []
    return any(match_node_selector_term(t, node_labels, node_name) for t in terms)
