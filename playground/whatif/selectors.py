"""Reads: the capacity plans a user may see (those of the clusters visible to them)."""
from __future__ import annotations

from django.db.models import QuerySet

from playground.clusters.selectors import clusters_visible_to
from playground.whatif.models import PlanJob


def plans_visible_to(user) -> QuerySet[PlanJob]:
    return PlanJob.objects.filter(cluster__in=clusters_visible_to(user), owner=user)


def plan_data(job: PlanJob) -> dict:
    return {"id": job.pk, "cluster": job.cluster_id, "status": job.status,
            "template": job.template, "maxNodes": job.max_nodes, "progress": job.progress,
            "result": job.result or None, "error": job.error,
            "created": job.created.isoformat()}
