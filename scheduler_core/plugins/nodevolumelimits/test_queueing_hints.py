"""csi_test.go TestCSILimitsQHint (isSchedulableAfterPodDeleted)."""
import pytest

from scheduler_core.framework.queueing_hint import QUEUE, QUEUE_SKIP
from scheduler_core.testing import make_pod, pod_info

from .csi import _inline_migratable
from .queueing_hints import is_schedulable_after_pod_deleted

TARGET = pod_info(make_pod("p", volumes=[{"name": "v",
                                          "persistentVolumeClaim": {"claimName": "c"}}]))


def deleted(volumes, node="n"):
    return pod_info(make_pod("d", node_name=node, volumes=volumes))


@pytest.mark.parametrize("old, want", [
    pytest.param(deleted([{"name": "v", "persistentVolumeClaim": {"claimName": "x"}}]), QUEUE,
                 id="a deleted pod with a claim frees a slot"),
    pytest.param(deleted([{"name": "v", "ephemeral": {"volumeClaimTemplate": {}}}]), QUEUE,
                 id="a deleted pod with a generic ephemeral volume"),
    pytest.param(deleted([{"name": "v", "awsElasticBlockStore": {"volumeID": "x"}}]), QUEUE,
                 id="a deleted pod with a migratable inline volume"),
    pytest.param(deleted([{"name": "v", "emptyDir": {}}]), QUEUE_SKIP,
                 id="skip: a deleted pod with only an emptyDir"),
    pytest.param(deleted([]), QUEUE_SKIP, id="skip: a deleted pod without volumes"),
    pytest.param(deleted([{"name": "v", "persistentVolumeClaim": {"claimName": "x"}}],
                         node=None), QUEUE_SKIP, id="skip: a deleted pod that was never placed"),
])
def test_is_schedulable_after_pod_deleted(old, want):
    assert is_schedulable_after_pod_deleted(_inline_migratable, TARGET, old, None) == want
