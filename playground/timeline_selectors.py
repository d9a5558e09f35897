"""Reads for timelines: a cluster's timelines, and what a run's timeline recorded."""
from __future__ import annotations

import copy

from django.db.models import QuerySet

from playground.models import Cluster, Run, Timeline
from playground.services import out_of_tree_plugins
from scheduler_core.session import RunSession


def timelines_of(cluster: Cluster) -> QuerySet[Timeline]:
    return Timeline.objects.filter(cluster=cluster)


def timeline_data(timeline: Timeline) -> dict:
    return {"id": timeline.pk, "name": timeline.name, "steps": timeline.steps,
            "updated": timeline.updated.isoformat()}


def run_timeline(run: Run) -> dict:
    """The run replayed to where it is with the timeline recorder on: the steps as they ran,
    pod events, queue moves with their events, samples of the nodes over virtual time and
    each cycle's plugin timings. The engine is deterministic, so the replay is the run."""
    session = RunSession(copy.deepcopy(run.sources()), run.config or None, seed=run.seed,
                         out_of_tree=out_of_tree_plugins(), record=True)
    session.advance(run.cycle_count)
    return session.scheduler.life.to_json()
