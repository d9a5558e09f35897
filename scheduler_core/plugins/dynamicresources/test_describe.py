"""The trace's view of an allocation's devices: taints, counters with their set's total,
capacities; plain devices are left out."""
from __future__ import annotations

from .describe import device_details

SLICES = [
    {"spec": {"driver": "d", "pool": {"name": "p"}, "sharedCounters": [
        {"name": "mem", "counters": {"memory": {"value": "80Gi"}}},
        {"name": "other", "counters": {"x": {"value": "1"}}}]}},
    {"spec": {"driver": "d", "pool": {"name": "p"}, "devices": [
        {"name": "half", "consumesCounters": [{"counterSet": "mem",
                                               "counters": {"memory": {"value": "40Gi"}}}]},
        {"name": "tainted", "taints": [{"key": "k", "effect": "NoSchedule"}],
         "capacity": {"memory": {"value": "40Gi"}}},
        {"name": "plain"}]}},
]


def allocation(*devices):
    return {"devices": {"results": [{"request": "r", "driver": "d", "pool": "p", "device": d}
                                    for d in devices]}}


def test_device_details():
    assert device_details(SLICES, allocation("half", "tainted", "plain")) == {
        "d/p/half": {"consumesCounters": SLICES[1]["spec"]["devices"][0]["consumesCounters"],
                     "counterSets": {"mem": {"memory": {"value": "80Gi"}}}},
        "d/p/tainted": {"taints": [{"key": "k", "effect": "NoSchedule"}],
                        "capacity": {"memory": {"value": "40Gi"}}},
    }


def test_an_allocation_of_plain_devices_has_no_details():
    assert device_details(SLICES, allocation("plain")) == {}
