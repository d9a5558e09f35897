"""Reads: the capacity plans and sweeps a user may see (their own, of the clusters visible to
them)."""
from __future__ import annotations

from django.db.models import QuerySet

from playground.clusters.selectors import clusters_visible_to
from playground.whatif.models import PlanJob, Sweep, SweepVariant


def plans_visible_to(user) -> QuerySet[PlanJob]:
    return PlanJob.objects.filter(cluster__in=clusters_visible_to(user), owner=user)


def plan_data(job: PlanJob) -> dict:
    return {"id": job.pk, "cluster": job.cluster_id, "status": job.status,
            "template": job.template, "maxNodes": job.max_nodes, "progress": job.progress,
            "result": job.result or None, "error": job.error,
            "created": job.created.isoformat()}


def sweeps_visible_to(user) -> QuerySet[Sweep]:
    return Sweep.objects.filter(cluster__in=clusters_visible_to(user), owner=user)


def sweep_data(sweep: Sweep, *, variants: bool = True) -> dict:
    """The sweep, its variants counted by status and (variants) each with its measures."""
    rows = list(sweep.variants.all())
    counts = {s: 0 for s, _ in SweepVariant.STATUS_CHOICES}
    for row in rows:
        counts[row.status] += 1
    data = {"id": sweep.pk, "cluster": sweep.cluster_id, "status": sweep.status,
            "grid": sweep.grid, "seed": sweep.seed, "counts": counts, "total": len(rows),
            "created": sweep.created.isoformat(),
            "finished": sweep.finished.isoformat() if sweep.finished else None}
    if variants:
        data["variants"] = [variant_data(v) for v in rows]
    return data


def variant_data(v: SweepVariant) -> dict:
    return {"id": v.pk, "index": v.index, "label": v.label, "params": v.params,
            "release": v.release, "feature_gates": v.params.get("featureGates", ""),
            "config": v.config, "status": v.status, "metrics": v.metrics or None,
            "error": v.error, "warnings": v.warnings, "seconds": v.seconds,
            "worker": v.worker}
