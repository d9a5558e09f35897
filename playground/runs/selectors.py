"""Reads of runs: what a user may see and drive, the stored cycles, the run row.

A user sees the runs they started, the runs on their own clusters, and the runs a shared
cluster's owner started on it; only the run's starter and the cluster's owner may drive or
delete a run. Anything a user may not see is "not found" to them.

Nothing here builds or replays the engine (that is runs.state): a read stays a read.
"""

from __future__ import annotations

from django.db.models import F, Q, QuerySet

from playground.models import CycleRecord, Run, stored_trace
from playground.runs.lease import run_busy


def runs_visible_to(user) -> QuerySet[Run]:
    if not getattr(user, "is_authenticated", False):
        return Run.objects.none()
    return Run.objects.filter(
        Q(owner=user) | Q(cluster__owner=user)
        | Q(cluster__shared=True, owner=F("cluster__owner"))
    )


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
    reads the engine state elsewhere (the run page, pages.run_view)."""
    run = Run.objects.get(pk=run_id)
    return {"run": run_summary(run), "cycles": list((run.result or {}).get("recent") or [])}


def cycle_detail(run_id: int, index: int) -> dict | None:
    row = (CycleRecord.objects.filter(run_id=run_id, index=index)
           .values_list("legacy_trace", "packed").first())
    return stored_trace(*row) if row else None
