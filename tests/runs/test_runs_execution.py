"""playground.runs: runs advanced by tasks in chunks, stored, locked, paused, reset, recovered.

Embedded mode with tasks run inline at commit (the suite's default), so a service call
returns once its task has finished.
"""

from __future__ import annotations

import copy
import gc
import json
import subprocess
import sys
import weakref
from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied
from django.utils import timezone
from rest_framework.test import APIClient

from playground import tasking
from playground.errors import InvalidInput
from playground.runs import executor as run_executor
from playground.runs import lease as run_lease
from playground.runs import services as runs
from playground.runs import sessions as run_sessions
from playground.runs.models import CycleRecord, Run
from playground.runs.state import run_state
from playground.runs.tasks import run_advance
from playground.runs.tasks import run_reset as run_reset_task
from scheduler_core.session import RunSession
from scheduler_core.simulate import simulate
from tests.helpers import ROOT, WorkerDied, clean_env, die_after_chunks, new_run, reference

pytestmark = [pytest.mark.django_db(transaction=True),
              pytest.mark.usefixtures("fresh_sessions")]



@pytest.fixture
def run(alice):
    return new_run(alice)


@pytest.fixture
def ref():
    return reference("gpu-cluster.yaml", seed=3)


@pytest.fixture
def sent(monkeypatch):
    """Messages the tasks send to channel groups, in order."""
    messages = []
    monkeypatch.setattr(tasking, "group_send", lambda group, m, **kw: messages.append((group, m)))
    return messages


@pytest.fixture
def captured(monkeypatch):
    """Tasks enqueued by the service functions, not run: [(task, kwargs)]."""
    calls = []
    monkeypatch.setattr(tasking, "enqueue_on_commit",
                        lambda task, using=None, **kwargs: calls.append((task, kwargs)))
    return calls


def traces(run):
    return [c.trace for c in CycleRecord.objects.filter(run=run).order_by("index")]


def test_a_run_to_the_end_stores_what_simulate_computes(run, alice, ref):
    runs.run_start(run=run, user=alice)
    run.refresh_from_db()
    assert run.status == Run.FINISHED
    assert run.cycle_count == len(ref["cycles"])
    assert traces(run) == ref["cycles"]
    assert run.result["bindings"] == ref["bindings"]
    assert run.result["end"] == "done"
    assert run.pods_bound == sum(1 for node in ref["bindings"].values() if node)
    assert run.virtual_time >= 0
    assert len(run.result["recent"]) == min(len(ref["cycles"]), run_executor.RECENT_CYCLES)
    assert (run.lock_token, run.lock_expires, run.target_cycle) == ("", None, None)
    row = CycleRecord.objects.get(run=run, index=0)
    first = ref["cycles"][0]
    assert (row.pod, row.outcome, row.node, row.time) == (
        first["pod"], first["outcome"], first["node"], first["time"])


def test_steps_go_on_from_where_the_run_is(run, alice, ref):
    runs.run_step(run=run, user=alice, cycles=3)
    run.refresh_from_db()
    assert (run.status, run.cycle_count) == (Run.PAUSED, 3)
    assert traces(run) == ref["cycles"][:3]
    assert not run_lease.run_busy(run)
    runs.run_step(run=run, user=alice, cycles=2)
    run.refresh_from_db()
    assert run.cycle_count == 5
    assert traces(run) == ref["cycles"][:5]
    runs.run_resume(run=run, user=alice)
    run.refresh_from_db()
    assert run.status == Run.FINISHED
    assert traces(run) == ref["cycles"]
    assert run.result["bindings"] == ref["bindings"]


