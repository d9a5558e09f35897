"""The cluster at the end of a run as kube-scheduler-simulator exports it (GET /api/v1/export).

The JSON is the simulator's ResourcesForSnap (simulator/snapshot/snapshot.go): the lists
`pods`, `nodes`, `pvs`, `pvcs`, `storageClasses`, `priorityClasses` (without the two system
classes, which the simulator leaves out), `namespaces`, and `schedulerConfig`; its items carry
no apiVersion or kind. Every pod the API server holds at the end is there, those the
controllers made included, as the simulator's scheduler left it:
- a bound pod has its spec.nodeName, no schedulingGates (the gates were gone for it to be
  scheduled), and the PodScheduled condition True;
- a pod that failed has PodScheduled False with reason Unschedulable (SchedulerError for an
  error) and the FailedScheduling message, and its nominatedNodeName when preemption gave it
  one;
- every pod that went through a cycle carries the simulator's annotations of its last attempt
  and the result-history of all of them (scheduler_core.simulator_annotations).

The file loads back as a cluster (simulator_export.py): the same input, seed, release and
feature gates give the same bindings. A run with feature gates set adds `featureGates` (the
--feature-gates text), which the load warns of when the loading run's differ.
"""
from __future__ import annotations

import copy

from . import simulator_annotations as notes
from .admission import DEFAULT_SCHEDULER_NAME, SYSTEM_PRIORITY_CLASSES
from .scheduler import Scheduler

SCHEDULED = "PodScheduled"


def export_resources(scheduler: Scheduler, cycles: list[dict]) -> dict:
    """ResourcesForSnap of the scheduler's cluster; cycles: the contract's cycles of the run."""
    objects = scheduler.cluster.objects
    cycles_by_pod = _by_pod(cycles)
    pods = [_pod(scheduler, pi, cycles_by_pod) for pi in _live_pods(scheduler)]
    # The run's configuration as given; without profiles, the default one by name (the
    # simulator's scheduler, like kube-scheduler, defaults the rest), as the same thing said.
    config = copy.deepcopy(scheduler.config.raw or {})
    if not config.get("profiles"):
        config["profiles"] = [{"schedulerName": DEFAULT_SCHEDULER_NAME}]
    out = {
        "pods": pods,
        "nodes": [_bare(n) for n in scheduler.cluster.nodes],
        "pvs": [_bare(pv) for pv in objects.pvs.values()],
        "pvcs": [_bare(pvc) for pvc in objects.pvcs.values()],
        "storageClasses": [_bare(sc) for sc in objects.storage_classes.values()],
        "priorityClasses": [_bare(pc) for name, pc in objects.priority_classes.items()
                            if name not in SYSTEM_PRIORITY_CLASSES],
        "schedulerConfig": config,
        "namespaces": _namespaces(scheduler, pods),
    }
    if scheduler.features.overrides:
        # Not a list of the simulator's (its import ignores it): the --feature-gates the run
        # set, which loading the file warns of when they are not the loading run's
        # (simulator_export.exported_gates_note).
        out["featureGates"] = scheduler.features.flag()
    return out


def _by_pod(cycles: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for cycle in cycles:
        out.setdefault(cycle["pod"], []).append(cycle)
    return out


def _live_pods(scheduler: Scheduler):
    """Every pod the API server still has: a deleted pod whose deletion is over is gone."""
    seen = set()
    for pi in scheduler.pods:
        if pi.key in seen:
            continue
        if pi.deletion_time is not None and pi.uid not in scheduler.cache.pods:
            continue
        seen.add(pi.key)
        yield pi


def _bare(obj: dict) -> dict:
    """An item of the simulator's lists: no apiVersion, no kind."""
    return {k: copy.deepcopy(v) for k, v in obj.items() if k not in ("apiVersion", "kind")}


def _pod(scheduler: Scheduler, pi, cycles_by_pod: dict[str, list[dict]]) -> dict:
    pod = _bare(pi.obj)
    meta = pod.setdefault("metadata", {})
    meta.setdefault("namespace", pi.namespace)
    meta.setdefault("uid", str(pi.uid))
    spec = pod.setdefault("spec", {})
    node = scheduler.bindings.get(pi.key) or pi.node_name
    attempts = cycles_by_pod.get(pi.key) or []
    if node:
        spec["nodeName"] = node
        spec.pop("schedulingGates", None)
    if attempts:
        cache_capable = {e.get("urlPrefix", ""): bool(e.get("nodeCacheCapable"))
                         for e in scheduler.config.extenders}
        each = [notes.cycle_annotations(c, cache_capable) for c in attempts]
        meta["annotations"] = {**(meta.get("annotations") or {}), **each[-1],
                               notes.RESULT_HISTORY: notes.result_history(each)}
        _set_condition(pod, attempts[-1], node)
    nominated = scheduler.queue.nominated.get(pi.uid) if not node else None
    if nominated:
        pod.setdefault("status", {})["nominatedNodeName"] = nominated
    return pod


def _set_condition(pod: dict, last: dict, node: str | None) -> None:
    """The PodScheduled condition kube-scheduler writes after the attempt."""
    if node:
        condition = {"type": SCHEDULED, "status": "True"}
    else:
        reason = "SchedulerError" if last.get("outcome") == "Error" else "Unschedulable"
        condition = {"type": SCHEDULED, "status": "False", "reason": reason,
                     "message": last.get("message") or ""}
    status = pod.setdefault("status", {})
    others = [c for c in status.get("conditions") or [] if c.get("type") != SCHEDULED]
    status["conditions"] = others + [condition]
    status.setdefault("phase", "Pending")


def _namespaces(scheduler: Scheduler, pods: list[dict]) -> list[dict]:
    """The Namespace objects, and one for each namespace used without one (the simulator's
    import creates namespaces before what lives in them)."""
    given = {name: _bare(ns) for name, ns in scheduler.cluster.objects.namespaces.items()}
    used = [p["metadata"]["namespace"] for p in pods]
    used += [pvc.get("metadata", {}).get("namespace") or "default"
             for pvc in scheduler.cluster.objects.pvcs.values()]
    for name in used:
        given.setdefault(name, {"metadata": {"name": name}})
    return list(given.values())
