"""NodeName's QueueingHint (nodename/node_name.go isSchedulableAfterNodeAdd)."""
from __future__ import annotations

from ...framework.queueing_hint import QUEUE, QUEUE_SKIP


def for_node_name(plugin) -> dict:
    """Node/Add."""
    return {"NodeAdd": is_schedulable_after_node_add}


def is_schedulable_after_node_add(pod, old_node, new_node) -> str:
    """Queue when the added node is the one the pod names (or it names none)."""
    name = (new_node.get("metadata") or {}).get("name", "")
    wanted = pod.spec.get("nodeName") or ""
    return QUEUE if not wanted or wanted == name else QUEUE_SKIP
