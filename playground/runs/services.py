"""The run service functions: create a run, start, step, pause, resume and reset it.

The API and the websocket call them. Each checks the user, takes the run's lease
(playground.runs.lease) and enqueues a run task through playground.tasking, by the task's
registered name; the task (playground.runs.tasks) then calls playground.runs.executor.
`recover_stale_runs` (the run_recover task) hands the runs of a worker that died to a new
advance task.
"""

from __future__ import annotations

import copy
import json
import logging

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone

from playground import tasking
from playground.clusters.models import Cluster
from playground.clusters.services import cluster_manifests
from playground.engine import default_config, run_gates, scheduler_registry
from playground.errors import Conflict, InvalidInput
from playground.profiles.models import SchedulerProfile
from playground.quotas import check_run_quota, check_storage_quota, lock_owner
from playground.runs.executor import ADVANCE_FROM
from playground.runs.lease import RunBusy, grant, lease_live, lock_row, release
from playground.runs.models import Run
from playground.runs.selectors import run_writable_by
from scheduler_core.config import parse_configuration
from scheduler_core.errors import InputError
from scheduler_core.loader import load_documents
from scheduler_core.timeline.document import parse_timelines

logger = logging.getLogger(__name__)


class RunStateConflict(Conflict):
    """The run's status does not allow the action (e.g. stepping a finished run)."""

    def __init__(self, message: str):
        super().__init__({"detail": [message]})


def run_create(*, cluster: Cluster, seed: int, name: str = "", owner=None,
               release: str | None = None, feature_gates: str | dict | None = None) -> Run:
    """A run over a snapshot of the cluster's objects and profile (what reset restores),
    following the kube-scheduler `release` (None: the newest) with `feature_gates` set on
    top of its defaults (kube-scheduler's "A=true,B=false", or a map)."""
    features = run_gates(release, feature_gates)
    # The cluster's timelines go with its objects (scheduler_core.timeline reads them).
    documents = list(cluster_manifests(cluster)) + [t.document() for t in cluster.timelines.all()]
    profile = SchedulerProfile.objects.filter(cluster=cluster).first()
    config = profile.config if profile else default_config()
    try:
        parse_timelines(load_documents([("cluster", copy.deepcopy(documents))],
                                       features=features))
        parse_configuration(config, scheduler_registry(features), features=features)
    except InputError as exc:
        raise InvalidInput({"cluster": [str(exc)]}) from exc
    owner = owner or cluster.owner
    with transaction.atomic():
        lock_owner(owner)
        check_storage_quota(owner=owner, adding=len(json.dumps(documents)))
        return Run.objects.create(cluster=cluster, owner=owner, name=name, seed=seed,
                                  release=features.release,
                                  feature_gates=dict(features.overrides), config=config,
                                  documents=documents)


def _check_writable(run: Run, user) -> None:
    if not run_writable_by(run, user):
        raise PermissionDenied("only the run's starter and the cluster's owner may drive it")


def _refresh(run: Run) -> Run:
    run.refresh_from_db()
    return run


def _enqueue_advance(run: Run, token: str, cycles: int | None) -> None:
    tasking.enqueue_on_commit(tasking.task_named(tasking.RUN_ADVANCE), run_id=run.pk,
                              cycles=cycles, from_cycle=run.cycle_count, token=token)


def _ticket(run: Run, user, *, cycles: int | None) -> Run:
    """Take the run's lock for a new advance task and enqueue it after commit; the user's
    run quotas are counted and the run marked running in one transaction, under their lock."""
    _check_writable(run, user)
    with transaction.atomic():
        lock_owner(user)
        locked = lock_row(run.pk, nowait=True, progress=True)
        if lease_live(locked):
            raise RunBusy()
        if locked.status not in ADVANCE_FROM:
            raise RunStateConflict(f"run is {locked.status}: reset it to run it again")
        check_run_quota(owner=user, run=locked)
        token = grant(locked)
        locked.pause_requested = False
        locked.target_cycle = None if cycles is None else locked.cycle_count + cycles
        locked.status = Run.RUNNING
        locked.error = ""
        locked.save(update_fields=["lock_token", "lock_expires", "pause_requested",
                                   "target_cycle", "status", "error", "updated"])
        _enqueue_advance(locked, token, cycles)
    return _refresh(run)


def run_start(*, run: Run, user) -> Run:
    """Run to the end (from where the run is: created, paused, or left by a dead worker)."""
    return _ticket(run, user, cycles=None)


def run_resume(*, run: Run, user) -> Run:
    return _ticket(run, user, cycles=None)


def run_step(*, run: Run, user, cycles: int = 1) -> Run:
    if cycles is None or int(cycles) < 1:
        raise InvalidInput({"cycles": ["Ensure this value is greater than or equal to 1."]})
    return _ticket(run, user, cycles=int(cycles))


def run_pause(*, run: Run, user) -> Run:
    """Ask the working task to stop after its current chunk; a no-op when nothing runs."""
    _check_writable(run, user)
    with transaction.atomic():
        locked = lock_row(run.pk, nowait=False)
        if locked.status == Run.RUNNING:
            if lease_live(locked):
                locked.pause_requested = True
                locked.save(update_fields=["pause_requested", "updated"])
            else:  # its worker died: nothing will read the flag
                locked.status = Run.PAUSED
                locked.save(update_fields=["status", "updated", *release(locked)])
    return _refresh(run)


def run_reset(*, run: Run, user) -> Run:
    """Back to cycle 0: the task deletes the cycles and clears counters and results."""
    _check_writable(run, user)
    with transaction.atomic():
        locked = lock_row(run.pk, nowait=True)
        if lease_live(locked):
            raise RunBusy("run is busy: pause it first")
        token = grant(locked)
        locked.save(update_fields=["lock_token", "lock_expires", "updated"])
        tasking.enqueue_on_commit(tasking.task_named(tasking.RUN_RESET), run_id=locked.pk,
                                  token=token)
    return _refresh(run)


def recover_stale_runs() -> list[int]:
    """Runs left `running` by a worker that died (lease expired): enqueue their continuation."""
    recovered = []
    now = timezone.now()
    stale = Run.objects.filter(status=Run.RUNNING).exclude(lock_expires__gt=now)
    for run_id in stale.values_list("pk", flat=True):
        with transaction.atomic():
            run = lock_row(run_id, nowait=False)
            if run.status != Run.RUNNING or lease_live(run, now):
                continue
            token = grant(run, now)
            cycles = None if run.target_cycle is None else max(
                run.target_cycle - run.cycle_count, 0)
            run.save(update_fields=["lock_token", "lock_expires", "updated"])
            _enqueue_advance(run, token, cycles)
            recovered.append(run_id)
    if recovered:
        logger.warning("recovered runs left running by a dead worker: %s", recovered)
    return recovered


def recover_after_restart() -> list[int]:
    """Embedded mode, when the server starts: every run still `running` belonged to the
    process that stopped (one process runs every task), whatever its lease says, so each is
    handed to a new advance task of this one."""
    Run.objects.filter(status=Run.RUNNING).update(lock_expires=None)
    return recover_stale_runs()
