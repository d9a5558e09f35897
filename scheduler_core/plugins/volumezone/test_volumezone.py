"""VolumeZone, ported from volume_zone_test.go (TestSingleZone, TestMultiZone,
TestWithBinding)."""
import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.status import Status
from scheduler_core.framework.types import NodeInfo
from scheduler_core.plugins.volumebinding import storage as st
from scheduler_core.plugins.volumezone import new
from scheduler_core.plugins.volumezone.volume_zone import ERR_REASON_CONFLICT
from scheduler_core.testing import make_node
from scheduler_core.testing.volumebinding import handle, pod, pv, pvc, storage_class

SKIP = Status.skip()
CONFLICT = Status.unresolvable(ERR_REASON_CONFLICT)
BETA_ZONE, BETA_REGION, ZONE, REGION = st.ZONE_BETA, st.REGION_BETA, st.ZONE_GA, st.REGION_GA


def host(**labels):
    return NodeInfo(make_node("host1", labels=labels))


def claims(mapping):
    return [pvc(name, volume_name=volume) for name, volume in mapping.items()]


SINGLE_ZONE_PVS = [
    pv("Vol_1", labels={BETA_ZONE: "us-west1-a"}),
    pv("Vol_2", labels={BETA_REGION: "us-west1", "uselessLabel": "none"}),
    pv("Vol_3", labels={BETA_REGION: "us-west1"}),
    pv("Vol_Stable_1", labels={ZONE: "us-west1-a"}),
    pv("Vol_Stable_2", labels={REGION: "us-west1", "uselessLabel": "none"}),
    pv("Vol_Stable_3", labels={ZONE: "us-west1-a", REGION: "us-west1-a"}),
]
SINGLE_ZONE_PVCS = claims({"PVC_1": "Vol_1", "PVC_2": "Vol_2", "PVC_3": "Vol_3",
                           "PVC_4": "Vol_not_exist", "PVC_Stable_1": "Vol_Stable_1",
                           "PVC_Stable_2": "Vol_Stable_2", "PVC_Stable_3": "Vol_Stable_3"})
USELESS = {"uselessLabel": "none"}

SINGLE_ZONE = [
    pytest.param(None, host(**{BETA_ZONE: "us-west1-a"}), SKIP, None, id="pod without volume"),
    pytest.param("PVC_1", host(), None, None, id="node without labels"),
    pytest.param("PVC_1", host(**{BETA_ZONE: "us-west1-a"}, **USELESS), None, None,
                 id="beta zone label matched"),
    pytest.param("PVC_2", host(**{BETA_REGION: "us-west1"}, **USELESS), None, None,
                 id="beta region label matched"),
    pytest.param("PVC_2", host(**{BETA_REGION: "no_us-west1"}, **USELESS), None, CONFLICT,
                 id="beta region label doesn't match"),
    pytest.param("PVC_1", host(**{BETA_ZONE: "no_us-west1-a"}, **USELESS), None, CONFLICT,
                 id="beta zone label doesn't match"),
    pytest.param("PVC_Stable_1", host(**{ZONE: "us-west1-a"}, **USELESS), None, None,
                 id="zone label matched"),
    pytest.param("PVC_Stable_2", host(**{REGION: "us-west1"}, **USELESS), None, None,
                 id="region label matched"),
    pytest.param("PVC_Stable_2", host(**{REGION: "no_us-west1"}, **USELESS), None, CONFLICT,
                 id="region label doesn't match"),
    pytest.param("PVC_Stable_1", host(**{ZONE: "no_us-west1-a"}, **USELESS), None, CONFLICT,
                 id="zone label doesn't match"),
    pytest.param("PVC_Stable_3", host(**{ZONE: "us-west1-a"}), None, CONFLICT,
                 id="pv with zone and region, node with only zone"),
    pytest.param("PVC_Stable_1", host(**{BETA_ZONE: "us-west1-a"}), None, CONFLICT,
                 id="pv with zone, node with beta zone"),
    pytest.param("PVC_1", host(**{ZONE: "us-west1-a"}), None, None,
                 id="pv with beta label, node with ga label, matched"),
    pytest.param("PVC_1", host(**{ZONE: "us-west1-b"}), None, CONFLICT,
                 id="pv with beta label, node with ga label, don't match"),
    pytest.param("PVC_4", host(**{ZONE: "us-west1-a"}),
                 Status.unresolvable('persistentvolume "Vol_not_exist" not found'),
                 Status.unresolvable('persistentvolume "Vol_not_exist" not found'),
                 id="pv of the claim does not exist"),
    pytest.param("PVC_missing", host(**{ZONE: "us-west1-a"}),
                 Status.unresolvable('persistentvolumeclaim "PVC_missing" not found'),
                 Status.unresolvable('persistentvolumeclaim "PVC_missing" not found'),
                 id="claim does not exist"),
]

