"""NodeVolumeLimits' QueueingHints (nodevolumelimits/csi.go)."""
from __future__ import annotations

from ...framework.queueing_hint import QUEUE, QUEUE_SKIP


def for_csi_limits(inline_migratable) -> dict:
    """CSINode/Add and PersistentVolumeClaim/Add always queue; Pod/Delete has a hint.
    inline_migratable(volume) says whether an inline volume migrated to a CSI driver."""
    def pod_deleted(pod, old_pod, new_pod) -> str:
        return is_schedulable_after_pod_deleted(inline_migratable, pod, old_pod, new_pod)
    return {"CSINodeAdd": None, "AssignedPodDelete": pod_deleted, "PvcAdd": None}


def is_schedulable_after_pod_deleted(inline_migratable, pod, old_pod, new_pod) -> str:
    """A deleted pod that was on (or nominated to) a node frees a volume slot when it used a
    claim, a generic ephemeral volume or a migratable inline volume."""
    volumes = old_pod.spec.get("volumes") or []
    if not volumes or (not old_pod.node_name and not old_pod.nominated_node_name):
        return QUEUE_SKIP
    for volume in volumes:
        if (volume.get("persistentVolumeClaim") is not None
                or volume.get("ephemeral") is not None or inline_migratable(volume)):
            return QUEUE
    return QUEUE_SKIP
