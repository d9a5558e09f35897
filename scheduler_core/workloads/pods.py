"""A pod made from a workload's template, and the pod states controllers count by."""
from __future__ import annotations

import copy

from .naming import is_owned_by, new_uid, owner_reference

TERMINAL_PHASES = ("Succeeded", "Failed")
# How long a pod runs once bound, in virtual seconds; then it Succeeds (see docs/TIMELINE.md).
RUN_SECONDS_ANNOTATION = "playground.k8s.local/run-seconds"


def namespace_of(obj: dict) -> str:
    return (obj.get("metadata") or {}).get("namespace") or "default"


def name_of(obj: dict) -> str:
    return obj["metadata"]["name"]


def labels_of(obj: dict) -> dict:
    return (obj.get("metadata") or {}).get("labels") or {}


def is_terminal(pod: dict) -> bool:
    return (pod.get("status") or {}).get("phase") in TERMINAL_PHASES


def is_terminating(pod: dict) -> bool:
    return bool((pod.get("metadata") or {}).get("deletionTimestamp"))


def is_active(pod: dict) -> bool:
    """controller.IsPodActive: neither finished nor being deleted."""
    return not is_terminal(pod) and not is_terminating(pod)


def is_running(pod: dict) -> bool:
    """Bound counts as Running and Ready: the playground has no kubelet to wait for."""
    return is_active(pod) and bool((pod.get("spec") or {}).get("nodeName"))


def ensure_uid(obj: dict, rng) -> str:
    meta = obj.setdefault("metadata", {})
    if not meta.get("uid"):
        meta["uid"] = new_uid(rng)
    return meta["uid"]


def pod_from_template(template: dict, owner: dict, name: str, rng,
                      extra_labels: dict | None = None) -> dict:
    """controller.GetPodFromTemplate: the template's metadata and spec, owned by `owner`."""
    template = copy.deepcopy(template or {})
    tmeta = template.get("metadata") or {}
    meta = {"name": name, "namespace": namespace_of(owner), "uid": new_uid(rng),
            "labels": {**(tmeta.get("labels") or {}), **(extra_labels or {})},
            "ownerReferences": [owner_reference(owner)]}
    if tmeta.get("annotations"):
        meta["annotations"] = dict(tmeta["annotations"])
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": template.get("spec") or {}, "status": {"phase": "Pending"}}


def replicas_of(obj: dict, default: int = 1) -> int:
    value = (obj.get("spec") or {}).get("replicas")
    return default if value is None else int(value)


def owned_active_pods(owner: dict, world) -> list[dict]:
    return [p for p in world.pods() if is_active(p) and is_owned_by(p, owner)]