MULTI_ZONE_PVS = [
    pv("Vol_1", labels={BETA_ZONE: "us-west1-a"}),
    pv("Vol_2", labels={BETA_ZONE: "us-west1-b", "uselessLabel": "none"}),
    pv("Vol_3", labels={BETA_ZONE: "us-west1-c__us-west1-a"}),
    pv("Vol_Stable_1", labels={ZONE: "us-west1-a"}),
    pv("Vol_Stable_2", labels={ZONE: "us-west1-c__us-west1-a"}),
    pv("Vol_Bad_Label", labels={ZONE: "us-west1-c____us-west1-a"}),
]
MULTI_ZONE_PVCS = claims({"PVC_1": "Vol_1", "PVC_2": "Vol_2", "PVC_3": "Vol_3",
                          "PVC_4": "Vol_not_exist", "PVC_Stable_1": "Vol_Stable_1",
                          "PVC_Stable_2": "Vol_Stable_2", "PVC_Bad_Label": "Vol_Bad_Label"})

MULTI_ZONE = [
    pytest.param("PVC_3", host(), None, None, id="node without labels"),
    pytest.param("PVC_3", host(**{BETA_ZONE: "us-west1-a"}, **USELESS), None, None,
                 id="beta zone label matched"),
    pytest.param("PVC_1", host(**{BETA_ZONE: "us-west1-b"}, **USELESS), None, CONFLICT,
                 id="beta zone label doesn't match"),
    pytest.param("PVC_Stable_2", host(**{ZONE: "us-west1-a"}, **USELESS), None, None,
                 id="zone label matched"),
    pytest.param("PVC_Stable_1", host(**{ZONE: "us-west1-b"}, **USELESS), None, CONFLICT,
                 id="zone label doesn't match"),
    pytest.param("PVC_Bad_Label", host(**{ZONE: "us-west1-b"}), SKIP, None,
                 id="a zone set with an empty member is ignored"),
]


def run(pvs, pvcs, classes, claim, node_info, want_pre_filter, want_filter):
    plugin = new({}, handle(pvs=pvs, pvcs=pvcs, classes=classes))
    state = CycleState()
    p = pod("pod_1", volumes=[claim] if claim else [])
    _, status = plugin.pre_filter(state, p, [])
    assert status == want_pre_filter
    # Filter runs even after a failed or skipped PreFilter: it then computes the topology itself.
    assert plugin.filter(state, p, node_info) == want_filter


@pytest.mark.parametrize("claim, node_info, want_pre_filter, want_filter", SINGLE_ZONE)
def test_single_zone(claim, node_info, want_pre_filter, want_filter):
    run(SINGLE_ZONE_PVS, SINGLE_ZONE_PVCS, [], claim, node_info, want_pre_filter, want_filter)


@pytest.mark.parametrize("claim, node_info, want_pre_filter, want_filter", MULTI_ZONE)
def test_multi_zone(claim, node_info, want_pre_filter, want_filter):
    run(MULTI_ZONE_PVS, MULTI_ZONE_PVCS, [], claim, node_info, want_pre_filter, want_filter)


BINDING_CLASSES = [storage_class("Class_Immediate", None), storage_class("Class_Wait")]
BINDING_PVCS = [pvc("PVC_1", volume_name="Vol_1"), pvc("PVC_NoSC", "Class_0"),
                pvc("PVC_EmptySC"), pvc("PVC_WaitSC", "Class_Wait"),
                pvc("PVC_ImmediateSC", "Class_Immediate")]
TEST_NODE = host(**{BETA_ZONE: "us-west1-a"}, **USELESS)


def both(message):
    return Status.unresolvable(message), Status.unresolvable(message)


WITH_BINDING = [
    pytest.param("PVC_1", None, None, id="label zone failure domain matched"),
    pytest.param("PVC_EmptySC",
                 *both("PersistentVolumeClaim had no pv name and storageClass name"),
                 id="unbound volume empty storage class"),
    pytest.param("PVC_NoSC", *both('storageclass.storage.k8s.io "Class_0" not found'),
                 id="unbound volume no storage class"),
    pytest.param("PVC_ImmediateSC",
                 *both('VolumeBindingMode not set for StorageClass "Class_Immediate"'),
                 id="unbound volume immediate binding mode"),
    pytest.param("PVC_WaitSC", SKIP, None, id="unbound volume wait binding mode"),
]


@pytest.mark.parametrize("claim, want_pre_filter, want_filter", WITH_BINDING)
def test_with_binding(claim, want_pre_filter, want_filter):
    run([pv("Vol_1", labels={BETA_ZONE: "us-west1-a"})], BINDING_PVCS, BINDING_CLASSES, claim,
        TEST_NODE, want_pre_filter, want_filter)


def test_an_unbound_claim_of_an_immediate_class_has_no_volume_yet():
    run([], [pvc("late", "fast")], [storage_class("fast", "Immediate")], "late", TEST_NODE,
        *both("PersistentVolume had no name"))


def test_events_to_register():
    assert {"PvcAdd", "PvAdd", "NodeAdd", "StorageClassAdd"} <= \
        new({}, handle()).events_to_register()
