"""volume_binding_test.go TestIsSchedulableAfterPersistentVolumeClaimChange,
TestIsSchedulableAfterStorageClassChange and TestIsSchedulableAfterCSINodeChange."""
import pytest

from scheduler_core.framework.queueing_hint import QUEUE, QUEUE_SKIP
from scheduler_core.testing import make_pod, pod_info

from .queueing_hints import (
    is_schedulable_after_csinode_change,
    is_schedulable_after_pvc_change,
    is_schedulable_after_storage_class_change,
)

POD = pod_info(make_pod("pod-a", volumes=[
    {"name": "data", "persistentVolumeClaim": {"claimName": "pvc-a"}},
    {"name": "scratch", "ephemeral": {"volumeClaimTemplate": {}}}]))
TOPOLOGY = [{"matchLabelExpressions": [{"key": "zone", "values": ["a"]}]}]
MIGRATED = "storage.alpha.kubernetes.io/migrated-plugins"


def pvc(name, namespace="default"):
    return {"metadata": {"name": name, "namespace": namespace}}


def csinode(migrated=None):
    annotations = {MIGRATED: migrated} if migrated else {}
    return {"metadata": {"name": "n", "annotations": annotations}}


@pytest.mark.parametrize("new, want", [
    pytest.param(pvc("pvc-a"), QUEUE, id="queue-on-the-pod's-claim"),
    pytest.param(pvc("pod-a-scratch"), QUEUE, id="queue-on-the-pod's-ephemeral-claim"),
    pytest.param(pvc("pvc-b"), QUEUE_SKIP, id="skip-queue-on-another-claim"),
    pytest.param(pvc("pvc-a", "other"), QUEUE_SKIP, id="skip-queue-on-another-namespace"),
])
def test_is_schedulable_after_pvc_change(new, want):
    assert is_schedulable_after_pvc_change(POD, None, new) == want


@pytest.mark.parametrize("old, new, want", [
    pytest.param(None, {"allowedTopologies": TOPOLOGY}, QUEUE, id="a new class"),
    pytest.param({}, {"allowedTopologies": TOPOLOGY}, QUEUE, id="the allowed topologies changed"),
    pytest.param({"allowedTopologies": TOPOLOGY}, {"allowedTopologies": TOPOLOGY,
                                                   "parameters": {"x": "y"}}, QUEUE_SKIP,
                 id="another field changed"),
])
def test_is_schedulable_after_storage_class_change(old, new, want):
    assert is_schedulable_after_storage_class_change(POD, old, new) == want


@pytest.mark.parametrize("old, new, want", [
    pytest.param(None, csinode(), QUEUE, id="a new CSINode"),
    pytest.param(csinode(), csinode("kubernetes.io/aws-ebs"), QUEUE,
                 id="the migrated plugins changed"),
    pytest.param(csinode("kubernetes.io/aws-ebs"), csinode("kubernetes.io/aws-ebs"), QUEUE_SKIP,
                 id="nothing that matters changed"),
])
def test_is_schedulable_after_csinode_change(old, new, want):
    assert is_schedulable_after_csinode_change(POD, old, new) == want
