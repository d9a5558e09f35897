"""The database in services mode really is PostgreSQL, and its connections are kept."""

import threading
import time

import psycopg
import pytest
from django.db import connection, connections, transaction
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from playground import tasking
from playground.runs import executor
from playground.runs.lease import lock_row
from playground.runs.models import Run
from playground.runs.services import run_create, run_step
from tests.helpers import import_cluster, make_user
from tests.services_mode.test_runs_services import RUN_TIMEOUT, wait_for

pytestmark = [pytest.mark.services]


@pytest.mark.django_db
def test_the_database_is_postgresql():
    assert connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        cursor.execute("SELECT version()")
        (version,) = cursor.fetchone()
    assert version.startswith("PostgreSQL")


@pytest.mark.django_db
def test_it_uses_psycopg_3():
    import psycopg

    assert connection.Database is psycopg


def database_sessions() -> int:
    """The connections made to the test database so far (PostgreSQL counts them)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute("SELECT sessions FROM pg_stat_database WHERE datname = current_database()")
        return cursor.fetchone()[0]


@pytest.mark.django_db(transaction=True)
def test_a_workers_run_steps_reuse_its_pooled_connections(workers):
    """Celery's Django fixup closes a worker's connections before and after every task. From
    the pool that hands them back; without it each step opened two new PostgreSQL backends
    (the task's and its lease heartbeat's) before it could start."""
    alice = make_user("alice")
    run = run_create(cluster=import_cluster(alice), seed=1, owner=alice)
    workers.start()
    api = APIClient()
    api.force_login(alice)

    def step(cycles: int) -> None:
        assert api.post(f"/api/runs/{run.pk}/step/", {"cycles": 1},
                        format="json").status_code == 202
        wait_for(lambda: Run.objects.filter(pk=run.pk, cycle_count=cycles, status=Run.PAUSED)
                 .exists(), RUN_TIMEOUT, f"cycle {cycles}", workers.logs)

    step(1)  # the worker's pool opens
    time.sleep(1)  # a backend that closed has counted itself
    before = database_sessions()
    for cycles in range(2, 7):
        step(cycles)
    time.sleep(1)
    assert database_sessions() - before <= 1


def synchronous_commit() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        return cursor.fetchone()[0]


@pytest.mark.django_db(transaction=True)
def test_a_run_progress_transaction_alone_commits_without_waiting_for_the_disk():
    alice = make_user("alice")
    run = run_create(cluster=import_cluster(alice), seed=1, owner=alice)
    with transaction.atomic():
        lock_row(run.pk, nowait=False, progress=True)
        assert synchronous_commit() == "off"
    assert synchronous_commit() == "on"
    with transaction.atomic():  # a user's own change to the run (run_action...) waits
        lock_row(run.pk, nowait=False)
        assert synchronous_commit() == "on"


@pytest.mark.django_db(transaction=True)
def test_a_steps_three_commits_do_not_wait_for_the_disk(monkeypatch):
    """The request's ticket, the task's claim and its chunk: 12-35 ms each for the disk."""
    alice = make_user("alice")
    run = run_create(cluster=import_cluster(alice), seed=1, owner=alice)
    enqueued = []
    monkeypatch.setattr(tasking, "enqueue_on_commit",
                        lambda task, using=None, **kwargs: enqueued.append(kwargs))
    relaxed = "SET LOCAL synchronous_commit TO OFF"
    with CaptureQueriesContext(connection) as ticket:
        run_step(run=run, user=alice, cycles=1)
    with CaptureQueriesContext(connection) as task:
        executor.advance(**enqueued[0])
    assert [q["sql"] for q in ticket].count(relaxed) == 1
    assert [q["sql"] for q in task].count(relaxed) == 2
    assert Run.objects.filter(pk=run.pk, cycle_count=1, status=Run.PAUSED).exists()


@pytest.mark.django_db(transaction=True)
def test_a_pool_whose_connections_the_server_dropped_hands_out_a_new_one_at_once():
    """psycopg_pool alone checks one idle connection per attempt, 0, 1, 2, 4... s apart: with
    eight dead ones the next query waited 30 s and failed."""
    barrier = threading.Barrier(8)

    def hold_one() -> None:  # eight connections at once: the pool grows to eight
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
                barrier.wait(30)
        finally:
            connection.close()

    threads = [threading.Thread(target=hold_one) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    db = connection.settings_dict
    with psycopg.connect(dbname=db["NAME"], user=db["USER"], host=db["HOST"] or "127.0.0.1",
                         port=db["PORT"] or 5432, autocommit=True) as outsider:
        dropped = outsider.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()").fetchone()[0]
    assert dropped >= 8
    connections.close_all()  # back to the pool, which has not noticed yet
    start = time.monotonic()
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    assert time.monotonic() - start < 5
