"""Deployment controller (pkg/controller/deployment): a ReplicaSet per pod template.

The new ReplicaSet is `<deployment>-<pod-template-hash>`; the hash is controller.ComputeHash
of the template with status.collisionCount, and becomes the pod-template-hash label of the
ReplicaSet, its selector and its pods. An existing owned ReplicaSet whose template equals the
Deployment's but for that label is the new one (FindNewReplicaSet's EqualIgnoreHash), which is
how a `kubectl get -o yaml` export keeps its ReplicaSets and pods. When the template changes,
older ReplicaSets go to zero replicas at once: the end state of a rollout, without its steps.
"""
from __future__ import annotations

import copy

from . import replicaset
from .naming import compute_hash, is_owned_by, owner_reference
from .pods import namespace_of, replicas_of

KIND = "Deployment"
HASH_LABEL = "pod-template-hash"          # apps.DefaultDeploymentUniqueLabelKey
REVISION_ANNOTATION = "deployment.kubernetes.io/revision"


def _semantic(value):
    """What apiequality.Semantic.DeepEqual compares: a null, an empty map and an empty list
    are all Go's zero value (`metadata: null` decodes to an empty ObjectMeta)."""
    if isinstance(value, dict):
        out = {k: _semantic(v) for k, v in value.items()}
        return {k: v for k, v in out.items() if v not in (None, {}, [])}
    if isinstance(value, list):
        return [_semantic(v) for v in value]
    return value


def _without_hash(template: dict) -> dict:
    template = copy.deepcopy(template or {})
    labels = (template.get("metadata") or {}).get("labels")
    if labels:
        labels.pop(HASH_LABEL, None)
    return _semantic(template)


def equal_ignore_hash(a: dict, b: dict) -> bool:
    return _without_hash(a) == _without_hash(b)


def new_replica_set(d: dict, pod_hash: str, revision: int) -> dict:
    spec = d.get("spec") or {}
    template = copy.deepcopy(spec.get("template") or {})
    labels = {**((template.get("metadata") or {}).get("labels") or {}), HASH_LABEL: pod_hash}
    template["metadata"] = {**(template.get("metadata") or {}), "labels": labels}
    selector = copy.deepcopy(spec.get("selector") or {})
    selector["matchLabels"] = {**(selector.get("matchLabels") or {}), HASH_LABEL: pod_hash}
    rs_spec = {"replicas": replicas_of(d), "selector": selector, "template": template}
    if spec.get("minReadySeconds"):
        rs_spec["minReadySeconds"] = spec["minReadySeconds"]
    return {"apiVersion": replicaset.API_VERSION, "kind": replicaset.KIND,
            "metadata": {"name": f"{d['metadata']['name']}-{pod_hash}",
                         "namespace": namespace_of(d), "labels": labels,
                         "annotations": {REVISION_ANNOTATION: str(revision)},
                         "ownerReferences": [owner_reference(d)]},
            "spec": rs_spec}


def sync(d: dict, world) -> bool:
    spec = d.get("spec") or {}
    owned = [rs for rs in world.workloads(replicaset.KIND) if is_owned_by(rs, d)]
    new = next((rs for rs in owned if equal_ignore_hash(rs["spec"].get("template"),
                                                         spec.get("template"))), None)
    changed = False
    if new is None:
        pod_hash = compute_hash(spec.get("template") or {},
                                (d.get("status") or {}).get("collisionCount"))
        new = new_replica_set(d, pod_hash, len(owned) + 1)
        world.create_workload(new)
        changed = True
    for rs in owned:
        want = replicas_of(d) if rs is new else 0
        if replicas_of(rs) != want:
            rs["spec"]["replicas"] = want
            changed = True
    return changed
