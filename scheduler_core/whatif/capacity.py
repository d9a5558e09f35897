"""How many more copies of a pod fit: kubernetes-sigs/cluster-capacity's question.

As cluster-capacity does, copies of the pod are created one after another on the cluster as
the scheduler left it, each scheduled by the scheduler itself, until one does not bind at
its first attempt; that copy's FailedScheduling message is the reason the count stops.
Preemption the failing copy may start is not counted: cluster-capacity reports what fits
beside the pods already running.

Pods that differ only in name (the replicas of a workload) are one shape and are measured
once, on its first pod.
"""
from __future__ import annotations

import copy
import json

from ..scheduler import Scheduler
from ..timeline.informer import Informer

DEFAULT_MAX_COPIES = 1000
DEFAULT_MAX_SHAPES = 20
COPY_SUFFIX = "-capacity-"
# Fields the API server gives each pod of its own; a copy gets a new name and none of these.
IDENTITY_FIELDS = ("generateName", "uid", "resourceVersion", "creationTimestamp")


def shape_key(obj: dict) -> str:
    """What scheduling sees of a pod, without what tells its replicas apart."""
    meta = obj.get("metadata") or {}
    spec = {k: v for k, v in (obj.get("spec") or {}).items() if k not in ("nodeName",)}
    return json.dumps([meta.get("namespace") or "default", meta.get("labels") or {}, spec],
                      sort_keys=True, default=str)


def shapes(pods: list[dict], pending: set[str]) -> dict[str, int]:
    """{first pod of each shape among the pending pods: how many pending pods share it}."""
    firsts: dict[str, str] = {}
    counts: dict[str, int] = {}
    for obj in pods:
        meta = obj.get("metadata") or {}
        key = f"{meta.get('namespace') or 'default'}/{meta.get('name')}"
        if key not in pending:
            continue
        first = firsts.setdefault(shape_key(obj), key)
        counts[first] = counts.get(first, 0) + 1
    return counts


def _copy_of(obj: dict, index: int) -> dict:
    pod = copy.deepcopy(obj)
    meta = pod["metadata"]
    for name in IDENTITY_FIELDS:
        meta.pop(name, None)
    meta["name"] = f"{obj['metadata']['name']}{COPY_SUFFIX}{index}"
    pod.get("spec", {}).pop("nodeName", None)
    pod.pop("status", None)
    return pod


def more_copies(scheduler: Scheduler, pod_key: str, max_copies: int) -> dict:
    """Copies of `pod_key` added to a finished run until one does not bind at once."""
    source = next(p.obj for p in scheduler.pods if p.key == pod_key)
    informer = scheduler.life.informer if scheduler.life is not None else Informer(scheduler)
    for fitted in range(max_copies):
        pi = informer.add_pod(_copy_of(source, fitted + 1))
        scheduler.step()
        if not scheduler.bindings.get(pi.key):
            reason = scheduler.pending_reasons().get(pi.key, "pending")
            return {"pod": pod_key, "moreFit": fitted, "limited": False, "stoppedBy": reason}
    return {"pod": pod_key, "moreFit": max_copies, "limited": True, "stoppedBy": None}


def capacity(build, pods: list[dict], pending: set[str], *, max_copies: int = DEFAULT_MAX_COPIES,
             max_shapes: int = DEFAULT_MAX_SHAPES, finished=None) -> dict:
    """For each shape of pending pod (the first `max_shapes`), how many more copies fit on the
    cluster `build()` returns run to the end (a fresh one per shape: copies change it).
    `finished`: that cluster already run to the end, used for the first shape."""
    counts = shapes(pods, pending)
    rows = []
    for pod_key in list(counts)[:max_shapes]:
        scheduler, finished = finished, None
        if scheduler is None:
            scheduler = build()
            scheduler.run()
        rows.append({**more_copies(scheduler, pod_key, max_copies), "shapeOf": counts[pod_key]})
    return {"shapes": rows, "notMeasured": list(counts)[max_shapes:]}