def test_the_chunks_are_streamed_after_commit_without_a_gap(run, alice, ref, sent, monkeypatch):
    monkeypatch.setattr(run_executor, "CHUNK_CYCLES", 4)
    runs.run_start(run=run, user=alice)
    assert {group for group, _ in sent} == {f"run_{run.pk}"}
    messages = [m for _, m in sent]
    assert all(m["type"] == "run.events" for m in messages)
    assert messages[0]["from"] == 0
    for before, after in zip(messages, messages[1:]):
        assert after["from"] == before["to"]
    assert messages[-1]["to"] == len(ref["cycles"])
    cycles = [e for m in messages for e in m["events"] if e["kind"] == "cycle"]
    assert [c["index"] for c in cycles] == list(range(len(ref["cycles"])))
    assert [(c["pod"], c["outcome"], c["node"]) for c in cycles] == [
        (c["pod"], c["outcome"], c["node"]) for c in ref["cycles"]]
    for m in messages:
        progress = m["events"][-1]
        assert progress["kind"] == "progress"
        assert progress["cycles"] == m["to"]
        assert set(progress["queues"]) >= {"activeQ", "backoffQ", "unschedulablePods"}
    assert messages[-1]["events"][-1]["status"] == Run.FINISHED
    assert {m["events"][-1]["status"] for m in messages[:-1]} == {Run.RUNNING}
    bound = [e for m in messages for e in m["events"]
             if e["kind"] == "pod" and e["event"] == "bound"]
    assert {e["pod"]: e["node"] for e in bound} == {
        k: v for k, v in ref["bindings"].items() if v}


def test_a_retried_step_stores_the_same_cycles(run, alice, ref):
    first = run_advance.apply(kwargs={"run_id": run.pk, "cycles": 4, "from_cycle": 0},
                              throw=True).get()
    stored = traces(run)
    again = run_advance.apply(kwargs={"run_id": run.pk, "cycles": 4, "from_cycle": 0},
                              throw=True).get()
    run.refresh_from_db()
    assert first["cycles"] == again["cycles"] == 4
    assert run.cycle_count == 4
    assert traces(run) == stored == ref["cycles"][:4]
    assert CycleRecord.objects.filter(run=run).count() == 4


def test_a_task_started_by_hand_on_a_created_run_goes_past_its_first_chunk(
        run, ref, monkeypatch):
    # A first chunk that ends after one cycle, as on a loaded machine: the task must go on.
    monkeypatch.setattr(run_executor, "FIRST_CHUNK_SECONDS", 0.0)
    result = run_advance.apply(kwargs={"run_id": run.pk, "cycles": 3}, throw=True).get()
    run.refresh_from_db()
    assert (result["status"], result["cycles"]) == (Run.PAUSED, 3)
    assert (run.status, run.cycle_count) == (Run.PAUSED, 3)
    assert traces(run) == ref["cycles"][:3]


def run_python(code: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, env=clean_env(),
                          capture_output=True, text=True, timeout=300)


def test_a_worker_that_dies_mid_run_leaves_the_last_chunk_and_a_retry_ends_the_same(
        run, alice, ref, captured, monkeypatch):
    monkeypatch.setattr(run_executor, "CHUNK_CYCLES", 3)
    runs.run_start(run=run, user=alice)
    [(task, kwargs)] = captured
    assert task == run_advance
    real_commit = die_after_chunks(monkeypatch, 2)
    with pytest.raises(WorkerDied):
        run_executor.advance(**kwargs)
    run.refresh_from_db()
    assert (run.status, run.cycle_count) == (Run.RUNNING, 6)
    assert traces(run) == ref["cycles"][:6]
    assert run_lease.run_busy(run)  # its lease has not run out yet
    with pytest.raises(run_lease.TryLater):
        run_executor.advance(**kwargs)

    monkeypatch.setattr(run_executor, "_commit_chunk", real_commit)
    run_sessions.sessions.clear()  # a new worker process
    Run.objects.filter(pk=run.pk).update(lock_expires=timezone.now() - timedelta(seconds=1))
    run_advance.apply(kwargs=kwargs, throw=True)  # the broker redelivers the same message
    run.refresh_from_db()
    assert run.status == Run.FINISHED
    assert traces(run) == ref["cycles"]
    assert run.result["bindings"] == ref["bindings"]


def test_a_second_request_while_a_task_holds_the_run_is_busy(run, alice, captured):
    runs.run_start(run=run, user=alice)
    run.refresh_from_db()
    assert run.status == Run.RUNNING and run_lease.run_busy(run)
    for action in (lambda: runs.run_step(run=run, user=alice),
                   lambda: runs.run_start(run=run, user=alice),
                   lambda: runs.run_resume(run=run, user=alice),
                   lambda: runs.run_reset(run=run, user=alice)):
        with pytest.raises(run_lease.RunBusy, match="run is busy"):
            action()
    with pytest.raises(run_lease.RunBusy):  # a task started by hand, without the ticket
        run_advance.apply(kwargs={"run_id": run.pk, "cycles": 1}, throw=True)
    assert len(captured) == 1


