"""A lesson's text and objects as the workshop pages show them beside the run.

The text is the lesson's notes, fixtures/<name>.md (playground.workshops.lesson_notes; found
by the cluster's name, which load_demo takes from the fixture's file name), or else the
cluster's description (the fixture's `# description:` header). The objects are what the
lesson is about: node labels that matter (zone, custom ones), taints and volumes; pod
requests, affinities, tolerations, spread constraints and volumes.
"""

from __future__ import annotations

import re

from playground.clusters.models import Cluster, Node, PersistentVolume, PersistentVolumeClaim, Pod
from playground.clusters.object_detail import local_volumes, pod_constraints
from playground.workshops.lesson_notes import Notes, notes

MAX_TEXT = 6000
MAX_OBJECTS = 200
# Labels every node has, which say nothing about the lesson.
BORING_LABELS = ("kubernetes.io/hostname", "kubernetes.io/os", "kubernetes.io/arch",
                 "beta.kubernetes.io/")


def _notes(cluster: Cluster) -> Notes | None:
    """The notes of the lesson the cluster was loaded from (or is a copy of)."""
    return notes(re.sub(r"(\.yaml)?( \(copy\).*)?$", "", cluster.name))


def lesson_text(cluster: Cluster, *, spoilers: bool) -> str:
    """The lesson's notes; without spoilers (for attendees) they stop where the guide starts
    telling what each cycle does, which is what the room is asked to predict."""
    found = _notes(cluster)
    if found is None:
        return (cluster.description or "")[:MAX_TEXT]
    return (found.section() if spoilers else found.attendee_section())[:MAX_TEXT]


def lesson_question(cluster: Cluster, point: str) -> str:
    """The lesson's own question text at `point`, "" if it has none."""
    found = _notes(cluster)
    return found.questions.get(point, "") if found else ""


def _labels(labels: dict) -> dict:
    return {k: v for k, v in (labels or {}).items() if not k.startswith(BORING_LABELS)}


def _node(manifest: dict) -> dict:
    meta, spec = manifest.get("metadata") or {}, manifest.get("spec") or {}
    return {"name": meta.get("name"), "labels": _labels(meta.get("labels")),
            "taints": spec.get("taints") or [], "unschedulable": bool(spec.get("unschedulable"))}


def _pod(row: Pod) -> dict:
    spec = row.manifest.get("spec") or {}
    requests = {}
    for container in spec.get("containers") or []:
        for name, value in ((container.get("resources") or {}).get("requests") or {}).items():
            requests.setdefault(name, []).append(str(value))
    return {"name": row.key, "node": row.node_name or None, "priority": row.priority,
            "requests": {k: " + ".join(v) for k, v in requests.items()},
            **pod_constraints(spec)}


def lesson_objects(cluster: Cluster) -> dict:
    nodes = [_node(n.manifest) for n in Node.objects.filter(cluster=cluster)[:MAX_OBJECTS]]
    volumes = local_volumes(pv.manifest for pv in PersistentVolume.objects.filter(
        cluster=cluster))
    for node in nodes:
        node["volumes"] = volumes.get(node["name"], [])
    claims = [{"name": c.key, "storageClass": (c.manifest.get("spec") or {}).get(
        "storageClassName"), "volume": (c.manifest.get("spec") or {}).get("volumeName")}
        for c in PersistentVolumeClaim.objects.filter(cluster=cluster)[:MAX_OBJECTS]]
    pods = [_pod(p) for p in Pod.objects.filter(cluster=cluster)[:MAX_OBJECTS]]
    return {"nodes": nodes, "pods": pods, "claims": claims,
            "nodeCount": Node.objects.filter(cluster=cluster).count()}
