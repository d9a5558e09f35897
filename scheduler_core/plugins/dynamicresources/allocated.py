"""What allocated claims hold (structured/allocatedstate.go), and the tracker that keeps it
from one scheduling cycle to the next (dynamicresources/allocateddevices.go).

Go's allocatedDevices follows the informer's claim events instead of listing every claim in
each PreFilter. Here the claims are ClusterObjects.resource_claims, whose `claims_version()`
changes with every write and every edit made in place: the tracker rebuilds when the version
moved under it, and a change the plugin makes itself (`editing`) updates it in place.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field

from ...quantity import parse_quantity
from . import capacity


@dataclass
class AllocatedState:
    """What allocated claims hold (allocatedstate.go): devices in exclusive use, devices shared
    by allocations with a shareID, and the capacity those consumed per device."""
    devices: set = field(default_factory=set)
    shared: set = field(default_factory=set)
    capacity: dict = field(default_factory=dict)   # device id -> Consumed

    def is_allocated(self, device_id: tuple) -> bool:
        return device_id in self.devices or device_id in self.shared


def _held(claim: dict) -> tuple[list[tuple], list[tuple]]:
    """foreachAllocatedDevice: (the devices the claim holds alone, (device, consumed capacity)
    of those it shares); admin access does not count as use."""
    allocation = (claim.get("status") or {}).get("allocation")
    exclusive, shared = [], []
    for result in ((allocation or {}).get("devices") or {}).get("results") or []:
        if result.get("adminAccess"):
            continue
        device_id = (result["driver"], result["pool"], result["device"])
        if result.get("shareID") is None:
            exclusive.append(device_id)
            continue
        shared.append((device_id, {capacity.qualified(name, result["driver"]):
                                   parse_quantity(value)
                                   for name, value in (result.get("consumedCapacity")
                                                       or {}).items()}))
    return exclusive, shared


def allocated_state(claims) -> AllocatedState:
    """What allocated claims hold; a result with a shareID (consumable capacity) shares its
    device and adds up its consumed capacity."""
    return _state_of(_held(claim) for claim in claims)


def _state_of(held) -> AllocatedState:
    """The state from each claim's _held."""
    state = AllocatedState()
    for exclusive, shared in held:
        state.devices.update(exclusive)
        for device_id, consumed in shared:
            state.shared.add(device_id)
            capacity.add(state.capacity.setdefault(device_id, {}), consumed)
    return state


class AllocatedDevices:
    """allocatedDevices: the state of every claim in the objects' resource_claims.

    A state handed out stays as it was (Get returns a clone in Go): the next change copies
    it first. `epoch` moves on with every rebuild and `versions[(driver, pool)]` with every
    change to one of the pool's devices, so that what was computed from the devices of some
    pools can be kept while those stay as they were (outcomes.py)."""

    def __init__(self):
        self._version = None
        self._state = AllocatedState()
        self._handed_out = False
        self._holders: dict[tuple, int] = {}              # device -> claims holding it alone
        self._exclusive: dict[str, list[tuple] | None] = {}  # key -> its devices; None: shares
        self.epoch = 0
        self.versions: dict[tuple[str, str], int] = {}

    def state(self, objects) -> AllocatedState:
        """The state as of now (the same object while nothing changed: not to be edited)."""
        if self._version != objects.claims_version():
            self._rebuild(objects)
        self._handed_out = True
        return self._state

    def is_live(self, state: AllocatedState) -> bool:
        """Whether `state` is the tracker's state and nothing changed it since."""
        return state is self._state

    def _rebuild(self, objects) -> None:
        held = {key: _held(claim) for key, claim in objects.resource_claims.items()}
        self._state = _state_of(held.values())
        self._handed_out = False
        self.epoch += 1
        self._holders, self._exclusive = {}, {}
        for key, (exclusive, shared) in held.items():
            self._exclusive[key] = None if shared else exclusive
            for device_id in exclusive:
                self._holders[device_id] = self._holders.get(device_id, 0) + 1
        self._version = objects.claims_version()

    @contextmanager
    def editing(self, objects, key: str):
        """Around an edit of the claim stored under `key`: the objects' version moves on, and
        the tracker follows the claim's new allocation when it was up to date before (and
        neither allocation shares a device; those rebuild it)."""
        current = self._version == objects.claims_version()
        try:
            yield
        finally:
            objects.claims_changed()
            if current and self._follow(key, objects.resource_claims.get(key)):
                self._version = objects.claims_version()

    def _follow(self, key: str, claim: dict | None) -> bool:
        old = self._exclusive.get(key, [])
        exclusive, shared = _held(claim) if claim is not None else ([], [])
        if old is None or shared:
            return False
        if old == exclusive:
            return True
        if self._handed_out:
            self._state = AllocatedState(set(self._state.devices), self._state.shared,
                                         self._state.capacity)
            self._handed_out = False
        devices = self._state.devices
        for device_id in old:
            left = self._holders[device_id] - 1
            if left:
                self._holders[device_id] = left
            else:
                del self._holders[device_id]
                devices.discard(device_id)
        for device_id in exclusive:
            self._holders[device_id] = self._holders.get(device_id, 0) + 1
            devices.add(device_id)
        for pool in {device_id[:2] for device_id in (*old, *exclusive)}:
            self.versions[pool] = self.versions.get(pool, 0) + 1
        self._exclusive[key] = exclusive
        return True