def test_the_api_answers_409_when_the_run_is_busy(run, alice, captured):
    client = APIClient()
    client.force_login(alice)
    assert client.post(f"/api/runs/{run.pk}/start/").status_code == 202
    response = client.post(f"/api/runs/{run.pk}/step/", {"cycles": 2}, format="json")
    assert response.status_code == 409
    assert "run is busy" in str(response.json())


def test_a_superseded_ticket_does_nothing(run, alice, captured):
    runs.run_step(run=run, user=alice, cycles=2)
    [(_, kwargs)] = captured
    Run.objects.filter(pk=run.pk).update(lock_token="someone-else", status=Run.PAUSED)
    assert run_advance.apply(kwargs=kwargs, throw=True).get() == {"run": run.pk,
                                                                   "skipped": True}
    assert CycleRecord.objects.filter(run=run).count() == 0


def test_pause_stops_the_task_after_its_chunk(run, alice, ref, monkeypatch):
    monkeypatch.setattr(run_executor, "CHUNK_CYCLES", 2)
    chunks = []

    def pause_after_the_first_chunk(group, message, **kwargs):
        chunks.append(message)
        if len(chunks) == 1:
            paused = runs.run_pause(run=run, user=alice)
            assert paused.status == Run.RUNNING and paused.pause_requested

    monkeypatch.setattr(tasking, "group_send", pause_after_the_first_chunk)
    runs.run_start(run=run, user=alice)
    run.refresh_from_db()
    assert (run.status, run.cycle_count, run.pause_requested) == (Run.PAUSED, 4, False)
    assert not run_lease.run_busy(run)
    assert chunks[-1]["events"][-1]["status"] == Run.PAUSED
    runs.run_resume(run=run, user=alice)
    run.refresh_from_db()
    assert run.status == Run.FINISHED
    assert traces(run) == ref["cycles"]


def test_pause_when_nothing_runs_changes_nothing(run, alice):
    assert runs.run_pause(run=run, user=alice).status == Run.CREATED


def test_pause_of_a_run_whose_worker_died_pauses_it(run, alice, captured):
    runs.run_start(run=run, user=alice)
    Run.objects.filter(pk=run.pk).update(lock_expires=timezone.now() - timedelta(seconds=1))
    paused = runs.run_pause(run=run, user=alice)
    assert (paused.status, paused.lock_token) == (Run.PAUSED, "")


def test_reset_goes_back_to_cycle_zero_and_the_run_can_run_again(run, alice, ref, sent):
    runs.run_start(run=run, user=alice)
    assert run_sessions.sessions.cached_cycles(run.pk) == len(ref["cycles"])
    runs.run_reset(run=run, user=alice)
    run.refresh_from_db()
    assert (run.status, run.cycle_count, run.pods_bound, run.virtual_time, run.result) == (
        Run.CREATED, 0, 0, 0.0, {})
    assert CycleRecord.objects.filter(run=run).count() == 0
    assert run_sessions.sessions.cached_cycles(run.pk) is None
    assert sent[-1][1] == {"type": "run.reset", "run": run.pk}
    runs.run_start(run=run, user=alice)
    run.refresh_from_db()
    assert traces(run) == ref["cycles"]


def test_reset_by_hand_while_busy_is_refused(run, alice, captured):
    runs.run_start(run=run, user=alice)
    with pytest.raises(run_lease.RunBusy):
        run_reset_task.apply(kwargs={"run_id": run.pk}, throw=True)


def test_a_finished_run_must_be_reset_before_it_runs_again(run, alice):
    runs.run_start(run=run, user=alice)
    with pytest.raises(runs.RunStateConflict, match="finished"):
        runs.run_step(run=run, user=alice)
    with pytest.raises(InvalidInput):
        runs.run_step(run=run, user=alice, cycles=0)


def test_only_the_runs_starter_and_the_clusters_owner_may_drive_it(alice, bob):
    shared_run = new_run(alice, "taints-affinity.yaml", shared=True)
    for action in (runs.run_start, runs.run_resume, runs.run_pause, runs.run_reset,
                   runs.run_step):
        with pytest.raises(PermissionDenied):
            action(run=shared_run, user=bob)
    bobs_run = new_run(bob, "taints-affinity.yaml")
    bobs_run.refresh_from_db()
    with pytest.raises(PermissionDenied):
        runs.run_step(run=bobs_run, user=alice)
    assert runs.run_step(run=shared_run, user=alice).cycle_count == 1


