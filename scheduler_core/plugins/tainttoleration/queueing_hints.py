"""TaintToleration's QueueingHints (tainttoleration/taint_toleration.go)."""
from __future__ import annotations

from ...framework.queueing_hint import QUEUE, QUEUE_SKIP
from ...taints import does_not_schedule, find_untolerated_taint


def for_taint_toleration(plugin) -> dict:
    """Node/Add|UpdateNodeTaint, and Pod/UpdatePodToleration of the pod itself."""
    return {"NodeAdd": is_schedulable_after_node_change,
            "NodeUpdate": is_schedulable_after_node_change,
            "UnscheduledPodUpdate": is_schedulable_after_pod_toleration_change}


def _taints(node: dict) -> list:
    return (node.get("spec") or {}).get("taints") or []


def _untolerated(node: dict, pod) -> bool:
    return find_untolerated_taint(_taints(node), pod.tolerations, does_not_schedule) is not None


def is_schedulable_after_node_change(pod, old_node, new_node) -> str:
    """Queue when the node had a NoSchedule/NoExecute taint the pod did not tolerate (or is
    new) and now has none."""
    was_untolerated = old_node is None or _untolerated(old_node, pod)
    return QUEUE if was_untolerated and not _untolerated(new_node, pod) else QUEUE_SKIP


def is_schedulable_after_pod_toleration_change(pod, old_pod, new_pod) -> str:
    """The unschedulable pod itself got a new toleration."""
    return QUEUE if new_pod.uid == pod.uid else QUEUE_SKIP
