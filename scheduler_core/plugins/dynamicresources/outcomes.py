"""Allocate's outcome per node, kept from one scheduling cycle to the next.

Go's Filter runs Allocate on every node it visits, in every cycle. What Allocate gives on a
node only depends on the node, the pools it reaches (the slice index), the device classes,
the specs of the claims to allocate, and the allocated state of those pools' devices: pods
whose claims come from one template ask the same on every node, and from one cycle to the
next only the node that took the last pod's devices has changed. So the outcome is kept per
node and given again while all of those are the same (`tracker.versions` tell whether a pool's
devices changed). It is not kept when it names the claim: errors (their messages do) and
results with a shareID (derived from the claim's name).

Kept results are shared: whoever stores one in an object copies it first (Reserve does).
"""
from __future__ import annotations

from .allocated import AllocatedDevices
from .allocator import Allocator


class NodeOutcomes:
    def __init__(self):
        self._kept: dict[str, tuple[tuple, list[dict] | None]] = {}

    def allocate(self, allocator: Allocator, tracker: AllocatedDevices, node: dict,
                 claims: list[dict], signature: tuple | None) -> list[dict] | None:
        """allocator.allocate(node, claims), or the outcome it gave for the same signature
        (what the claims ask, as `signature` says; None: not to be kept) on the node whose
        pools have not changed since. Only while the allocator's state is the tracker's."""
        if signature is None or not tracker.is_live(allocator.state):
            return allocator.allocate(node, claims)
        versions = tracker.versions
        stamp = (node, signature, tracker.epoch,
                 tuple(versions.get((p.driver, p.name), 0) for p in allocator.index.pools(node)))
        name = (node.get("metadata") or {}).get("name", "")
        kept = self._kept.get(name)
        if kept is not None and kept[0] == stamp:
            return kept[1]
        outcome = allocator.allocate(node, claims)
        if outcome is None or not _names_claim(outcome):
            self._kept[name] = (stamp, outcome)
        return outcome


def signature(index, claims: list[dict], classes: dict[str, dict]) -> tuple:
    """What Allocate's outcome depends on besides the node and the allocated devices: the
    slice index (the pools), the claims' specs, and the device classes (kept by identity: an
    updated class is a new object)."""
    return index, tuple(repr(c.get("spec")) for c in claims), tuple(classes.items())


def _names_claim(allocations: list[dict]) -> bool:
    return any(r.get("shareID") for a in allocations
               for r in (a.get("devices") or {}).get("results") or [])
