"""ReplicaSet controller (pkg/controller/replicaset): keep spec.replicas active pods.

Pods are named generateName `<replicaset>-` plus five random characters and carry a
controller owner reference to the ReplicaSet. Scaling down deletes, as getPodsToDelete ranks
them, unscheduled pods first, then the most recently created.
"""
from __future__ import annotations

from .naming import generate_name
from .pods import owned_active_pods, pod_from_template, replicas_of

KIND = "ReplicaSet"
API_VERSION = "apps/v1"


def deletion_order(pods: list[dict]) -> list[dict]:
    """Unassigned before assigned, then newer before older (ActivePodsWithRanks, simplified)."""
    ranked = list(enumerate(pods))
    ranked.sort(key=lambda item: (bool((item[1].get("spec") or {}).get("nodeName")), -item[0]))
    return [p for _, p in ranked]


def sync(rs: dict, world) -> bool:
    """Create or delete pods towards spec.replicas; True when something changed."""
    owned = owned_active_pods(rs, world)
    diff = replicas_of(rs) - len(owned)
    template = rs["spec"].get("template") or {}
    for _ in range(max(diff, 0)):
        name = generate_name(world.rng, rs["metadata"]["name"] + "-")
        world.create_pod(pod_from_template(template, rs, name, world.rng))
    for pod in deletion_order(owned)[:max(-diff, 0)]:
        world.delete_pod(pod, "scaled down")
    return diff != 0
