"""DRA fields behind feature gates: found where they are set, dropped when the gate is off
(as the API server's dropDisabledFields does on create)."""
from __future__ import annotations

import copy

from .gated import disabled_fields, drop

SLICE = {"kind": "ResourceSlice", "spec": {
    "sharedCounters": [{"name": "cs", "counters": {"memory": {"value": "8Gi"}}}],
    "devices": [
        {"name": "d0", "taints": [{"key": "k", "effect": "NoSchedule"}],
         "consumesCounters": [{"counterSet": "cs", "counters": {"memory": {"value": "4Gi"}}}]},
        {"name": "d1", "allowMultipleAllocations": True,
         "capacity": {"bw": {"value": "10", "requestPolicy": {"default": "1"}}},
         "bindingConditions": ["ready"], "bindsToNode": True}]}}
CLAIM = {"kind": "ResourceClaimTemplate", "spec": {"spec": {"devices": {
    "requests": [{"name": "r", "exactly": {"deviceClassName": "c",
                                          "tolerations": [{"operator": "Exists"}],
                                          "capacity": {"requests": {"bw": "1"}}}},
                 {"name": "f", "firstAvailable": [{"name": "s", "deviceClassName": "c",
                                                   "tolerations": [{"operator": "Exists"}]}]}],
    "constraints": [{"distinctAttribute": "numa"}]}}}}


def off(*gates):
    return lambda gate: gate not in gates


def paths(obj, enabled):
    return {row.gate: [p for p, _, _ in places] for row, places in disabled_fields(obj, enabled)}


def test_every_gated_field_of_a_slice_is_found_with_its_path():
    found = paths(SLICE, off("DRADeviceTaints", "DRAPartitionableDevices",
                             "DRAConsumableCapacity", "DRADeviceBindingConditions"))
    assert found == {
        "DRADeviceTaints": ["spec.devices[0].taints"],
        "DRAPartitionableDevices": ["spec.sharedCounters", "spec.devices[0].consumesCounters"],
        "DRAConsumableCapacity": ["spec.devices[1].allowMultipleAllocations",
                                  "spec.devices[1].capacity[bw].requestPolicy"],
        "DRADeviceBindingConditions": ["spec.devices[1].bindingConditions",
                                       "spec.devices[1].bindsToNode"],
    }


def test_a_template_s_requests_and_subrequests_are_searched():
    found = paths(CLAIM, off("DRADeviceTaints", "DRAConsumableCapacity"))
    assert found == {
        "DRADeviceTaints": ["spec.spec.devices.requests[0].exactly.tolerations",
                            "spec.spec.devices.requests[1].firstAvailable[0].tolerations"],
        "DRAConsumableCapacity": ["spec.spec.devices.requests[0].exactly.capacity",
                                  "spec.spec.devices.constraints[0].distinctAttribute"],
    }


def test_nothing_is_reported_while_the_gates_are_on():
    assert paths(SLICE, lambda gate: True) == {} and paths(CLAIM, lambda gate: True) == {}


def test_dropping_removes_every_place_and_nothing_else():
    slice_ = copy.deepcopy(SLICE)
    for row, places in disabled_fields(slice_, off("DRADeviceTaints", "DRAPartitionableDevices")):
        drop(row, places)
    assert "sharedCounters" not in slice_["spec"]
    assert slice_["spec"]["devices"][0] == {"name": "d0"}
    assert slice_["spec"]["devices"][1] == SLICE["spec"]["devices"][1]


def test_a_device_class_s_extended_resource_name_needs_its_gate():
    klass = {"kind": "DeviceClass", "spec": {"extendedResourceName": "example.com/gpu"}}
    assert paths(klass, off("DRAExtendedResource")) == {
        "DRAExtendedResource": ["spec.extendedResourceName"]}


LISTED = {"kind": "ResourceSlice", "spec": {"devices": [
    {"name": "d0", "attributes": {"numa": {"ints": [0, 1]}, "model": {"string": "a100"}}},
    {"name": "d1", "attributes": {"pcieRoots": {"strings": ["pci0", "pci1"]}}}]}}


def test_list_valued_attributes_are_found_and_kept_for_the_allocator_to_refuse():
    slice_ = copy.deepcopy(LISTED)
    [(row, places)] = list(disabled_fields(slice_, off("DRAListTypeAttributes")))
    assert [p for p, _, _ in places] == ["spec.devices[0].attributes[numa].ints",
                                         "spec.devices[1].attributes[pcieRoots].strings"]
    drop(row, places)
    assert slice_ == LISTED and row.kept