def test_stale_runs_are_taken_over(run, alice, ref, captured, monkeypatch):
    runs.run_step(run=run, user=alice, cycles=7)
    [(_, kwargs)] = captured
    run_executor.advance(**{**kwargs, "cycles": 2})  # the worker did 2 cycles of the 7, then died
    Run.objects.filter(pk=run.pk).update(status=Run.RUNNING, target_cycle=7,
                                         lock_token=kwargs["token"] + ":dead",
                                         lock_expires=timezone.now() - timedelta(seconds=1))
    captured.clear()
    assert runs.recover_stale_runs() == [run.pk]
    [(task, again)] = captured
    assert (task, again["cycles"], again["from_cycle"]) == (run_advance, 5, 2)
    run_sessions.sessions.clear()
    run_advance.apply(kwargs=again, throw=True)
    run.refresh_from_db()
    assert (run.status, run.cycle_count) == (Run.PAUSED, 7)
    assert traces(run) == ref["cycles"][:7]
    assert runs.recover_stale_runs() == []


def test_a_request_takes_over_a_run_whose_worker_died(run, alice, ref, captured):
    runs.run_start(run=run, user=alice)
    Run.objects.filter(pk=run.pk).update(lock_expires=timezone.now() - timedelta(seconds=1))
    runs.run_start(run=run, user=alice)
    assert len(captured) == 2
    assert captured[0][1]["token"] != captured[1][1]["token"]
    assert run_advance.apply(kwargs=captured[0][1], throw=True).get()["skipped"]
    run_advance.apply(kwargs=captured[1][1], throw=True)
    run.refresh_from_db()
    assert run.status == Run.FINISHED
    assert traces(run) == ref["cycles"]


def test_an_engine_error_fails_the_run_and_frees_it(run, alice, sent, monkeypatch):
    def explode(self, cycles, observer=None):
        raise RuntimeError("engine exploded")

    monkeypatch.setattr(RunSession, "advance", explode)
    runs.run_step(run=run, user=alice)
    run.refresh_from_db()
    assert run.status == Run.FAILED
    assert run.error == "RuntimeError: engine exploded"
    assert not run_lease.run_busy(run)
    assert sent[-1][1]["events"][-1]["error"] == run.error


def test_the_session_cache_is_checked_against_the_cycle_count(run, alice, ref):
    runs.run_step(run=run, user=alice, cycles=3)
    assert run_sessions.sessions.cached_cycles(run.pk) == 3
    fresh = RunSession(copy.deepcopy(run.sources()), run.config, seed=run.seed)
    fresh.replay(3)
    assert run_state(run=run)["queues"] == fresh.state()["queues"]
    # A session ahead of the stored run (its chunk never committed) is rebuilt...
    run_sessions.sessions.entry(run.pk).session.advance(2)
    state = run_state(run=run, max_nodes=4)
    assert state["cycles"] == 3
    assert len(state["nodes"]) == 4 and state["nodeCount"] == 15
    # ...one behind catches up without observing.
    run_sessions.sessions.entry(run.pk).session = None
    entry = run_sessions.sessions.entry(run.pk)
    entry.session = RunSession(copy.deepcopy(run.sources()), run.config, seed=run.seed)
    runs.run_step(run=run, user=alice, cycles=1)
    assert traces(run) == ref["cycles"][:4]


def test_the_cache_keeps_a_bounded_number_of_sessions(alice, settings):
    settings.PLAYGROUND_RUN_SESSION_CACHE = 2
    many = [new_run(alice, name=f"cluster {i}") for i in range(3)]
    for r in many:
        runs.run_step(run=r, user=alice)
    cached = [run_sessions.sessions.cached_cycles(r.pk) for r in many]
    assert cached == [None, 1, 1]



