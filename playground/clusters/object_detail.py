"""What the lesson views show of nodes and pods beside a run, from their manifests.

A node's local volumes (the PersistentVolumes whose required node affinity names it); a pod's
scheduling constraints: node selector, affinities, tolerations, spread constraints and the
volumes it mounts. The run view (playground.pages.describe_objects) and the workshop pages
(playground.workshops.lessons) both read them here.
"""

from __future__ import annotations

from collections.abc import Iterable


def local_volumes(pvs: Iterable[dict]) -> dict[str, list[str]]:
    """Node name -> names of the PersistentVolumes pinned to it by required node affinity."""
    out: dict[str, list[str]] = {}
    for pv in pvs:
        spec = pv.get("spec") or {}
        terms = ((spec.get("nodeAffinity") or {}).get("required") or {}).get(
            "nodeSelectorTerms") or []
        hosts = {v for t in terms for e in t.get("matchExpressions") or []
                 for v in e.get("values") or []}
        for host in sorted(hosts):
            out.setdefault(host, []).append((pv.get("metadata") or {}).get("name", ""))
    return out


def pod_constraints(spec: dict) -> dict:
    """The pod's constraints, each key present only when the pod sets it."""
    parts = {
        "nodeSelector": spec.get("nodeSelector"),
        "affinity": spec.get("affinity"),
        "tolerations": spec.get("tolerations"),
        "topologySpreadConstraints": spec.get("topologySpreadConstraints"),
        "volumes": [v.get("persistentVolumeClaim", {}).get("claimName") or v.get("name")
                    for v in spec.get("volumes") or []],
    }
    return {k: v for k, v in parts.items() if v}
