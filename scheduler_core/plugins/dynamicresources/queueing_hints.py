"""DynamicResources' EventsToRegister and QueueingHints (dynamicresources.go).

Node Add|UpdateNodeLabel|UpdateNodeAllocatable, DeviceClass and ResourceSlice Add|Update always
queue; ResourceClaim Add|Update and the pod update that names a generated claim have hints.
"""
from __future__ import annotations

from ...framework.queueing_hint import QUEUE, QUEUE_SKIP
from . import objects as obj


def for_dynamic_resources(plugin) -> dict:
    claim_hint = plugin.is_schedulable_after_claim_change
    return {"NodeAdd": None, "NodeUpdate": None,
            "ResourceClaimAdd": claim_hint, "ResourceClaimUpdate": claim_hint,
            "UnscheduledPodUpdate": plugin.is_schedulable_after_pod_change,
            "DeviceClassAdd": None, "DeviceClassUpdate": None,
            "ResourceSliceAdd": None, "ResourceSliceUpdate": None}


def _allocation(claim: dict | None):
    return ((claim or {}).get("status") or {}).get("allocation")


def after_claim_change(objects, pod, old: dict | None, new: dict) -> str:
    """isSchedulableAfterClaimChange: a deallocation helps anyone; otherwise only a change of
    the status of one of the pod's own claims (or its creation) does."""
    try:
        uses_claim = any(obj.claim_uid(c) == obj.claim_uid(new)
                         for c in obj.pod_claims(objects, pod.obj))
    except obj.ClaimError:
        return QUEUE_SKIP  # some claim of the pod is still missing: this one cannot help
    if old is not None and _allocation(old) is not None and _allocation(new) is None:
        return QUEUE
    if not uses_claim:
        return QUEUE_SKIP
    if old is None:
        return QUEUE
    if (old.get("status") or {}) == (new.get("status") or {}):
        return QUEUE_SKIP  # e.g. only a finalizer was added
    return QUEUE


def after_pod_change(objects, pod, old_pod, new_pod) -> str:
    """isSchedulableAfterPodChange: the pod itself now names all its claims, and they exist."""
    if pod.uid != new_pod.uid:
        return QUEUE_SKIP
    try:
        obj.pod_claims(objects, new_pod.obj)
    except obj.ClaimError:
        return QUEUE_SKIP
    return QUEUE
