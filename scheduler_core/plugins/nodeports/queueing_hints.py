"""NodePorts' QueueingHints (nodeports/node_ports.go)."""
from __future__ import annotations

from ...framework.queueing_hint import QUEUE, QUEUE_SKIP


def for_node_ports(fits_ports) -> dict:
    """Pod/Delete with a hint; Node/Add always queues (ports are immutable in a pod).
    fits_ports(wanted, used) is the plugin's port check."""
    def pod_deleted(pod, old_pod, new_pod) -> str:
        return is_schedulable_after_pod_deleted(fits_ports, pod, old_pod, new_pod)
    return {"AssignedPodDelete": pod_deleted, "NodeAdd": None}


def is_schedulable_after_pod_deleted(fits_ports, pod, old_pod, new_pod) -> str:
    """Only a deleted pod that was on (or nominated to) a node and held one of the host
    ports the pod wants can make room for it."""
    if not old_pod.node_name and not old_pod.nominated_node_name:
        return QUEUE_SKIP
    if not old_pod.host_ports:
        return QUEUE_SKIP
    in_use: dict = {}
    for ip, protocol, port in old_pod.host_ports:
        in_use.setdefault((protocol, port), []).append(ip)
    return QUEUE_SKIP if fits_ports(pod.host_ports, in_use) else QUEUE
