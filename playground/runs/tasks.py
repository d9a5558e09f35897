"""The run's Celery tasks: the engine's runs as background work.

Start them through ``playground.tasking.enqueue_on_commit`` so they run the same way
with a Celery worker (services mode) and inside the server process (embedded mode).

The run tasks take ids and leave the work to the run executor (``playground.runs.executor``),
which never imports this module: the web layer enqueues these tasks by their registered names
(``playground.tasking.RUN_ADVANCE``...). Those names are the ones the tasks had when they
lived in ``scheduler_core/tasks.py`` and are given explicitly, so that messages queued before
the move (or before any later one) still find their task.
"""

import logging
import threading
import time

from celery import shared_task
from celery.signals import worker_ready
from django.db import close_old_connections, connection

from playground import tasking
from playground.runs import executor, services
from playground.runs.lease import TryLater, lease_seconds
from playground.tasking import PING, RUN_ADVANCE, RUN_RECOVER, RUN_RESET

logger = logging.getLogger(__name__)

# Times a redelivered run task waits for the lease of an execution that may still be alive.
MAX_LEASE_WAITS = 10


@shared_task(name=PING)
def ping(value):
    """Return ``value`` unchanged: proves a task can make the round trip."""
    return value


@shared_task(name=RUN_ADVANCE, bind=True, acks_late=True, reject_on_worker_lost=True)
def run_advance(self, run_id, cycles=None, from_cycle=None, token=None):
    """Advance run ``run_id`` by ``cycles`` from cycle ``from_cycle`` (None: to the end).

    ``token`` is the lease ticket the request took (playground.runs.lease); a task started by
    hand without one takes the lease itself or fails with "run is busy".
    """
    try:
        return executor.advance(run_id, cycles=cycles, from_cycle=from_cycle, token=token)
    except TryLater as later:
        if not tasking.services_mode():
            raise
        raise self.retry(countdown=later.countdown, max_retries=MAX_LEASE_WAITS) from later


@shared_task(name=RUN_RESET, bind=True, acks_late=True, reject_on_worker_lost=True)
def run_reset(self, run_id, token=None):
    """Back to cycle 0: delete the run's cycles, clear its counters and results."""
    try:
        return executor.reset(run_id, token=token)
    except TryLater as later:
        if not tasking.services_mode():
            raise
        raise self.retry(countdown=later.countdown, max_retries=MAX_LEASE_WAITS) from later


@shared_task(name=RUN_RECOVER)
def run_recover():
    """Continue the runs whose worker died (their lease ran out)."""
    return services.recover_stale_runs()


@worker_ready.connect
def _recover_while_the_worker_lives(sender=None, **kwargs):
    """Look for the runs of dead workers every third of a lease, from every worker: a run
    whose worker died goes on elsewhere within a lease and a third, whether or not a worker
    is started in its place. (The dead worker's unacknowledged message is redelivered too,
    later; it then carries a superseded ticket and does nothing.)"""
    threading.Thread(target=_recovery_loop, name="run-recovery", daemon=True).start()


def _recovery_loop() -> None:
    while True:
        time.sleep(lease_seconds() / 3)
        try:
            services.recover_stale_runs()
        except Exception:  # the database is away: the next round tries again
            logger.warning("run recovery round failed", exc_info=True)
            connection.close()
        finally:
            close_old_connections()  # kept while usable (playground.celery)
