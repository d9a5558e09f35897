"""Faults in services mode (issue 29): parallel starts against the run quota, the database
connection of a working run dropped, a worker killed while another one lives."""

from __future__ import annotations

import signal
import socket
import threading
import time

import pytest
from django.db import connection, connections
from rest_framework.test import APIClient

from playground.engine import out_of_tree_plugins
from playground.runs.export import run_bindings
from playground.runs.models import CycleRecord, Run
from playground.runs.services import run_create
from scheduler_core.simulate import simulate
from tests.helpers import FIXTURES, big_cluster_yaml, import_cluster, make_user
from tests.services_mode.test_runs_services import RUN_TIMEOUT, wait_for

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

FIXTURE, SEED = "scale-500.yaml", 1


def undisturbed():
    return simulate([str(FIXTURES / FIXTURE)], seed=SEED, observe=False,
                    out_of_tree=out_of_tree_plugins()).scheduler


def cycles_of(run: Run) -> int:
    return Run.objects.filter(pk=run.pk).values_list("cycle_count", flat=True).get()


def assert_ends_as_undisturbed(run: Run, expected, logs) -> None:
    wait_for(lambda: Run.objects.get(pk=run.pk).status != Run.RUNNING, RUN_TIMEOUT,
             "the run to end", logs)
    run.refresh_from_db()
    assert run.status == Run.FINISHED, run.error
    assert run.cycle_count == expected.cycle_count
    assert run.result["bindings"] == run_bindings(run) == expected.bindings
    indexes = list(CycleRecord.objects.filter(run=run).order_by("index")
                   .values_list("index", flat=True))
    assert indexes == list(range(expected.cycle_count))


def test_parallel_starts_never_exceed_the_concurrent_run_quota(settings):
    from playground import celery_app

    settings.PLAYGROUND_QUOTA_CONCURRENT_RUNS = 3
    alice = make_user("alice")
    cluster = import_cluster(alice)
    runs = [run_create(cluster=cluster, seed=seed, owner=alice) for seed in range(8)]
    barrier = threading.Barrier(len(runs))
    answers: dict[int, int] = {}
    queue = celery_app.conf.task_default_queue
    celery_app.conf.task_default_queue = "nobody-listens-here"  # the runs stay `running`

    def start(run):
        try:
            api = APIClient()
            api.force_login(alice)
            barrier.wait(30)
            answers[run.pk] = api.post(f"/api/runs/{run.pk}/start/").status_code
        finally:
            connection.close()

    threads = [threading.Thread(target=start, args=(run,)) for run in runs]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    finally:
        celery_app.conf.task_default_queue = queue
    assert sorted(answers.values()) == [202] * 3 + [403] * 5
    assert Run.objects.filter(owner=alice, status=Run.RUNNING).count() == 3


def terminate_other_backends() -> int:
    """pg_terminate_backend on every other connection to the test database (the worker's)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                       "WHERE datname = current_database() AND pid <> pg_backend_pid()")
        return cursor.fetchone()[0]


def test_a_run_whose_database_connection_is_terminated_goes_on_and_ends_the_same(workers):
    expected = undisturbed()
    alice = make_user("alice")
    run = run_create(cluster=import_cluster(alice, FIXTURE), seed=SEED, owner=alice)
    workers.start()
    api = APIClient()
    api.force_login(alice)
    assert api.post(f"/api/runs/{run.pk}/start/").status_code == 202
    wait_for(lambda: cycles_of(run) >= 50, RUN_TIMEOUT, "50 cycles", workers.logs)
    assert terminate_other_backends() >= 1
    connections.close_all()
    assert_ends_as_undisturbed(run, expected, workers.logs)
    assert "database connection lost" in workers.logs()
    # The run can be driven again afterwards: reset is accepted, not "run is busy".
    assert api.post(f"/api/runs/{run.pk}/reset/").status_code == 202


def busy_worker(workers):
    """The worker process running a task: a solo-pool worker answers no ping meanwhile."""
    from playground import celery_app

    answered = celery_app.control.inspect(timeout=0.5).ping() or {}
    silent = [process for process, log in workers.processes
              if f"{log.stem}@{socket.gethostname()}" not in answered]
    assert len(silent) == 1, f"expected one busy worker, {len(silent)} did not answer"
    return silent[0]


def test_a_killed_worker_is_replaced_by_a_live_one_within_a_lease_and_a_third(workers,
                                                                            tmp_path):
    # A run long enough to be killed halfway (a 500-node fixture ends in a couple of seconds).
    path = tmp_path / "long.yaml"
    path.write_text(big_cluster_yaml(200, 3000))
    expected = simulate([str(path)], seed=SEED, observe=False,
                        out_of_tree=out_of_tree_plugins()).scheduler
    alice = make_user("alice")
    cluster = import_cluster(alice, "long.yaml", text=path.read_text())
    run = run_create(cluster=cluster, seed=SEED, owner=alice)
    workers.start()
    workers.start()  # both up before the run: no worker is started after the kill
    api = APIClient()
    api.force_login(alice)
    assert api.post(f"/api/runs/{run.pk}/start/").status_code == 202
    wait_for(lambda: cycles_of(run) >= 100, RUN_TIMEOUT, "100 cycles", workers.logs)
    victim = busy_worker(workers)
    victim.send_signal(signal.SIGKILL)
    victim.wait(timeout=30)
    killed_at, killed = cycles_of(run), time.monotonic()
    assert Run.objects.get(pk=run.pk).status == Run.RUNNING, "the run ended before the kill"
    wait_for(lambda: cycles_of(run) > killed_at, RUN_TIMEOUT, "the run to go on", workers.logs)
    resumed_after = time.monotonic() - killed
    # The lease of these workers is 3 s and recovery looks every second: replay included,
    # well within the 10 s the issue asks for with the default 6 s lease.
    assert resumed_after < 10, f"resumed {resumed_after:.1f}s after the kill"
    assert_ends_as_undisturbed(run, expected, workers.logs)
