"""StatefulSet controller (pkg/controller/statefulset): pods with stable ordinal names.

Pod `<set>-<ordinal>` (ordinals from spec.ordinals.start), labelled with
controller-revision-hash (`<set>-<hash of the template>`), statefulset.kubernetes.io/pod-name
and apps.kubernetes.io/pod-index, hostname = its name and subdomain = spec.serviceName. Each
volumeClaimTemplate becomes PVC `<template>-<set>-<ordinal>` (labelled with the selector's
matchLabels), mounted as the volume of the template's name.

OrderedReady (the default) creates ordinal n only once every lower ordinal is Running, and
removes the highest ordinal first, one at a time; Parallel creates and removes all at once.
A deleted pod is recreated under the same name once the old one is gone.
"""
from __future__ import annotations

import copy

from .naming import compute_hash, is_owned_by
from .pods import (
    is_running,
    is_terminating,
    labels_of,
    namespace_of,
    pod_from_template,
    replicas_of,
)

KIND = "StatefulSet"
REVISION_LABEL = "controller-revision-hash"
POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"
PARALLEL = "Parallel"


def ordinals(sts: dict) -> range:
    start = int(((sts.get("spec") or {}).get("ordinals") or {}).get("start") or 0)
    return range(start, start + replicas_of(sts))


def claim_name(template: dict, sts: dict, ordinal: int) -> str:
    return f"{template['metadata']['name']}-{sts['metadata']['name']}-{ordinal}"


def _claims(sts: dict, ordinal: int, world) -> dict[str, str]:
    """Create the pod's missing PVCs; volume name -> claim name."""
    spec = sts.get("spec") or {}
    match_labels = (spec.get("selector") or {}).get("matchLabels") or {}
    out = {}
    for template in spec.get("volumeClaimTemplates") or []:
        name = claim_name(template, sts, ordinal)
        out[template["metadata"]["name"]] = name
        if world.get_pvc(namespace_of(sts), name) is None:
            world.create_pvc({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                              "metadata": {"name": name, "namespace": namespace_of(sts),
                                           "labels": dict(match_labels)},
                              "spec": copy.deepcopy(template.get("spec") or {})})
    return out


def new_pod(sts: dict, ordinal: int, world) -> dict:
    spec = sts.get("spec") or {}
    name = f"{sts['metadata']['name']}-{ordinal}"
    revision = f"{sts['metadata']['name']}-{compute_hash(spec.get('template') or {})}"
    pod = pod_from_template(spec.get("template") or {}, sts, name, world.rng, {
        REVISION_LABEL: revision, POD_NAME_LABEL: name, POD_INDEX_LABEL: str(ordinal)})
    pod["spec"]["hostname"] = name
    if spec.get("serviceName"):
        pod["spec"]["subdomain"] = spec["serviceName"]
    claims = _claims(sts, ordinal, world)
    volumes = [v for v in pod["spec"].get("volumes") or [] if v.get("name") not in claims]
    volumes += [{"name": vol, "persistentVolumeClaim": {"claimName": claim}}
                for vol, claim in claims.items()]
    if volumes:
        pod["spec"]["volumes"] = volumes
    return pod


def _ordinal(pod: dict) -> int:
    return int(labels_of(pod).get(POD_INDEX_LABEL) or pod["metadata"]["name"].rsplit("-", 1)[1])


def sync(sts: dict, world) -> bool:
    parallel = (sts.get("spec") or {}).get("podManagementPolicy") == PARALLEL
    # Terminating pods still hold their names: they count until they are gone.
    pods = {p["metadata"]["name"]: p for p in world.pods() if is_owned_by(p, sts)}
    changed = False
    for ordinal in ordinals(sts):
        pod = pods.get(f"{sts['metadata']['name']}-{ordinal}")
        if pod is None:
            world.create_pod(new_pod(sts, ordinal, world))
            changed = True
            if not parallel:
                break
        elif not parallel and not is_running(pod):
            break
    wanted = set(ordinals(sts))
    extra = sorted((p for p in pods.values() if _ordinal(p) not in wanted
                    and not is_terminating(p)), key=_ordinal, reverse=True)
    for pod in extra[: len(extra) if parallel else 1]:
        world.delete_pod(pod, "scaled down")
        changed = True
    return changed
