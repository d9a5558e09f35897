"""volume_restrictions_test.go Test_isSchedulableAfterPodDeleted and
Test_isSchedulableAfterPersistentVolumeClaimAdded."""
import pytest

from scheduler_core.framework.queueing_hint import QUEUE, QUEUE_SKIP
from scheduler_core.testing import make_pod, pod_info

from .queueing_hints import is_schedulable_after_pod_deleted, is_schedulable_after_pvc_added
from .volume_restrictions import satisfy_volume_conflicts

GCE = {"name": "v", "gcePersistentDisk": {"pdName": "disk-a"}}
GCE_OTHER = {"name": "v", "gcePersistentDisk": {"pdName": "disk-b"}}


def pod(name, namespace="default", *volumes):
    return pod_info(make_pod(name, namespace=namespace, node_name="n", volumes=list(volumes)))


def claim(name):
    return {"name": name, "persistentVolumeClaim": {"claimName": name}}


def pvc(name, namespace="default"):
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": name, "namespace": namespace}}


@pytest.mark.parametrize("target, deleted, want", [
    pytest.param(pod("p", "default", GCE), pod("d", "default", GCE), QUEUE,
                 id="queue on the deletion of a pod with a conflicting volume"),
    pytest.param(pod("p", "default", GCE), pod("d", "default", GCE_OTHER), QUEUE_SKIP,
                 id="skip-queue-on-no-conflict"),
    pytest.param(pod("p", "default", GCE), pod("d", "other", GCE), QUEUE_SKIP,
                 id="skip-queue-on-other-namespace"),
    pytest.param(pod("p", "default", claim("rwop")), pod("d", "default", claim("rwop")), QUEUE,
                 id="queue on the deletion of a pod using the same claim"),
    pytest.param(pod("p", "default", claim("a")), pod("d", "default", claim("b")), QUEUE_SKIP,
                 id="skip-queue-on-another-claim"),
])
def test_is_schedulable_after_pod_deleted(target, deleted, want):
    assert is_schedulable_after_pod_deleted(satisfy_volume_conflicts, target, deleted,
                                            None) == want


@pytest.mark.parametrize("new, want", [
    pytest.param(pvc("a"), QUEUE, id="queue-on-the-pod's-claim-added"),
    pytest.param(pvc("b"), QUEUE_SKIP, id="skip-queue-on-another-claim"),
    pytest.param(pvc("a", "other"), QUEUE_SKIP, id="skip-queue-on-another-namespace"),
])
def test_is_schedulable_after_pvc_added(new, want):
    assert is_schedulable_after_pvc_added(pod("p", "default", claim("a")), None, new) == want