PARALLEL_RUNS = """
import json, sys
import django
from django.conf import settings
settings.DATABASES["default"]["NAME"] = sys.argv[1]
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from playground import tasking
from playground.runs import executor as run_executor
from playground.runs import services as runs
run_executor.CHUNK_CYCLES = 2
commits = []
real_commit = run_executor._commit_chunk
def commit(run_id, *args):
    commits.append(run_id)
    return real_commit(run_id, *args)
run_executor._commit_chunk = commit
from tests.helpers import make_user, new_run
alice = make_user("alice")
started = [new_run(alice, "gpu-cluster.yaml", seed=3, name="a"),
           new_run(alice, "gpu-cluster.yaml", seed=7, name="b"),
           new_run(alice, "taints-affinity.yaml", seed=1, name="c")]
for run in started:
    runs.run_start(run=run, user=alice)
assert tasking.wait_for_embedded_tasks(timeout=120)
out = []
for run in started:
    run.refresh_from_db()
    out.append({"status": run.status, "error": run.error, "bindings": run.result["bindings"],
                "traces": [c.trace for c in run.cycles.order_by("index")],
                "commits": [i for i, run_id in enumerate(commits) if run_id == run.pk]})
print(json.dumps(out))
"""


def test_several_runs_proceed_at_once_on_the_task_threads(tmp_path):
    """The embedded server: a SQLite file, tasks on its thread pool (not inline)."""
    done = run_python(PARALLEL_RUNS, str(tmp_path / "db.sqlite3"))
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout.strip().splitlines()[-1])
    expected = [reference("gpu-cluster.yaml", seed=3), reference("gpu-cluster.yaml", seed=7),
                reference("taints-affinity.yaml", seed=1)]
    for got, want in zip(results, expected, strict=True):
        assert (got["status"], got["error"]) == (Run.FINISHED, "")
        assert got["traces"] == want["cycles"]
        assert got["bindings"] == want["bindings"]
    # They ran at the same time: each one's chunks interleave with another's.
    spans = sorted((r["commits"][0], r["commits"][-1]) for r in results)
    assert any(later[0] < earlier[1] for earlier, later in zip(spans, spans[1:]))


CRONJOB_CLUSTER = """
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: LimitRange
metadata: {name: defaults}
spec: {limits: [{type: Container, defaultRequest: {cpu: 100m}, default: {cpu: 200m}}]}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: report}
spec:
  schedule: "*/15 * * * *"
  jobTemplate:
    spec:
      template:
        metadata: {annotations: {playground.k8s.local/run-seconds: "60"}}
        spec:
          restartPolicy: Never
          containers: [{name: c, image: busybox}]
"""


def test_a_cronjob_run_on_the_web_ends_at_the_hour_as_simulate_does(alice, tmp_path):
    run = new_run(alice, "cron.yaml", text=CRONJOB_CLUSTER, seed=5)
    runs.run_start(run=run, user=alice)
    run.refresh_from_db()
    source = tmp_path / "cron.yaml"
    source.write_text(CRONJOB_CLUSTER)
    expected = simulate([str(source)], seed=5).to_json()
    assert run.status == Run.FINISHED
    assert traces(run) == expected["cycles"]
    # The run starts at 07:06:40 (RUN_EPOCH): 07:15, 07:30, 07:45 and 08:00 are within the
    # hour (virtual 500 to 3200 s), 08:15 is not.
    assert [c["pod"].rsplit("-", 1)[0] for c in expected["cycles"]] == [
        f"default/report-{m}" for m in (66666675, 66666690, 66666705, 66666720)]
    assert run.virtual_time <= 3600


def test_a_built_session_is_left_out_of_later_collections_until_it_is_evicted(alice, settings):
    """Python's full collections would walk a cached session's objects again and again (100 to
    250 ms at 500 nodes, in the middle of a workshop's step); once built it is frozen, and
    what an evicted session leaves is collected when the next one is built."""
    settings.PLAYGROUND_RUN_SESSION_CACHE = 1
    first, second = new_run(alice, name="first"), new_run(alice, name="second")
    try:
        runs.run_step(run=first, user=alice)
        scheduler = weakref.ref(run_sessions.sessions.entry(first.pk).session.scheduler)
        assert gc.get_freeze_count() > 0
        assert not any(o is scheduler() for o in gc.get_objects())  # frozen: never walked
        runs.run_step(run=second, user=alice)  # evicts the first session, builds the second
        assert scheduler() is None
    finally:
        gc.unfreeze()
