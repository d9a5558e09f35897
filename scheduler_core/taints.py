"""Taints and tolerations (component-helpers/scheduling/corev1 and core/v1/helper)."""
import re

# compareNumericValues (core/v1/toleration.go): canonical int64s only, no '+', no leading 0.
_INT64 = re.compile(r"^(0|-?[1-9][0-9]*)$")
_INT64_RANGE = range(-(2**63), 2**63)


def _int64(text: str) -> int | None:
    if not _INT64.match(text or "") or int(text) not in _INT64_RANGE:
        return None
    return int(text)


def compare_numeric_values(toleration_value: str, taint_value: str, operator: str) -> bool:
    """Gt: the taint's value is greater than the toleration's; Lt: smaller. A value that is
    no canonical int64 tolerates nothing. (The Lt and Gt operators exist only with the
    TaintTolerationComparisonOperators gate on: validation refuses them otherwise, so a
    toleration that has them got here with the gate on.)"""
    tol, taint = _int64(toleration_value), _int64(taint_value)
    if tol is None or taint is None:
        return False
    if operator == "Gt":
        return taint > tol
    if operator == "Lt":
        return taint < tol
    return False


def toleration_tolerates_taint(toleration: dict, taint: dict) -> bool:
    effect = toleration.get("effect") or ""
    if effect and effect != taint.get("effect"):
        return False
    key = toleration.get("key") or ""
    if key and key != taint.get("key"):
        return False
    operator = toleration.get("operator") or "Equal"
    if operator == "Exists":
        return True
    if operator == "Equal":
        return (toleration.get("value") or "") == (taint.get("value") or "")
    return compare_numeric_values(toleration.get("value") or "", taint.get("value") or "",
                                  operator)


def tolerations_tolerate_taint(tolerations, taint: dict) -> bool:
    return any(toleration_tolerates_taint(t, taint) for t in tolerations)


def find_untolerated_taint(taints, tolerations, include=None):
    """The first taint that `include` selects and no toleration tolerates, else None."""
    for taint in taints:
        if include is not None and not include(taint):
            continue
        if not tolerations_tolerate_taint(tolerations, taint):
            return taint
    return None


def does_not_schedule(taint: dict) -> bool:
    return taint.get("effect") in ("NoSchedule", "NoExecute")
