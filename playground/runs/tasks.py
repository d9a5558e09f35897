"""Celery tasks of the scheduler core: the engine's runs as background work.

Start them through ``playground.tasking.enqueue_on_commit`` so they run the same way
with a Celery worker (services mode) and inside the server process (embedded mode).

The run tasks take ids and leave the work to the run executor (``playground.run_executor``),
which never imports this module: the web layer enqueues these tasks by their registered names
(``playground.tasking.RUN_ADVANCE``...), which must not change, so that queued messages
survive a deploy.
"""

from celery import shared_task
from celery.signals import worker_ready

from playground import run_executor, runs, tasking
from playground.run_lease import TryLater, lease_seconds

# Times a redelivered run task waits for the lease of an execution that may still be alive.
MAX_LEASE_WAITS = 10


@shared_task
def ping(value):
    """Return ``value`` unchanged: proves a task can make the round trip."""
    return value


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True)
def run_advance(self, run_id, cycles=None, from_cycle=None, token=None):
    """Advance run ``run_id`` by ``cycles`` from cycle ``from_cycle`` (None: to the end).

    ``token`` is the lease ticket the request took (playground.run_lease); a task started by
    hand without one takes the lease itself or fails with "run is busy".
    """
    try:
        return run_executor.advance(run_id, cycles=cycles, from_cycle=from_cycle, token=token)
    except TryLater as later:
        if not tasking.services_mode():
            raise
        raise self.retry(countdown=later.countdown, max_retries=MAX_LEASE_WAITS) from later


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True)
def run_reset(self, run_id, token=None):
    """Back to cycle 0: delete the run's cycles, clear its counters and results."""
    try:
        return run_executor.reset(run_id, token=token)
    except TryLater as later:
        if not tasking.services_mode():
            raise
        raise self.retry(countdown=later.countdown, max_retries=MAX_LEASE_WAITS) from later


@shared_task
def run_recover():
    """Continue the runs whose worker died (their lease ran out)."""
    return runs.recover_stale_runs()


@worker_ready.connect
def _recover_when_a_worker_starts(sender=None, **kwargs):
    # Leases of a worker that just died are still running: look once they have run out.
    run_recover.apply_async(countdown=lease_seconds() + 1)
