"""Device taints and tolerations (DRADeviceTaints): a device tainted NoSchedule or NoExecute is
allocated only to a request that tolerates the taint; other effects (None) do not prevent it.
ToleratesTaint is dynamic-resource-allocation/resourceclaim's, core/v1's rules for devices."""
from __future__ import annotations

PREVENTING_EFFECTS = ("NoSchedule", "NoExecute")


def tolerates(toleration: dict, taint: dict) -> bool:
    if toleration.get("effect") and toleration["effect"] != taint.get("effect"):
        return False
    if toleration.get("key") and toleration["key"] != taint.get("key"):
        return False
    operator = toleration.get("operator") or "Equal"
    if operator == "Equal":
        return (toleration.get("value") or "") == (taint.get("value") or "")
    return operator == "Exists"


def prevents_allocation(device: dict, tolerations: list[dict]) -> bool:
    """taintPreventsAllocation: some NoSchedule/NoExecute taint no toleration tolerates."""
    return any(taint.get("effect") in PREVENTING_EFFECTS
               and not any(tolerates(t, taint) for t in tolerations)
               for taint in device.get("taints") or [])
