"""NodeUnschedulable's QueueingHints (nodeunschedulable/node_unschedulable.go)."""
from __future__ import annotations

from ...framework.queueing_hint import QUEUE, QUEUE_SKIP


def for_node_unschedulable(tolerates) -> dict:
    """Node/Add|UpdateNodeTaint and Pod/UpdatePodToleration of the pod itself; tolerates(pod)
    says whether it tolerates the unschedulable taint."""
    def toleration_change(pod, old_pod, new_pod) -> str:
        return is_schedulable_after_pod_toleration_change(tolerates, pod, old_pod, new_pod)
    return {"NodeAdd": is_schedulable_after_node_change,
            "NodeUpdate": is_schedulable_after_node_change,
            "UnscheduledPodUpdate": toleration_change}


def _schedulable(node: dict | None) -> bool:
    return node is not None and not (node.get("spec") or {}).get("unschedulable")


def is_schedulable_after_node_change(pod, old_node, new_node) -> str:
    """Queue when the node was not schedulable (or is new) and now is."""
    return QUEUE if not _schedulable(old_node) and _schedulable(new_node) else QUEUE_SKIP


def is_schedulable_after_pod_toleration_change(tolerates, pod, old_pod, new_pod) -> str:
    """The pod itself now tolerates node.kubernetes.io/unschedulable:NoSchedule."""
    if new_pod.uid == pod.uid and not tolerates(old_pod) and tolerates(new_pod):
        return QUEUE
    return QUEUE_SKIP
