"""PodTopologySpread's QueueingHints; the functions themselves are the plugin's methods
(podtopologyspread/plugin.go), since they need its default constraints."""
from __future__ import annotations


def for_pod_topology_spread(plugin) -> dict:
    """Pod/Add|UpdatePodLabel|Delete (and the pod's own toleration update) and
    Node/Add|Delete|UpdateNodeLabel|UpdateNodeTaint."""
    pod_change, node_change = (plugin.is_schedulable_after_pod_change,
                               plugin.is_schedulable_after_node_change)
    return {"AssignedPodAdd": pod_change, "AssignedPodUpdate": pod_change,
            "AssignedPodDelete": pod_change, "UnscheduledPodUpdate": pod_change,
            "NodeAdd": node_change, "NodeUpdate": node_change, "NodeDelete": node_change}
