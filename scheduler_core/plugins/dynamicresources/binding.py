"""Binding conditions (DRADeviceBindingConditions with DRAResourceClaimDeviceStatus): a device
whose allocation result lists `bindingConditions` is ready for the pod only once the driver
set every one of them True in the claim's `status.devices[]`; a True
`bindingFailureConditions` entry fails the binding (isClaimReadyForBinding).

PreBind polls the claims every 5 seconds for `bindingTimeout` (DynamicResourcesArgs, 600s by
default), in virtual time, while other pods are scheduled. The engine runs no DRA driver, so
only the input or a timeline step can report the conditions; when nothing does, PreBind ends
at the timeout as Go's does ("device binding timeout").

A claim's binding times out `bindingTimeout` after its `allocationTimestamp` (isClaimTimeout),
which PreBind sets when it writes the claim. Wall-clock time is the run's virtual clock from
RUN_EPOCH, so a timestamp of the input lies in the past. A failed or timed-out claim is not
available to Filter, and PostFilter deallocates it (dynamicresources.go).
"""
from __future__ import annotations

from datetime import UTC, datetime

from ...durations import parse_go_duration
from ...epoch import RUN_EPOCH

DEFAULT_TIMEOUT_SECONDS = 600
POLL_SECONDS = 5   # PreBind's wait.PollUntilContextTimeout interval


class BindingFailed(Exception):
    """A binding failure condition is True: the pod is retried (its error is PreBind's)."""


def _device_status(claim: dict, result: dict) -> dict | None:
    for device in (claim.get("status") or {}).get("devices") or []:
        if (device.get("driver"), device.get("pool"), device.get("device")) == (
                result["driver"], result["pool"], result["device"]):
            return device
    return None


def _condition(status: dict, kind: str) -> dict | None:
    return next((c for c in status.get("conditions") or [] if c.get("type") == kind), None)


def waits_on(claim: dict) -> list[str]:
    """The devices of the claim's allocation that have binding conditions."""
    results = (((claim.get("status") or {}).get("allocation") or {}).get("devices") or {}) \
        .get("results") or []
    return [r["device"] for r in results if r.get("bindingConditions")]


def ready(claim: dict) -> bool:
    """isClaimReadyForBinding; BindingFailed when a failure condition is True."""
    name = (claim.get("metadata") or {}).get("name")
    allocation = (claim.get("status") or {}).get("allocation")
    if allocation is None:
        return False
    for result in (allocation.get("devices") or {}).get("results") or []:
        if not result.get("bindingConditions"):
            continue
        status = _device_status(claim, result)
        if status is None:
            return False
        for kind in result.get("bindingFailureConditions") or []:
            failed = _condition(status, kind)
            if failed is not None and failed.get("status") == "True":
                raise BindingFailed(f"claim {name} binding failed: reason="
                                    f"{failed.get('reason', '')}, message="
                                    f"\"{failed.get('message', '')}\"")
        for kind in result["bindingConditions"]:
            condition = _condition(status, kind)
            if condition is None or condition.get("status") != "True":
                return False
    return True


def timeout_seconds(args: dict) -> float:
    """DynamicResourcesArgs.bindingTimeout in seconds, the default when unset."""
    text = (args or {}).get("bindingTimeout")
    return DEFAULT_TIMEOUT_SECONDS if text is None else parse_go_duration(text)


def timed_out(claim: dict, timeout: float, now: float) -> bool:
    """isClaimTimeout: the allocation has a device with binding conditions and its
    allocationTimestamp plus the timeout lies before now (epoch seconds)."""
    allocation = (claim.get("status") or {}).get("allocation") or {}
    stamp = allocation.get("allocationTimestamp")
    allocated_at = parse_timestamp(stamp) if stamp else None
    if allocated_at is None:
        return False
    results = (allocation.get("devices") or {}).get("results") or []
    if not any(r.get("bindingConditions") is not None for r in results):
        return False
    return allocated_at + timeout < now


def available(claim: dict, timeout: float, now: float) -> bool:
    """Filter's check of an allocated claim: False when its binding failed or timed out."""
    try:
        return ready(claim) or not timed_out(claim, timeout, now)
    except BindingFailed:
        return False


def pod_ready(claims: list[dict], timeout: float, now: float) -> bool:
    """isPodReadyForBinding: every claim ready; BindingFailed for a failed condition or for
    the first claim not ready whose binding timed out ("claim <name> binding timeout")."""
    for claim in claims:
        if not ready(claim):
            if timed_out(claim, timeout, now):
                name = (claim.get("metadata") or {}).get("name")
                raise BindingFailed(f"claim {name} binding timeout")
            return False
    return True


def parse_timestamp(text: str) -> float | None:
    """The API validates metav1.Time; an unreadable one here counts as none (no timeout)."""
    try:
        return datetime.fromisoformat(str(text).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def wall_clock(handle) -> float:
    """time.Now() of the run: its virtual clock from RUN_EPOCH."""
    return RUN_EPOCH + handle.now()


def timestamp(seconds: float) -> str:
    """metav1.Time as the API writes it: RFC 3339, whole seconds."""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
