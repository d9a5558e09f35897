"""InterPodAffinity's QueueingHints (interpodaffinity/plugin.go isSchedulableAfter*)."""
from __future__ import annotations

from ...framework.queueing_hint import QUEUE, QUEUE_SKIP
from .terms import parsed_affinity


def for_inter_pod_affinity(plugin) -> dict:
    """Pod/Add|UpdatePodLabel|Delete and Node/Add|UpdateNodeLabel|UpdateNodeTaint."""
    objects = getattr(plugin.handle, "objects", None)

    def pod_change(pod, old_pod, new_pod) -> str:
        return is_schedulable_after_pod_change(objects, pod, old_pod, new_pod)
    return {"AssignedPodAdd": pod_change, "AssignedPodUpdate": pod_change,
            "AssignedPodDelete": pod_change,
            "NodeAdd": is_schedulable_after_node_change,
            "NodeUpdate": is_schedulable_after_node_change}


def _matches_all(terms, other, objects) -> bool:
    """podMatchesAllAffinityTerms: False without terms."""
    if not terms:
        return False
    ns_labels = objects.namespace_labels(other.namespace) if objects is not None else {}
    return all(term.matches(other, ns_labels) for term in terms)


def is_schedulable_after_pod_change(objects, pod, old_pod, new_pod) -> str:
    """An assigned pod now matches all the pod's required affinity terms, or a deleted or
    relabelled one no longer matches all its anti-affinity terms."""
    if (new_pod is not None and not new_pod.node_name) or \
            (old_pod is not None and not old_pod.node_name):
        return QUEUE_SKIP
    parsed = parsed_affinity(pod)
    terms, anti = parsed.required_affinity, parsed.required_anti_affinity
    if new_pod is not None and old_pod is not None:
        if not _matches_all(terms, old_pod, objects) and _matches_all(terms, new_pod, objects):
            return QUEUE
        if _matches_all(anti, old_pod, objects) and not _matches_all(anti, new_pod, objects):
            return QUEUE
        return QUEUE_SKIP
    if new_pod is not None:
        return QUEUE if _matches_all(terms, new_pod, objects) else QUEUE_SKIP
    return QUEUE if _matches_all(anti, old_pod, objects) else QUEUE_SKIP


def is_schedulable_after_node_change(pod, old_node, new_node) -> str:
    """The node carries the topology key of one of the pod's required (anti-)affinity terms."""
    labels = (new_node.get("metadata") or {}).get("labels") or {}
    parsed = parsed_affinity(pod)
    for term in list(parsed.required_affinity) + list(parsed.required_anti_affinity):
        if term.topology_key in labels:
            return QUEUE
    return QUEUE_SKIP
