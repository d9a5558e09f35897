"""NodeAffinity's QueueingHint (nodeaffinity/node_affinity.go isSchedulableAfterNodeChange)."""
from __future__ import annotations

from ...framework.queueing_hint import QUEUE, QUEUE_SKIP
from .selector import RequiredNodeAffinity


def for_node_affinity(plugin) -> dict:
    """Node/Add|UpdateNodeLabel."""
    def hint(pod, old_node, new_node) -> str:
        return is_schedulable_after_node_change(plugin.added_node_selector, pod, old_node,
                                                new_node)
    return {"NodeAdd": hint, "NodeUpdate": hint}


def _matches(matcher, node: dict) -> bool:
    meta = node.get("metadata") or {}
    return matcher.matches(meta.get("labels") or {}, meta.get("name", ""))


def is_schedulable_after_node_change(added_node_selector, pod, old_node, new_node) -> str:
    """Queue when the node matches the scheduler-enforced selector and the pod's required
    affinity now, and is new or did not match before."""
    if added_node_selector is not None and not _matches(added_node_selector, new_node):
        return QUEUE_SKIP
    required = RequiredNodeAffinity(pod.spec)
    if not _matches(required, new_node):
        return QUEUE_SKIP
    if old_node is None:
        return QUEUE
    return QUEUE_SKIP if _matches(required, old_node) else QUEUE
