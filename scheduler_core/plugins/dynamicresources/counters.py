"""Partitionable devices (DRAPartitionableDevices; the allocator's checkAvailableCounters):
a pool's slices publish `sharedCounters` (counter sets), and each device may say what it
`consumesCounters` of them. A device is allocatable only while every counter of its pool stays
at or above what the allocated devices and those being allocated consume, so the partitions
of one GPU are never over-allocated.
"""
from __future__ import annotations

from decimal import Decimal

from ...quantity import parse_quantity

Counters = dict[tuple[str, str], Decimal]   # (counter set, counter) -> amount


def consumption(device: dict) -> Counters:
    out: Counters = {}
    for usage in device.get("consumesCounters") or []:
        for name, counter in (usage.get("counters") or {}).items():
            key = (usage.get("counterSet", ""), name)
            out[key] = out.get(key, Decimal(0)) + parse_quantity((counter or {}).get("value", 0))
    return out


def available(pool_slices: list[dict], allocated) -> Counters:
    """The pool's counters less what its allocated devices consume (possibly negative: then
    nothing is left). pool_slices: every slice of the pool's generation, whichever node it
    targets; allocated(device name) says whether a device of the pool is in use."""
    left: Counters = {}
    for s in pool_slices:
        for counter_set in s["spec"].get("sharedCounters") or []:
            for name, counter in (counter_set.get("counters") or {}).items():
                left[(counter_set.get("name", ""), name)] = parse_quantity(
                    (counter or {}).get("value", 0))
    for s in pool_slices:
        for device in s["spec"].get("devices") or []:
            if allocated(device["name"]):
                for key, amount in consumption(device).items():
                    if key in left:
                        left[key] -= amount
    return left


def fits(left: Counters, taking: Counters, device: dict) -> bool:
    """Whether the device's consumption fits beside what is being allocated (`taking`)."""
    wanted = consumption(device)
    return all(left[key] >= taking.get(key, 0) + amount
               for key, amount in wanted.items() if key in left)


def take(taking: Counters, device: dict, sign: int = 1) -> None:
    for key, amount in consumption(device).items():
        taking[key] = taking.get(key, Decimal(0)) + sign * amount
