"""Consumable capacity (DRAConsumableCapacity; structured/internal/incubating/
consumable_capacity.go): a device with `allowMultipleAllocations` is shared by several
allocations, each consuming part of its capacities; a request's `capacity.requests` is rounded
up by the device's `requestPolicy` (default, validValues, validRange min/max/step).

Quantities are exact (Decimal), so Go's integer and milli-value paths give the same numbers.
Capacity names are keyed fully qualified ("<domain>/<name>"; an unqualified one belongs to the
driver), as Go's FullyQualifiedName.
"""
from __future__ import annotations

from decimal import Decimal

from ...quantity import parse_quantity

Consumed = dict[str, Decimal]   # fully qualified capacity name -> amount


class CapacityError(Exception):
    """A request the allocator must refuse outright (Go aborts the allocation)."""


def qualified(name: str, driver: str) -> str:
    return name if "/" in name else f"{driver}/{name}"


def device_capacity(device: dict, driver: str) -> dict[str, tuple[str, dict]]:
    """resolveDeviceCapacity: qualified name -> (the name as published, its DeviceCapacity);
    an entry qualified with the driver's own domain wins over the unqualified one."""
    resolved: dict[str, tuple[str, dict]] = {}
    capacity = device.get("capacity") or {}
    for name, cap in capacity.items():
        if name.startswith(f"{driver}/"):
            resolved[name] = (name, cap or {})
    for name, cap in capacity.items():
        resolved.setdefault(qualified(name, driver), (name, cap or {}))
    return resolved


def _resolve_requests(requests: dict, device: dict, driver: str) -> dict[str, Decimal] | None:
    """resolveCapacityRequests: None when the device lacks a requested capacity."""
    capacity = device.get("capacity") or {}
    out: dict[str, Decimal] = {}
    for name, value in (requests or {}).items():
        domain, sep, ident = name.partition("/")
        if name in capacity:
            key = qualified(name, driver)
        elif sep and domain == driver and ident in capacity:
            key = name
        elif not sep and f"{driver}/{name}" in capacity:
            key = f"{driver}/{name}"
        else:
            return None
        if key in out:
            raise CapacityError(f'capacity "{key.rpartition("/")[2]}" requested both as '
                                f'"{name}" and as another spelling')
        out[key] = parse_quantity(value)
    return out


def _q(value) -> Decimal | None:
    return None if value is None else parse_quantity(value)


def _consumed(requested: Decimal | None, cap: dict) -> Decimal:
    """calculateConsumedQuantity: what one allocation takes of one capacity."""
    total, policy = parse_quantity(cap.get("value", 0)), cap.get("requestPolicy")
    if requested is None:
        default = _q((policy or {}).get("default"))
        return default if default is not None else total
    if not policy:
        return requested
    valid_range = policy.get("validRange") or {}
    if valid_range.get("min") is not None:
        low, step = _q(valid_range["min"]), _q(valid_range.get("step"))
        if requested < low:
            return low
        if step is None:
            return requested
        added = requested - low
        steps = added // step + (1 if added % step else 0)   # rounded up to the next step
        return low + step * steps
    for valid in (_q(v) for v in policy.get("validValues") or []):
        if requested <= valid:
            return valid
    return requested


def _violates(consumed: Decimal, policy: dict | None) -> bool:
    """violatesPolicy: past validRange.max, off the min+k*step grid, or not a valid value."""
    if not policy:
        return False
    if policy.get("default") is not None and consumed == _q(policy["default"]):
        return False
    valid_range = policy.get("validRange")
    if valid_range is not None:
        top, step = _q(valid_range.get("max")), _q(valid_range.get("step"))
        if top is not None and consumed > top:
            return True
        low = _q(valid_range.get("min")) or Decimal(0)
        return step is not None and (consumed - low) % step != 0
    values = [_q(v) for v in policy.get("validValues") or []]
    return bool(values) and consumed not in values


def fits(requests: dict | None, device: dict, driver: str, allocated: Consumed,
         allocating: Consumed) -> Consumed | None:
    """cmpRequestOverCapacity: what the request would consume of each of the device's
    capacities, or None when the device cannot give it (a capacity it lacks, a policy the
    amount breaks, or more than is left after `allocated` and `allocating`)."""
    resolved = _resolve_requests(requests, device, driver)
    if resolved is None:
        return None
    capacity = device_capacity(device, driver)
    consumed = {name: _consumed(resolved.get(name), cap) for name, (_, cap) in capacity.items()}
    if any(amount < 0 for amount in consumed.values()):
        raise CapacityError("capacity value is negative")
    for name, (_, cap) in capacity.items():
        if _violates(consumed[name], cap.get("requestPolicy")):
            return None
        used = consumed[name] + allocated.get(name, 0) + allocating.get(name, 0)
        if used > parse_quantity(cap.get("value", 0)):
            return None
    return consumed


def status_names(consumed: Consumed, device: dict, driver: str) -> dict[str, str]:
    """The allocation result's consumedCapacity, named as the device publishes each capacity
    (capacityNameForStatus), with canonical quantity strings."""
    capacity = device_capacity(device, driver)
    return {capacity[name][0]: format_quantity(amount) for name, amount in consumed.items()}


def format_quantity(amount: Decimal) -> str:
    """A quantity's canonical text for the amounts this module computes."""
    if amount == amount.to_integral_value():
        return str(int(amount))
    return f"{int((amount * 1000).to_integral_value())}m"


def add(into: Consumed, consumed: Consumed, sign: int = 1) -> None:
    for name, amount in consumed.items():
        into[name] = into.get(name, Decimal(0)) + sign * amount
        if into[name] == 0 and sign < 0:
            del into[name]
