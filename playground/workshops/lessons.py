"""A lesson's text and objects as the workshop pages show them beside the run.

The text is the lesson's section of docs/LESSONS.md (found by the cluster's name, which
load_demo takes from the fixture's file name), or else the cluster's description (the
fixture's `# description:` header). The objects are what the lesson is about: node labels
that matter (zone, custom ones), taints and volumes; pod requests, affinities, tolerations,
spread constraints and volumes.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from django.conf import settings

from playground.clusters.object_detail import local_volumes, pod_constraints
from playground.models import Cluster, Node, PersistentVolume, PersistentVolumeClaim, Pod

LESSONS_DOC = Path(settings.BASE_DIR) / "docs" / "LESSONS.md"
HEADING = re.compile(r"^## \d+\. (?P<name>[\w.-]+):.*$", re.MULTILINE)
MAX_TEXT = 6000
# Where a lesson's section in docs/LESSONS.md starts giving the outcomes away.
SPOILERS = re.compile(r"^\*\*(What to look at|Try this)", re.MULTILINE)
MAX_OBJECTS = 200
# Labels every node has, which say nothing about the lesson.
BORING_LABELS = ("kubernetes.io/hostname", "kubernetes.io/os", "kubernetes.io/arch",
                 "beta.kubernetes.io/")


@functools.cache
def _sections(mtime: float) -> dict[str, str]:
    text = LESSONS_DOC.read_text(encoding="utf-8")
    matches = list(HEADING.finditer(text))
    out = {}
    for match, following in zip(matches, [*matches[1:], None]):
        end = following.start() if following else len(text)
        out[match.group("name")] = text[match.start():end].strip()
    return out


def lesson_text(cluster: Cluster, *, spoilers: bool) -> str:
    """The lesson's notes; without spoilers (for attendees) they stop where the guide starts
    telling what each cycle does, which is what the room is asked to predict."""
    try:
        sections = _sections(LESSONS_DOC.stat().st_mtime)
    except OSError:
        sections = {}
    base = re.sub(r"(\.yaml)?( \(copy\).*)?$", "", cluster.name)
    text = sections.get(base) or cluster.description or ""
    if not spoilers:
        text = SPOILERS.split(text, maxsplit=1)[0].rstrip()
    return text[:MAX_TEXT]


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
