"""Taints and tolerations (component-helpers/scheduling/corev1 and core/v1/helper)."""


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
    return False


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
