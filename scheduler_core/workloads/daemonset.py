"""DaemonSet controller (pkg/controller/daemon): one pod on every eligible node.

A node is eligible when the pod would fit its name, its required node affinity (nodeSelector
and affinity) and its NoSchedule and NoExecute taints (NodeShouldRunDaemonPod's predicates).
A pod already on a node whose new taint is only NoSchedule keeps running; an untolerated
NoExecute taint removes it. Each pod is pinned to its node by a required node affinity term
on metadata.name (ReplaceDaemonSetPodNodeNameNodeAffinity) and gets the tolerations the
controller adds (AddOrUpdateDaemonPodTolerations); the scheduler then places it.
"""
from __future__ import annotations

import copy

from ..labels import match_node_selector_terms
from ..taints import find_untolerated_taint
from .naming import compute_hash, generate_name
from .pods import labels_of, name_of, owned_active_pods, pod_from_template

KIND = "DaemonSet"
REVISION_LABEL = "controller-revision-hash"      # apps.DefaultDaemonSetUniqueLabelKey
GENERATION_LABEL = "pod-template-generation"     # extensions.DaemonSetTemplateGenerationKey
NOT_READY = "node.kubernetes.io/not-ready"
UNREACHABLE = "node.kubernetes.io/unreachable"
DEFAULT_TOLERATIONS = (
    (NOT_READY, "NoExecute"),
    (UNREACHABLE, "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    ("node.kubernetes.io/unschedulable", "NoSchedule"),
)
NETWORK_UNAVAILABLE = "node.kubernetes.io/network-unavailable"


def add_daemon_tolerations(spec: dict) -> None:
    """AddOrUpdateDaemonPodTolerations: Exists tolerations, replacing any with the same key
    and effect (v1helper.AddOrUpdateTolerationInPodSpec)."""
    wanted = list(DEFAULT_TOLERATIONS)
    if spec.get("hostNetwork"):
        wanted.append((NETWORK_UNAVAILABLE, "NoSchedule"))
    tolerations = list(spec.get("tolerations") or [])
    for key, effect in wanted:
        new = {"key": key, "operator": "Exists", "effect": effect}
        same = [i for i, t in enumerate(tolerations)
                if t.get("key") == key and t.get("effect") == effect]
        if same:
            tolerations[same[0]] = new
        else:
            tolerations.append(new)
    spec["tolerations"] = tolerations


def pin_to_node(spec: dict, node_name: str) -> None:
    """ReplaceDaemonSetPodNodeNameNodeAffinity: the required terms become one matchFields."""
    affinity = spec.setdefault("affinity", {})
    node_affinity = affinity.setdefault("nodeAffinity", {})
    required = node_affinity.setdefault("requiredDuringSchedulingIgnoredDuringExecution", {})
    required["nodeSelectorTerms"] = [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": [node_name]}]}]


def pod_template(ds: dict) -> dict:
    """CreatePodTemplate: the template with the revision labels and daemon tolerations."""
    template = copy.deepcopy((ds.get("spec") or {}).get("template") or {})
    pod_hash = compute_hash(template, (ds.get("status") or {}).get("collisionCount"))
    add_daemon_tolerations(template.setdefault("spec", {}))
    meta = template["metadata"] = template.get("metadata") or {}  # null: an empty ObjectMeta
    generation = (ds.get("metadata") or {}).get("generation") or 1
    meta["labels"] = {**(meta.get("labels") or {}), GENERATION_LABEL: str(generation),
                      REVISION_LABEL: pod_hash}
    return template


def _fits_affinity(spec: dict, node: dict) -> bool:
    """GetRequiredNodeAffinity(pod).Match(node): nodeSelector and required terms."""
    labels = labels_of(node)
    if any(labels.get(k) != v for k, v in (spec.get("nodeSelector") or {}).items()):
        return False
    required = (((spec.get("affinity") or {}).get("nodeAffinity") or {})
                .get("requiredDuringSchedulingIgnoredDuringExecution"))
    return required is None or match_node_selector_terms(required, labels, name_of(node))


def should_run(spec: dict, node: dict) -> tuple[bool, bool]:
    """NodeShouldRunDaemonPod: (should run a new pod, should keep a running one)."""
    node_name = spec.get("nodeName")
    if (node_name and node_name != name_of(node)) or not _fits_affinity(spec, node):
        return False, False
    taints = (node.get("spec") or {}).get("taints") or []
    tolerations = spec.get("tolerations") or []
    if find_untolerated_taint(taints, tolerations,
                              lambda t: t.get("effect") in ("NoSchedule", "NoExecute")):
        no_execute = find_untolerated_taint(taints, tolerations,
                                            lambda t: t.get("effect") == "NoExecute")
        return False, no_execute is None
    return True, True


def target_node(pod: dict) -> str:
    """GetTargetNodeName: spec.nodeName, else the matchFields value of the pinning term."""
    spec = pod.get("spec") or {}
    if spec.get("nodeName"):
        return spec["nodeName"]
    required = (((spec.get("affinity") or {}).get("nodeAffinity") or {})
                .get("requiredDuringSchedulingIgnoredDuringExecution") or {})
    for term in required.get("nodeSelectorTerms") or []:
        for field in term.get("matchFields") or []:
            if field.get("key") == "metadata.name" and field.get("operator") == "In":
                return (field.get("values") or [""])[0]
    return ""


def sync(ds: dict, world) -> bool:
    template = pod_template(ds)
    by_node: dict[str, list[dict]] = {}
    for pod in owned_active_pods(ds, world):
        by_node.setdefault(target_node(pod), []).append(pod)
    changed = False
    for node in world.nodes():
        run, keep = should_run(template["spec"], node)
        pods = by_node.get(name_of(node), [])
        if run and not pods:
            pod = pod_from_template(template, ds, generate_name(world.rng, name_of(ds) + "-"),
                                    world.rng)
            pin_to_node(pod["spec"], name_of(node))
            world.create_pod(pod)
            changed = True
        elif pods and not keep:
            for pod in pods:
                world.delete_pod(pod, "node no longer eligible")
            changed = True
    return changed

