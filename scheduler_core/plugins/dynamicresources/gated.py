"""DRA fields behind feature gates, as the API server treats them when the gate is off: the
field is dropped when the object is created (dropDisabledFields in pkg/registry/resource/*/
strategy.go), so the scheduler never sees it. The loader drops them too and warns of each.

A row is (kinds, gate, what, find): find(obj) yields (path, container, key) for every place the
field is set, so that the warning names the first one and dropping removes them all.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from .cel import LIST_KINDS

Place = tuple[str, dict, str]    # the field's path, the mapping holding it, its key


@dataclass(frozen=True)
class GatedDRAField:
    kinds: tuple[str, ...]
    gate: str
    what: str
    find: Callable[[dict], Iterator[Place]]
    # What the scheduler does with the field when it is kept (not dropped): for a field the
    # scheduler itself reads behind the gate, rather than one the API server drops.
    kept: str = ""

    def places(self, obj: dict) -> list[Place]:
        return list(self.find(obj)) if obj.get("kind") in self.kinds else []


def _spec(obj: dict) -> dict:
    spec = obj.get("spec")
    return spec if isinstance(spec, dict) else {}


def _devices(obj: dict) -> Iterator[tuple[str, dict]]:
    for i, device in enumerate(_spec(obj).get("devices") or []):
        if isinstance(device, dict):
            yield f"spec.devices[{i}]", device


def _device_fields(*keys: str):
    def find(obj):
        for path, device in _devices(obj):
            for key in keys:
                if device.get(key) not in (None, [], False):
                    yield f"{path}.{key}", device, key
    return find


def _slice_fields(*keys: str):
    def find(obj):
        for key in keys:
            if _spec(obj).get(key) not in (None, [], False):
                yield f"spec.{key}", _spec(obj), key
    return find


def _chain(*finders):
    def find(obj):
        for finder in finders:
            yield from finder(obj)
    return find


def _request_policies(obj):
    for path, device in _devices(obj):
        for name, capacity in (device.get("capacity") or {}).items():
            if isinstance(capacity, dict) and capacity.get("requestPolicy"):
                yield f"{path}.capacity[{name}].requestPolicy", capacity, "requestPolicy"


def _list_attributes(obj):
    """Each list value of a device attribute (ints, bools, strings, versions)."""
    for path, device in _devices(obj):
        for name, attr in (device.get("attributes") or {}).items():
            for key in LIST_KINDS:
                if isinstance(attr, dict) and key in attr:
                    yield f"{path}.attributes[{name}].{key}", attr, key


def _claim_spec(obj: dict) -> tuple[str, dict]:
    if obj.get("kind") == "ResourceClaimTemplate":
        inner = _spec(obj).get("spec")
        return "spec.spec", inner if isinstance(inner, dict) else {}
    return "spec", _spec(obj)


def _requests(obj: dict) -> Iterator[tuple[str, dict]]:
    """Every exact request and subrequest of a claim or template, with its path."""
    base, spec = _claim_spec(obj)
    for i, req in enumerate((spec.get("devices") or {}).get("requests") or []):
        if not isinstance(req, dict):
            continue
        where = f"{base}.devices.requests[{i}]"
        if isinstance(req.get("exactly"), dict):
            yield f"{where}.exactly", req["exactly"]
        for j, sub in enumerate(req.get("firstAvailable") or []):
            if isinstance(sub, dict):
                yield f"{where}.firstAvailable[{j}]", sub


def _request_fields(key: str):
    def find(obj):
        for path, req in _requests(obj):
            if req.get(key):
                yield f"{path}.{key}", req, key
    return find


def _distinct_constraints(obj):
    base, spec = _claim_spec(obj)
    for i, constraint in enumerate((spec.get("devices") or {}).get("constraints") or []):
        if isinstance(constraint, dict) and constraint.get("distinctAttribute"):
            yield (f"{base}.devices.constraints[{i}].distinctAttribute", constraint,
                   "distinctAttribute")


def _class_field(key: str):
    def find(obj):
        if _spec(obj).get(key):
            yield f"spec.{key}", _spec(obj), key
    return find


SLICE, CLAIMS = ("ResourceSlice",), ("ResourceClaim", "ResourceClaimTemplate")
ROWS = (
    GatedDRAField(SLICE, "DRADeviceTaints", "device taints", _device_fields("taints")),
    GatedDRAField(CLAIMS, "DRADeviceTaints", "device tolerations", _request_fields("tolerations")),
    GatedDRAField(SLICE, "DRAPartitionableDevices", "partitionable devices (shared counters, "
                  "counter consumption, per-device node selection)",
                  _chain(_slice_fields("sharedCounters", "perDeviceNodeSelection"),
                         _device_fields("consumesCounters", "nodeName", "nodeSelector",
                                        "allNodes"))),
    GatedDRAField(SLICE, "DRAConsumableCapacity", "consumable capacity (devices allowing "
                  "multiple allocations, capacity request policies)",
                  _chain(_device_fields("allowMultipleAllocations"), _request_policies)),
    GatedDRAField(CLAIMS, "DRAConsumableCapacity", "capacity requests and distinctAttribute "
                  "constraints", _chain(_request_fields("capacity"), _distinct_constraints)),
    GatedDRAField(SLICE, "DRADeviceBindingConditions", "device binding conditions",
                  _device_fields("bindingConditions", "bindingFailureConditions",
                                 "bindsToNode")),
    GatedDRAField(("DeviceClass",), "DRAExtendedResource", "extended resources backed by DRA",
                  _class_field("extendedResourceName")),
    # The allocator's own gate (structured.Features.ListTypeAttributes): with it off, a list
    # value is no value it knows (cel/compile.go "unsupported attribute value"), as
    # allocator_testing.go's list-attributes-disabled-* cases have it. Kept, so that the run
    # fails where kube-scheduler's would.
    GatedDRAField(SLICE, "DRAListTypeAttributes", "list-valued device attributes (ints, "
                  "bools, strings, versions)", _list_attributes,
                  kept="the scheduler takes such an attribute as an unsupported attribute "
                       "value: a CEL selector evaluated on the device fails, and a "
                       "matchAttribute or distinctAttribute constraint on it never holds"),
)


def disabled_fields(obj: dict, enabled: Callable[[str], bool]) -> Iterator[tuple[GatedDRAField,
                                                                              list[Place]]]:
    """The rows whose gate is off and whose field the object sets, with where it is set."""
    for row in ROWS:
        places = row.places(obj)
        if places and not enabled(row.gate):
            yield row, places


def drop(row: GatedDRAField, places: list[Place]) -> None:
    """What the API server does to a field whose gate is off: it is not stored (unless the
    row's field is one the scheduler reads behind its gate: `kept`)."""
    if row.kept:
        return
    for _, container, key in places:
        container.pop(key, None)
