"""Writes for timelines: a cluster's timelines, and steps taken on a paused run.

Every write is checked by the engine first (scheduler_core.timeline.document): a bad step is a
400 naming the step's index and field, and nothing is stored.
"""
from __future__ import annotations

import copy

from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction

from playground.clusters.models import Cluster
from playground.clusters.services import cluster_manifests
from playground.errors import Conflict, InvalidInput
from playground.runs.lease import lease_live, lock_row
from playground.runs.models import Run
from playground.runs.selectors import run_writable_by
from playground.runs.sessions import sessions
from playground.timelines.models import Timeline
from scheduler_core.errors import InputError
from scheduler_core.loader import load_documents
from scheduler_core.timeline.document import API_VERSION, KIND, parse_timelines

RUN_ACTIONS_NAME = "run-actions"   # the Timeline a run's paused-run steps are recorded in
MAX_STEPS = 1000


def _timeline_document(name: str, steps) -> dict:
    return {"apiVersion": API_VERSION, "kind": KIND, "metadata": {"name": name},
            "spec": {"steps": steps}}


def _check(documents: list[dict], field: str) -> None:
    """Load the documents as a run would and check every timeline step among them."""
    try:
        parse_timelines(load_documents([("cluster", copy.deepcopy(documents))]))
    except InputError as exc:
        raise InvalidInput({field: [str(exc)]}) from exc


def _check_steps_shape(name: str, steps) -> None:
    if not isinstance(name, str) or not name.strip():
        raise InvalidInput({"name": ["This field may not be blank."]})
    if len(name) > 200:
        raise InvalidInput({"name": ["Ensure this field has no more than 200 characters."]})
    if not isinstance(steps, list):
        raise InvalidInput({"steps": ["must be a list of steps"]})
    if len(steps) > MAX_STEPS:
        raise InvalidInput({"steps": [f"at most {MAX_STEPS} steps"]})


def timeline_save(*, cluster: Cluster, name: str, steps: list,
                  instance: Timeline | None = None) -> Timeline:
    """Create (or, with `instance`, replace) a timeline of the cluster."""
    _check_steps_shape(name, steps)
    others = Timeline.objects.filter(cluster=cluster)
    if instance is not None:
        others = others.exclude(pk=instance.pk)
    documents = list(cluster_manifests(cluster)) + [t.document() for t in others]
    _check(documents + [_timeline_document(name, steps)], "steps")
    timeline = instance or Timeline(cluster=cluster)
    timeline.name, timeline.steps = name, steps
    try:
        with transaction.atomic():
            timeline.save()
    except IntegrityError as exc:
        raise InvalidInput({"name": [f'a timeline named "{name}" exists already']}) from exc
    return timeline


def timeline_delete(*, timeline: Timeline) -> None:
    timeline.delete()


def run_action(*, run: Run, user, step: dict) -> Run:
    """Record a step taken on a paused run and apply it where the run is.

    The step goes into the run's own "run-actions" Timeline with afterCycle = the cycles done,
    so a replay applies it at the same point; the cached session is dropped and rebuilt.
    """
    if not run_writable_by(run, user):
        raise PermissionDenied("only the run's starter and the cluster's owner may drive it")
    if not isinstance(step, dict):
        raise InvalidInput({"step": ["must be a step (a mapping)"]})
    with transaction.atomic():
        locked = lock_row(run.pk, nowait=False)
        if locked.status not in (Run.CREATED, Run.PAUSED) or lease_live(locked):
            raise Conflict({"detail": [f"run is {locked.status}: pause it to change its cluster"]})
        step = {**step, "at": locked.virtual_time, "afterCycle": locked.cycle_count}
        documents = list(locked.documents)
        index = next((i for i, d in enumerate(documents) if d.get("kind") == KIND
                      and (d.get("metadata") or {}).get("name") == RUN_ACTIONS_NAME), None)
        if index is None:
            documents.append(_timeline_document(RUN_ACTIONS_NAME, [step]))
        else:
            old = documents[index]
            documents[index] = _timeline_document(RUN_ACTIONS_NAME,
                                                  old["spec"]["steps"] + [step])
        _check(documents, "step")
        locked.documents = documents  # saved with the row (their own, RunDocuments)
        locked.save(update_fields=["updated"])
    sessions.discard(run.pk)
    run.refresh_from_db()
    return run
