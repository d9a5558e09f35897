"""What the trace shows of the devices an allocation took, beside the AllocationResult itself
(which stays as the API writes it): each device's taints, the counters it consumes (and the
counter set's total) and its capacities, for the run view's claims panel."""
from __future__ import annotations

from .pools import SliceIndex

_SHOWN = ("taints", "consumesCounters", "capacity", "allowMultipleAllocations")


def device_details(slices: list[dict] | SliceIndex, allocation: dict) -> dict[str, dict]:
    """"driver/pool/device" -> the fields of _SHOWN it has, and `counterSets` with the totals
    of the counter sets it consumes from; devices with none of them are left out. Only the
    slices of the allocation's pools are read (through the index, when given one)."""
    index = slices if isinstance(slices, SliceIndex) else SliceIndex(slices)
    wanted = {(r["driver"], r["pool"], r["device"])
              for r in (allocation.get("devices") or {}).get("results") or []}
    out: dict[str, dict] = {}
    for s in index.of_pools(*{key[:2] for key in wanted}):
        spec = s["spec"]
        for device in spec.get("devices") or []:
            key = (spec["driver"], spec["pool"]["name"], device["name"])
            if key not in wanted:
                continue
            shown = {k: device[k] for k in _SHOWN if device.get(k)}
            if device.get("consumesCounters"):
                shown["counterSets"] = _counter_sets(index.of_pools(key[:2]), device)
            if shown:
                out["/".join(key)] = shown
    return out


def _counter_sets(pool_slices: list[dict], device: dict) -> dict[str, dict]:
    names = {usage.get("counterSet") for usage in device["consumesCounters"]}
    return {cs["name"]: cs.get("counters") or {}
            for s in pool_slices
            for cs in s["spec"].get("sharedCounters") or [] if cs.get("name") in names}
