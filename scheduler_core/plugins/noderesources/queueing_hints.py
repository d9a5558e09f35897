"""NodeResourcesFit's QueueingHints (noderesources/fit.go isSchedulableAfter*)."""
from __future__ import annotations

from ...framework.queueing_hint import QUEUE, QUEUE_SKIP
from ...framework.types import NodeInfo, Resource, pod_requests


def for_fit(fits) -> dict:
    """Pod/Delete|UpdatePodScaleDown and Node/Add|UpdateNodeAllocatable; fits(pod, node_info)
    is the plugin's Fits (the insufficient resources)."""
    def node_change(pod, old_node, new_node) -> str:
        return is_schedulable_after_node_change(fits, pod, old_node, new_node)
    return {"AssignedPodDelete": is_schedulable_after_pod_event,
            "AssignedPodUpdate": is_schedulable_after_pod_event,
            "NodeAdd": node_change, "NodeUpdate": node_change}


def is_schedulable_after_pod_event(pod, old_pod, new_pod) -> str:
    """A deleted pod frees what it held if it was on (or nominated to) a node; a scaled-down
    one helps when it is the pod itself or it held less of something the pod requests."""
    if new_pod is None:
        if not old_pod.node_name and not old_pod.nominated_node_name:
            return QUEUE_SKIP
        return QUEUE
    return QUEUE if _scaled_down_for(pod, old_pod, new_pod) else QUEUE_SKIP


def _scaled_down_for(pod, old_pod, new_pod) -> bool:
    """isSchedulableAfterPodScaleDown."""
    if new_pod.uid == pod.uid:
        return True
    if not new_pod.node_name:
        return False
    before, after = _requests(old_pod), _requests(new_pod)
    wanted = pod.requests
    return any(wanted.get(name) and before.get(name) > after.get(name)
               for name in wanted.names())


def _requests(pod) -> Resource:
    requests = Resource()
    for name, value in pod_requests(pod.spec).items():
        requests.set(name, value)
    return requests


def is_schedulable_after_node_change(fits, pod, old_node, new_node) -> str:
    """The pod fits the new node when empty, and an update added some of what it requests."""
    modified = NodeInfo(new_node)
    if fits(pod, modified):   # some resource is still short even on the empty node
        return QUEUE_SKIP
    if old_node is None:
        return QUEUE
    return QUEUE if _requested_resources_increased(pod, NodeInfo(old_node), modified) \
        else QUEUE_SKIP


def _requested_resources_increased(pod, original: NodeInfo, modified: NodeInfo) -> bool:
    """haveAnyRequestedResourcesIncreased."""
    before, after = original.allocatable, modified.allocatable
    if after.allowed_pod_number > before.allowed_pod_number:
        return True
    wanted = pod.requests
    return any(wanted.get(name) > 0 and after.get(name) > before.get(name)
               for name in wanted.names() if name != "pods")
