"""Reads of runs: what a user may see and drive, the stored cycles, the run row.

A user sees the runs they started, the runs on their own clusters, and the runs a shared
cluster's owner started on it; only the run's starter and the cluster's owner may drive or
delete a run. Anything a user may not see is "not found" to them, and so is what an app
withholds from them for a while (playground.withholding: a workshop's open question).

Also what the run page reads beside the socket: the run's objects described, its cycles in a
few fields, two runs of one cluster side by side. Nothing here builds or replays the engine
(that is runs.state): a read stays a read.
"""

from __future__ import annotations

from django.db.models import F, Q, QuerySet

from playground.clusters.object_detail import describe_objects
from playground.errors import InvalidInput
from playground.profiles.selectors import expand_profiles, profile_label
from playground.runs.lease import run_busy
from playground.runs.memo import documents_key, objects_memo
from playground.runs.models import CycleRecord, Run, stored_trace
from playground.withholding import withheld


def runs_visible_to(user) -> QuerySet[Run]:
    if not getattr(user, "is_authenticated", False):
        return Run.objects.none()
    runs = Run.objects.filter(
        Q(owner=user) | Q(cluster__owner=user)
        | Q(cluster__shared=True, owner=F("cluster__owner"))
    )
    return withheld(user, runs, "run")


def run_writable_by(run: Run, user) -> bool:
    return getattr(user, "is_authenticated", False) and user.pk in (
        run.owner_id, run.cluster.owner_id)


def cycles_of(run: Run, *, pod: str | None = None, outcome: str | None = None,
              node: str | None = None) -> QuerySet[CycleRecord]:
    cycles = CycleRecord.objects.filter(run=run)
    if pod:
        cycles = cycles.filter(pod=pod)
    if outcome:
        cycles = cycles.filter(outcome=outcome)
    if node:
        cycles = cycles.filter(node=node)
    return cycles.order_by("index")


def run_summary(run: Run) -> dict:
    """The run row for the socket, with the REST API's field names, and whether it is busy."""
    return {"id": run.pk, "cluster": run.cluster_id, "name": run.name, "seed": run.seed,
            "status": run.status, "virtual_time": run.virtual_time,
            "cycle_count": run.cycle_count, "pods_bound": run.pods_bound, "error": run.error,
            "busy": run_busy(run)}


def row_snapshot(run_id: int) -> dict:
    """The run row and its last cycles, without the engine: a snapshot for a client that
    reads the engine state elsewhere (the run page, runs.api.RunViewView)."""
    run = Run.objects.get(pk=run_id)
    return {"run": run_summary(run), "cycles": list((run.result or {}).get("recent") or [])}


def cycle_detail(run_id: int, index: int) -> dict | None:
    row = (CycleRecord.objects.filter(run_id=run_id, index=index)
           .values_list("legacy_trace", "packed").first())
    return stored_trace(*row) if row else None


def run_objects(run: Run) -> dict:
    """The run's described objects and Score weights (InputError: documents it cannot read)."""
    # A copy of the memo's dict: the weights below are added to this response only.
    objects = dict(objects_memo.get(documents_key(run),
                                    lambda: describe_objects(run.documents, run.features)))
    # Score weights as the framework runs them, so the Score table can say "×1" for a plugin
    # whose scores were all 0 (the trace's arithmetic cannot show its weight then).
    expanded = expand_profiles(run.config)
    objects["weights"] = {p["schedulerName"]: p["weights"] for p in expanded.get("profiles", [])}
    return objects


def cycle_rows(run: Run | int, start: int = 0, end: int | None = None) -> list:
    """The stored cycles from `start` up to `end` (None: all) as [index, time, pod, outcome,
    node, preemption or None]: what the history slider and "why pending" walk, and what a
    stream that missed messages refills its gap with."""
    cycles = CycleRecord.objects.filter(run=run, index__gte=start).order_by("index")
    if end is not None:
        cycles = cycles.filter(index__lt=end)
    # Only the few cycles that preempted are read whole.
    preempting = {index: stored_trace(legacy, packed)["preemption"]
                  for index, legacy, packed in cycles.filter(preempted=True).values_list(
                      "index", "legacy_trace", "packed")}
    rows = cycles.values_list("index", "time", "pod", "outcome", "node")
    return [[*r, preempting.get(r[0])] for r in rows]


def _run_usage(objects: dict, bindings: dict) -> dict:
    """Each node's cpu, memory and pod count as [requested, allocatable] under `bindings`."""
    usage = {name: {key: [0, node["allocatable"].get(key, 0)] for key in ("cpu", "memory", "pods")}
             for name, node in objects["nodes"].items()}
    for pod, node in bindings.items():
        if node in usage:
            requests = objects["pods"].get(pod, {}).get("requests", {})
            usage[node]["cpu"][0] += requests.get("cpu", 0)
            usage[node]["memory"][0] += requests.get("memory", 0)
            usage[node]["pods"][0] += 1
    return usage


def _run_side(run: Run) -> dict:
    """A stored run where it stands: its bindings, why the others wait, the nodes' usage."""
    objects = describe_objects(run.documents, run.features)
    bindings = {key: pod["node"] for key, pod in objects["pods"].items()}
    bindings.update(run.results().get("bindings") or {})
    waiting = [pod for pod, node in bindings.items() if not node]
    # The last message of each waiting pod's cycles: later rows overwrite earlier ones.
    pending = dict(CycleRecord.objects.filter(run=run, pod__in=waiting).exclude(message="")
                   .order_by("index").values_list("pod", "message"))
    return {"bindings": bindings, "pending": pending, "usage": _run_usage(objects, bindings),
            "cycles": run.cycle_count, "time": run.virtual_time,
            "run": {"id": run.pk, "name": run.name or f"run {run.pk}", "status": run.status,
                    "profile": profile_label(run.config), "release": run.release,
                    "feature_gates": run.gates_flag}}


def compare_runs(a: Run, b: Run) -> dict:
    """Two stored runs of one cluster, each where it stands; InvalidInput for runs of two
    clusters (InputError: documents that the loader cannot read)."""
    if a.cluster_id != b.cluster_id:
        raise InvalidInput({"detail": [f"run {a.pk} and run {b.pk} are of different clusters; "
                                       "compare two runs of one cluster"]})
    return {"a": _run_side(a), "b": _run_side(b)}
