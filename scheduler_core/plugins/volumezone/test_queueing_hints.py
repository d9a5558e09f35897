"""volume_zone_test.go TestIsSchedulableAfterPersistentVolumeClaimChange,
TestIsSchedulableAfterStorageClassAdded and TestIsSchedulableAfterPersistentVolumeChange."""
import pytest

from scheduler_core.framework.queueing_hint import QUEUE, QUEUE_SKIP
from scheduler_core.testing import make_pod, pod_info

from .queueing_hints import (
    is_schedulable_after_pv_change,
    is_schedulable_after_pvc_change,
    is_schedulable_after_storage_class_added,
)
from .volume_zone import TOPOLOGY_LABELS

POD = pod_info(make_pod("p", volumes=[{"name": "v",
                                        "persistentVolumeClaim": {"claimName": "claim"}}]))
ZONE = "topology.kubernetes.io/zone"


def pvc(name, namespace="default"):
    return {"kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": namespace}}


def pv(**labels):
    return {"kind": "PersistentVolume", "metadata": {"name": "pv", "labels": labels}}


@pytest.mark.parametrize("new, want", [
    pytest.param(pvc("claim"), QUEUE, id="pod has a PVC that was created or updated"),
    pytest.param(pvc("other"), QUEUE_SKIP, id="pod doesn't have the PVC"),
    pytest.param(pvc("claim", "ns"), QUEUE_SKIP, id="the PVC is in another namespace"),
])
def test_is_schedulable_after_pvc_change(new, want):
    assert is_schedulable_after_pvc_change(POD, None, new) == want


@pytest.mark.parametrize("mode, want", [
    pytest.param("WaitForFirstConsumer", QUEUE, id="a WaitForFirstConsumer class"),
    pytest.param("Immediate", QUEUE_SKIP, id="an Immediate class"),
])
def test_is_schedulable_after_storage_class_added(mode, want):
    assert is_schedulable_after_storage_class_added(
        POD, None, {"kind": "StorageClass", "volumeBindingMode": mode}) == want


@pytest.mark.parametrize("old, new, want", [
    pytest.param(None, pv(), QUEUE, id="a new PV"),
    pytest.param(pv(**{ZONE: "a"}), pv(**{ZONE: "b"}), QUEUE, id="the PV's zone changed"),
    pytest.param(pv(**{ZONE: "a"}), pv(**{ZONE: "a", "x": "y"}), QUEUE_SKIP,
                 id="a label other than the topology changed"),
])
def test_is_schedulable_after_pv_change(old, new, want):
    assert is_schedulable_after_pv_change(TOPOLOGY_LABELS, POD, old, new) == want
