"""Runs on real workers: a Celery worker process on Redis, PostgreSQL, channels-redis.

The REST API starts a run, a websocket client listens through channels-redis, and what it
streams, what is stored and what `python -m scheduler_core simulate` prints agree. A worker
killed mid-run (SIGKILL) leaves the run where its last chunk committed; a new worker takes it
over once the dead one's lease has run out, and the run ends as an undisturbed run does.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.db import connections, transaction
from django.test import Client
from rest_framework.test import APIClient

from playground.asgi import application
from playground.engine import out_of_tree_plugins
from playground.frames import FRAME_LIMIT
from playground.runs import lease as run_lease
from playground.runs import services as runs
from playground.runs.export import run_bindings
from playground.runs.models import CycleRecord, Run
from playground.runs.services import run_create
from scheduler_core.simulate import simulate
from tests.helpers import FIXTURES, ROOT, big_cluster_yaml, import_cluster, make_user
from tests.runs.test_runs_feature_gates import SHORT_GANG

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

RUN_TIMEOUT = 600


def cli_bindings(fixture: str, seed: int) -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "scheduler_core", "simulate", str(FIXTURES / fixture),
         "--seed", str(seed), "--output", "json"],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=True)
    return json.loads(out.stdout)["bindings"]


def session_cookie(user) -> bytes:
    client = Client()
    client.force_login(user)
    name = settings.SESSION_COOKIE_NAME
    return f"{name}={client.cookies[name].value}".encode()


def wait_for(predicate, timeout: float, what: str, logs=lambda: ""):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}\n{logs()}")
        time.sleep(0.2)


@pytest.mark.parametrize(("fixture", "seed"), [("gpu-cluster.yaml", 3), ("scale-500.yaml", 1)])
def test_a_run_streamed_over_redis_matches_the_store_and_simulate(workers, fixture, seed):
    expected = cli_bindings(fixture, seed)
    alice = make_user("alice")
    cluster = import_cluster(alice, fixture)
    api = APIClient()
    api.force_login(alice)
    created = api.post("/api/runs/", {"cluster": cluster.pk, "seed": seed}, format="json")
    assert created.status_code == 201, created.content
    run_id = created.json()["id"]
    cookie = session_cookie(alice)
    workers.start()

    async def scenario():
        ws = WebsocketCommunicator(application, f"/ws/runs/{run_id}/", headers=[
            (b"origin", b"http://localhost"), (b"host", b"localhost"), (b"cookie", cookie)])
        connected, _ = await ws.connect(timeout=30)
        assert connected
        frames, sizes = [], []
        started = await sync_to_async(api.post)(f"/api/runs/{run_id}/start/")
        assert started.status_code == 202, started.content
        while True:
            text = await ws.receive_from(timeout=RUN_TIMEOUT)
            sizes.append(len(text.encode()))
            frame = json.loads(text)
            frames.append(frame)
            if frame["type"] == "batch" and any(
                    e["kind"] == "progress" and e["status"] != Run.RUNNING
                    for e in frame["events"]):
                break
        await ws.disconnect()
        return frames, sizes

    frames, sizes = async_to_sync(scenario)()
    assert max(sizes) < FRAME_LIMIT
    assert [f["seq"] for f in frames] == list(range(1, len(frames) + 1))
    assert frames[0]["type"] == "snapshot"
    events = [e for f in frames if f["type"] == "batch" for e in f["events"]]
    assert events[-1]["status"] == Run.FINISHED
    streamed = dict.fromkeys(expected)
    for e in events:
        if e["kind"] == "pod" and e["event"] == "bound":
            streamed[e["pod"]] = e["node"]
    run = Run.objects.get(pk=run_id)
    assert run.status == Run.FINISHED
    assert streamed == run.result["bindings"] == run_bindings(run) == expected
    cycles = [e["index"] for e in events if e["kind"] == "cycle"]
    assert cycles == list(range(run.cycle_count))


def test_a_run_whose_worker_is_killed_resumes_on_a_new_worker_and_ends_the_same(workers):
    fixture, seed = "scale-500.yaml", 1
    undisturbed = simulate([str(FIXTURES / fixture)], seed=seed, observe=False,
                           out_of_tree=out_of_tree_plugins()).scheduler
    alice = make_user("alice")
    run = run_create(cluster=import_cluster(alice, fixture), seed=seed, owner=alice)
    first = workers.start()
    api = APIClient()
    api.force_login(alice)
    assert api.post(f"/api/runs/{run.pk}/start/").status_code == 202

    def cycles():
        return Run.objects.filter(pk=run.pk).values_list("cycle_count", flat=True).get()

    wait_for(lambda: cycles() >= 100, RUN_TIMEOUT, "100 cycles", workers.logs)
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=30)
    killed_at = cycles()
    run.refresh_from_db()
    assert run.status == Run.RUNNING
    assert killed_at < undisturbed.cycle_count, "the run ended before the kill"
    # What the dead worker committed is whole: every stored cycle, none missing.
    stored = list(CycleRecord.objects.filter(run=run).values_list("index", flat=True))
    assert sorted(stored) == list(range(killed_at))

    workers.start()
    wait_for(lambda: Run.objects.get(pk=run.pk).status != Run.RUNNING, RUN_TIMEOUT,
             "the run to end on the new worker", workers.logs)
    run.refresh_from_db()
    assert run.status == Run.FINISHED, run.error
    assert run.cycle_count == undisturbed.cycle_count
    assert run.result["bindings"] == undisturbed.bindings
    assert run_bindings(run) == undisturbed.bindings
    indexes = list(CycleRecord.objects.filter(run=run).order_by("index")
                   .values_list("index", flat=True))
    assert indexes == list(range(undisturbed.cycle_count))
    assert "recovered runs left running by a dead worker" in workers.logs()


def test_a_row_locked_by_another_transaction_is_busy_at_once():
    """PostgreSQL: SELECT ... FOR UPDATE NOWAIT answers "busy" instead of waiting."""
    alice = make_user("alice")
    run = run_create(cluster=import_cluster(alice), seed=3, owner=alice)
    locked, release = threading.Event(), threading.Event()

    def hold_the_row():
        try:
            with transaction.atomic():
                Run.objects.select_for_update().get(pk=run.pk)
                locked.set()
                release.wait(30)
        finally:
            connections.close_all()

    holder = threading.Thread(target=hold_the_row)
    holder.start()
    try:
        assert locked.wait(30)
        started = time.monotonic()
        with pytest.raises(run_lease.RunBusy):
            runs.run_step(run=run, user=alice)
        assert time.monotonic() - started < 5
    finally:
        release.set()
        holder.join(30)


def test_several_runs_proceed_at_once_on_several_workers(workers, tmp_path):
    text = big_cluster_yaml(200, 300)
    path = tmp_path / "medium.yaml"
    path.write_text(text)
    seeds = (1, 2)
    expected = {seed: simulate([str(path)], seed=seed, observe=False,
                               out_of_tree=out_of_tree_plugins()).scheduler.bindings
                for seed in seeds}
    alice = make_user("alice")
    cluster = import_cluster(alice, "medium.yaml", text=text)
    started = [run_create(cluster=cluster, seed=seed, owner=alice) for seed in seeds]
    for _ in seeds:
        workers.start()
    for run in started:
        runs.run_start(run=run, user=alice)
    wait_for(lambda: not Run.objects.filter(pk__in=[r.pk for r in started],
                                            status=Run.RUNNING).exists(),
             RUN_TIMEOUT, "both runs to end", workers.logs)
    for run in started:
        run.refresh_from_db()
        assert run.status == Run.FINISHED, run.error
        assert run.result["bindings"] == expected[run.seed]
    # Each worker ran one of them (a worker takes one task at a time: prefetch 1, acks late).
    for _, log in workers.processes:
        assert "scheduler_core.tasks.run_advance" in log.read_text(), workers.logs()


@pytest.mark.parametrize(("gates", "bound"), [
    ("", 2), ("GenericWorkload=true", 0)])   # v1.37: GenericWorkload alone makes gangs
def test_a_worker_runs_the_engine_under_the_run_s_feature_gates(workers, gates, bound):
    """The Celery worker builds the run's scheduler with its gates: a gang short of minCount
    binds pod by pod with the Workload API's gates off, and waits at PreEnqueue with them on."""
    alice = make_user("alice")
    cluster = import_cluster(alice, "short-gang.yaml", text=SHORT_GANG)
    api = APIClient()
    api.force_login(alice)
    created = api.post("/api/runs/", {"cluster": cluster.pk, "release": "1.37",
                                      "feature_gates": gates}, format="json")
    assert created.status_code == 201, created.content
    run_id = created.json()["id"]
    workers.start()
    assert api.post(f"/api/runs/{run_id}/start/").status_code == 202
    wait_for(lambda: Run.objects.get(pk=run_id).status != Run.RUNNING, RUN_TIMEOUT,
             "the run to end", workers.logs)
    run = Run.objects.get(pk=run_id)
    assert (run.status, run.pods_bound) == (Run.FINISHED, bound), run.error
