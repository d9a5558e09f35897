"""What the run executor stores: packed cycles that read as the engine prints them, rows of the
old JSON form that read the same, and bindings appended per chunk."""

from __future__ import annotations

import copy
import json

import pytest
from django.test import Client
from rest_framework.test import APIClient

from playground import tasking
from playground.quotas import stored_bytes
from playground.runs import executor as run_executor
from playground.runs import services as runs
from playground.runs.models import CycleRecord, Run, RunChunk
from scheduler_core.session import RunSession
from scheduler_core.simulate import simulate
from scheduler_core.stream import SummaryObserver
from tests.api.conftest import FIXTURES, finish_run
from tests.helpers import WorkerDied, die_after_chunks, new_run

pytestmark = [pytest.mark.django_db(transaction=True),
              pytest.mark.usefixtures("fresh_sessions")]



def client_of(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def export(client, run) -> bytes:
    return b"".join(client.get(f"/api/runs/{run.pk}/export/").streaming_content)


def details(client, run) -> list[bytes]:
    return [client.get(f"/api/runs/{run.pk}/cycles/{i}/").content
            for i in range(run.cycle_count)]


def timeline(user, run) -> bytes:
    client = Client()
    client.force_login(user)
    return client.get(f"/api/runs/{run.pk}/history/").content


@pytest.mark.parametrize("fixture", ["taints-affinity.yaml", "preemption-lesson.yaml",
                                     "gpu-cluster.yaml"])
def test_packed_cycles_read_as_the_engine_prints_them_and_as_old_rows_do(alice, fixture):
    packed = new_run(alice, fixture, seed=11, name="packed")
    runs.run_start(run=packed, user=alice)
    packed.refresh_from_db()
    rows = CycleRecord.objects.filter(run=packed)
    assert rows.count() == packed.cycle_count > 0
    assert not rows.filter(packed=None).exists() and not rows.exclude(legacy_trace=None).exists()

    client = client_of(alice)
    printed = json.dumps(simulate([str(FIXTURES / fixture)], seed=11).to_json(), indent=2)
    assert export(client, packed) == (printed + "\n").encode()

    # The same run stored in the old form (the contract's JSON in each row) reads the same.
    legacy = new_run(alice, fixture, seed=11, name="legacy")
    finish_run(legacy)
    assert not CycleRecord.objects.filter(run=legacy).exclude(packed=None).exists()
    assert details(client, packed) == details(client, legacy)
    assert timeline(alice, packed) == timeline(alice, legacy)
    assert export(client, legacy) == export(client, packed)


def test_packed_cycles_are_a_small_part_of_their_json_and_count_in_the_quota(alice):
    run = new_run(alice, "spread-antiaffinity.yaml", seed=1)
    before = stored_bytes(alice)
    runs.run_start(run=run, user=alice)
    rows = CycleRecord.objects.filter(run=run)
    packed = sum(len(blob) for blob in rows.values_list("packed", flat=True))
    as_json = sum(len(json.dumps(c.trace, separators=(",", ":"))) for c in rows)
    assert 0 < packed < as_json / 4
    assert stored_bytes(alice) == before + packed


def _bindings_after(run: Run, cycles: int) -> dict:
    session = RunSession(copy.deepcopy(run.sources()), run.config, seed=run.seed)
    session.replay(cycles)
    return dict(session.scheduler.bindings)


@pytest.mark.parametrize("fixture", ["node-failure-lesson.yaml", "preemption-lesson.yaml"])
def test_a_running_run_appends_its_bindings_per_chunk_and_folds_them_when_it_stops(
        alice, monkeypatch, fixture):
    """The node failure's timeline deletes and re-creates pods; the preemption has victims."""
    monkeypatch.setattr(run_executor, "CHUNK_CYCLES", 1)
    run = new_run(alice, fixture, seed=0)
    seen = []

    def look(group, message, **kwargs):  # after each chunk's commit
        current = Run.objects.get(pk=run.pk)
        seen.append((current.status, current.cycle_count, current.results(),
                     RunChunk.objects.filter(run=run).count()))

    monkeypatch.setattr(tasking, "group_send", look)
    runs.run_start(run=run, user=alice)
    running = [s for s in seen if s[0] == Run.RUNNING]
    assert running and seen[-1][0] == Run.FINISHED
    for _, cycles, results, chunk_rows in running:
        assert chunk_rows >= 1
        assert results["bindings"] == _bindings_after(run, cycles)
    run.refresh_from_db()
    assert not RunChunk.objects.filter(run=run).exists()
    assert run.result["bindings"] == run.results()["bindings"] == _bindings_after(
        run, run.cycle_count)

    # The victims: every pod the run preempted, in order, as the live stream saw them.
    events = []
    session = RunSession(copy.deepcopy(run.sources()), run.config, seed=run.seed)
    session.advance(None, observer=SummaryObserver(lambda kind, p: events.append((kind, p))))
    victims = [{k: p.get(k) for k in ("pod", "node", "time")} for kind, p in events
               if kind == "pod" and p.get("event") == "preempted"]
    assert run.result["victims"] == victims
    assert bool(victims) == (fixture == "preemption-lesson.yaml")


def test_a_step_of_one_cycle_keeps_the_whole_result_on_the_run(alice):
    run = new_run(alice, "gpu-cluster.yaml", seed=3)
    runs.run_step(run=run, user=alice, cycles=1)
    run.refresh_from_db()
    assert run.status == Run.PAUSED and run.cycle_count == 1
    assert not RunChunk.objects.filter(run=run).exists()
    assert run.result["bindings"] == _bindings_after(run, 1)


def test_a_worker_that_dies_mid_chunk_leaves_the_results_of_the_chunks_before(
        alice, monkeypatch):
    monkeypatch.setattr(run_executor, "CHUNK_CYCLES", 2)
    run = new_run(alice, "node-failure-lesson.yaml", seed=0)
    captured = []
    monkeypatch.setattr(tasking, "enqueue_on_commit",
                        lambda task, using=None, **kwargs: captured.append(kwargs))
    runs.run_start(run=run, user=alice)
    die_after_chunks(monkeypatch, 2)
    with pytest.raises(WorkerDied):
        run_executor.advance(**captured[0])
    run.refresh_from_db()
    assert (run.status, run.cycle_count) == (Run.RUNNING, 4)
    assert CycleRecord.objects.filter(run=run).count() == 4
    assert run.results()["bindings"] == _bindings_after(run, 4)
