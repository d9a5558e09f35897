"""The run's lock: a lease in the run row, so that one task at a time works on a run.

The lease is `lock_token` and `lock_expires`, taken under `SELECT ... FOR UPDATE NOWAIT` on
PostgreSQL (SQLite serializes writers by itself) and renewed after every chunk and, in
services mode, by a heartbeat while the task works (`heartbeat`). A request that finds a live
lease gets RunBusy ("run is busy", HTTP 409). A lease that nobody renewed in
PLAYGROUND_RUN_LEASE_SECONDS belongs to a dead worker: the next request, or the recovery every
worker runs every third of a lease (playground.runs.tasks), takes it over.

A request takes a ticket (`grant`); the task it enqueues claims the lease with that ticket
(`claim`) and holds it as "<ticket>:<execution>", which tells a redelivered message from the
execution that is still working.
"""

from __future__ import annotations

import logging
import threading
import uuid
from contextlib import contextmanager
from datetime import timedelta

from django.conf import settings
from django.db import OperationalError, connection, transaction
from django.utils import timezone

from playground.errors import Conflict, sqlstate
from playground.runs.models import Run
from playground.tasking import services_mode

logger = logging.getLogger(__name__)

# A worker that dies is replaced once its lease has run out (recovery looks every third of
# it, playground.runs.tasks): short, since a heartbeat renews it while the task works.
DEFAULT_LEASE_SECONDS = 6


class RunBusy(Conflict):
    """Another task works on the run (HTTP 409, an error frame on the socket)."""

    def __init__(self, message: str = "run is busy"):
        super().__init__({"detail": [message]})


class TryLater(Exception):
    """A redelivered task whose earlier execution may still be alive (its lease is live)."""

    def __init__(self, countdown: float):
        super().__init__(f"the run's lease is live for {countdown:.1f}s more")
        self.countdown = countdown


def lease_seconds() -> float:
    return float(getattr(settings, "PLAYGROUND_RUN_LEASE_SECONDS", DEFAULT_LEASE_SECONDS))


def lease_live(run: Run, now=None) -> bool:
    now = now or timezone.now()
    return bool(run.lock_token) and run.lock_expires is not None and run.lock_expires > now


def run_busy(run: Run) -> bool:
    """Whether a task holds the run's lock (for the API and the snapshot)."""
    return lease_live(run)


# PostgreSQL's SQLSTATE for NOWAIT finding the row locked: the only error that means "busy".
LOCK_NOT_AVAILABLE = "55P03"


def lock_row(run_id: int, *, nowait: bool, progress: bool = False) -> Run:
    """The run row under SELECT FOR UPDATE (a no-op on SQLite); must be inside atomic().

    Another transaction holding the row is RunBusy; any other database error (a dropped
    connection above all) is not, and goes up as it is: the caller retries or recovers.

    progress=True: the transaction writes nothing but the run's lease and progress, which a
    replay recomputes, so its commit does not wait for the WAL to reach the disk (PostgreSQL's
    synchronous_commit off, for this transaction alone). A step's path has three such commits
    (the request's ticket, the task's claim, the chunk), each waiting 12 to 35 ms for the disk
    here. A crash of the database server can lose the last fraction of a second of them, never
    part of one: the run is then where an earlier chunk left it, its lease runs out and
    recovery replays the rest, to the same cycles and bindings (the engine is deterministic).
    """
    if progress and connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL synchronous_commit TO OFF")
    try:
        return Run.objects.select_for_update(nowait=nowait).get(pk=run_id)
    except OperationalError as exc:
        if sqlstate(exc) == LOCK_NOT_AVAILABLE:
            raise RunBusy() from exc
        raise


def grant(run: Run, now=None) -> str:
    """Give the locked row a new ticket and a full lease; the ticket (the caller saves)."""
    token = uuid.uuid4().hex
    run.lock_token = token
    run.lock_expires = (now or timezone.now()) + timedelta(seconds=lease_seconds())
    return token


def release(run: Run) -> list[str]:
    """Drop the lease and the task's orders; the fields to save."""
    run.lock_token, run.lock_expires = "", None
    run.pause_requested, run.target_cycle = False, None
    return ["lock_token", "lock_expires", "pause_requested", "target_cycle"]


def renew(run_id: int, holder: str) -> None:
    Run.objects.filter(pk=run_id, lock_token=holder).update(
        lock_expires=timezone.now() + timedelta(seconds=lease_seconds()))


@contextmanager
def heartbeat(run_id: int, holder: str):
    """Renew the lease every quarter of it while the block runs (services mode), so that a
    long cycle or replay keeps a short lease. Embedded mode needs none: its worker is the
    server process, whose restart hands its runs on (runs.services.recover_after_restart)."""
    if not services_mode():
        yield
        return
    stop = threading.Event()

    def beat():
        try:
            while not stop.wait(lease_seconds() / 4):
                try:
                    renew(run_id, holder)
                except Exception:  # a dropped connection: the task's own retry deals with it
                    logger.warning("run %s: lease heartbeat failed", run_id, exc_info=True)
                    connection.close()
        finally:
            connection.close()

    thread = threading.Thread(target=beat, name=f"lease-{run_id}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def claim(run_id: int, token: str | None, *, allow: tuple[str, ...],
          status: str | None = None) -> tuple[Run, str] | None:
    """The lock for this execution: (run, holder) or None when the task has nothing to do;
    `status`, when given, is set on the claimed run (a task started by hand on a created run
    is running as if a request had started it: otherwise it stopped after its first chunk).

    token None (a task started by hand): take a free lock or raise RunBusy. A token the run
    still carries: ours. "<token>:<execution>" means the same task ran before: if that
    execution's lease is live it may still be working (TryLater), else it died and we take
    over. Any other token: the task was superseded (reset, a later request): skip it.
    """
    with transaction.atomic():
        try:
            run = lock_row(run_id, nowait=False, progress=True)
        except Run.DoesNotExist:
            return None
        now = timezone.now()
        if token is None:
            if lease_live(run, now):
                raise RunBusy()
            token = uuid.uuid4().hex
        elif run.lock_token.startswith(token + ":"):
            if lease_live(run, now):
                raise TryLater((run.lock_expires - now).total_seconds() + 1)
            logger.warning("run %s: taking over from a worker that stopped renewing", run_id)
        elif run.lock_token != token:
            logger.info("run %s: task with a superseded ticket skipped", run_id)
            return None
        if run.status not in allow:
            run.save(update_fields=["updated", *release(run)])
            return None
        holder = f"{token}:{uuid.uuid4().hex[:12]}"
        run.lock_token = holder
        run.lock_expires = now + timedelta(seconds=lease_seconds())
        run.status = status or run.status
        run.save(update_fields=["lock_token", "lock_expires", "status", "updated"])
        return run, holder
