"""What the lesson views show of nodes and pods beside a run, from their manifests.

A node's local volumes (the PersistentVolumes whose required node affinity names it); a pod's
scheduling constraints: node selector, affinities, tolerations, spread constraints and the
volumes it mounts; `describe_objects` puts them together for a run's documents. The run view
(playground.runs.selectors.run_objects) and the workshop pages (playground.workshops.lessons)
both read them here.
"""

from __future__ import annotations

from collections.abc import Iterable

from scheduler_core.features import FeatureGates
from scheduler_core.framework.types import Resource
from scheduler_core.loader import load_documents
from scheduler_core.timeline.document import parse_timelines

# A pod's terminationGracePeriodSeconds when its manifest gives none (the API server's default).
DEFAULT_GRACE_PERIOD = 30.0


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


def _resources(res) -> dict:
    out = {"cpu": res.milli_cpu, "memory": res.memory}
    if res.ephemeral_storage:
        out["ephemeral-storage"] = res.ephemeral_storage
    out.update(res.scalar)
    return out


def _node(manifest: dict, volumes: dict[str, list[str]]) -> dict:
    meta, spec = manifest.get("metadata") or {}, manifest.get("spec") or {}
    alloc = Resource.from_list((manifest.get("status") or {}).get("allocatable") or {})
    return {
        "labels": meta.get("labels") or {},
        "taints": spec.get("taints") or [],
        "unschedulable": bool(spec.get("unschedulable")),
        "allocatable": _resources(alloc) | {"pods": alloc.allowed_pod_number},
        "volumes": volumes.get(meta.get("name", ""), []),
    }


def _added_nodes(cluster, volumes: dict[str, list[str]], nodes: dict) -> dict:
    """Nodes the run's timelines create (a cluster's Timeline, a step taken on a paused run):
    not among the documents' nodes, they join the engine's state while the run goes on, and
    the run view describes them from the timeline's manifest (the last one given) when they
    appear."""
    added = {}
    for step in parse_timelines(cluster):
        manifest = step.fields.get("object") or {}
        if step.action in ("Create", "Update") and manifest.get("kind") == "Node":
            name = (manifest.get("metadata") or {}).get("name", "")
            if name not in nodes:
                added[name] = _node(manifest, volumes)
    return added


def describe_objects(documents: list, features: FeatureGates) -> dict:
    """Nodes (labels, taints, allocatable, local volumes) and pods (requests, priority,
    grace, scheduling constraints) of a run (its documents were checked when stored), and
    `addedNodes`: the nodes its timelines add, described the same way. features: the run's
    release and gates, which decide the kinds and versions its documents may hold."""
    cluster = load_documents([("run", documents)], checked=True, features=features)
    volumes = local_volumes(cluster.objects.pvs.values())
    nodes = {(m.get("metadata") or {}).get("name", ""): _node(m, volumes) for m in cluster.nodes}
    pods = {}
    for pi in cluster.pod_infos():
        grace = pi.spec.get("terminationGracePeriodSeconds")
        pods[pi.key] = {
            "requests": _resources(pi.requests),
            "priority": pi.priority,
            "node": pi.node_name or None,
            "grace": DEFAULT_GRACE_PERIOD if grace is None else float(grace),
            "gates": pi.scheduling_gates,
            **pod_constraints(pi.spec),
        }
    return {"nodes": nodes, "pods": pods, "addedNodes": _added_nodes(cluster, volumes, nodes)}
