"""Reads for timelines: a cluster's timelines (what a run's timeline recorded replays the
engine: timelines.recording)."""
from __future__ import annotations

from django.db.models import QuerySet

from playground.clusters.models import Cluster
from playground.timelines.models import Timeline


def timelines_of(cluster: Cluster) -> QuerySet[Timeline]:
    return Timeline.objects.filter(cluster=cluster)


def timeline_data(timeline: Timeline) -> dict:
    return {"id": timeline.pk, "name": timeline.name, "steps": timeline.steps,
            "updated": timeline.updated.isoformat()}
