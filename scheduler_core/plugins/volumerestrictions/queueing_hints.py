"""VolumeRestrictions' QueueingHints (volumerestrictions/volume_restrictions.go)."""
from __future__ import annotations

from ...framework.queueing_hint import QUEUE, QUEUE_SKIP
from ...framework.types import NodeInfo


def for_volume_restrictions(satisfy_volume_conflicts) -> dict:
    """Pod/Delete and PersistentVolumeClaim/Add with hints; Node/Add always queues.
    satisfy_volume_conflicts(pod, node_info) is the plugin's conflict check."""
    def pod_deleted(pod, old_pod, new_pod) -> str:
        return is_schedulable_after_pod_deleted(satisfy_volume_conflicts, pod, old_pod, new_pod)
    return {"AssignedPodDelete": pod_deleted, "NodeAdd": None,
            "PvcAdd": is_schedulable_after_pvc_added}


def _claim_names(pod) -> set[str]:
    return {(v.get("persistentVolumeClaim") or {}).get("claimName")
            for v in pod.spec.get("volumes") or [] if v.get("persistentVolumeClaim")}


def is_schedulable_after_pod_deleted(satisfy_volume_conflicts, pod, old_pod, new_pod) -> str:
    """A deleted pod of the namespace whose volume conflicted with the pod's, or that used one
    of its claims (a ReadWriteOncePod claim is released)."""
    if old_pod.namespace != pod.namespace:
        return QUEUE_SKIP
    node_info = NodeInfo()
    node_info.add_pod(old_pod)
    if not satisfy_volume_conflicts(pod, node_info):
        return QUEUE
    return QUEUE if _claim_names(pod) & _claim_names(old_pod) else QUEUE_SKIP


def is_schedulable_after_pvc_added(pod, old_pvc, new_pvc) -> str:
    """The claim created is one the pod uses."""
    meta = new_pvc.get("metadata") or {}
    if (meta.get("namespace") or "default") != pod.namespace:
        return QUEUE_SKIP
    return QUEUE if meta.get("name") in _claim_names(pod) else QUEUE_SKIP
