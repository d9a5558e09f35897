"""computeScore (dynamicresources.go, v1.35+): per claim, each firstAvailable request scores
FirstAvailableDeviceRequestMaxSize (8) minus the index of the subrequest the allocation took,
so the node that can give the first choice wins."""
from __future__ import annotations

from .objects import FIRST_AVAILABLE_MAX_SIZE


class ScoreError(Exception):
    """The allocations do not cover the claims: an internal error, as in Go."""


def compute_score(claims: list[dict], allocations: list[dict]) -> int:
    """claims: all of the pod's claims; allocations: those Filter made on the node for the
    claims not allocated yet, in order. An allocated claim counts with its own allocation."""
    score, pending = 0, iter(allocations)
    for claim in claims:
        allocation = (claim.get("status") or {}).get("allocation")
        if allocation is None:
            allocation = next(pending, None)
            if allocation is None:
                raise ScoreError(f"number of allocations {len(allocations)} is smaller than "
                                 "number of claims needing allocation")
        taken = {r["request"] for r in (allocation.get("devices") or {}).get("results") or []
                 if "/" in r["request"]}
        for request in claim["spec"]["devices"].get("requests") or []:
            for i, sub in enumerate(request.get("firstAvailable") or []):
                if f"{request['name']}/{sub['name']}" in taken:
                    score += FIRST_AVAILABLE_MAX_SIZE - i
    return score
