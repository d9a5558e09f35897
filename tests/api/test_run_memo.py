"""A run's objects and recorded timeline are kept per process (playground.run_memo): a read
later in the run, or after an action changed the run's documents, gives what a fresh load or
replay gives."""

import copy

import pytest

from playground.engine import out_of_tree_plugins
from playground.runs import memo as run_memo
from playground.runs.models import Run
from playground.runs.services import run_create
from scheduler_core.session import RunSession

from .conftest import finish_run, import_fixture


@pytest.fixture(autouse=True)
def empty_memos():
    run_memo.objects_memo.clear()
    run_memo.recording_memo.clear()
    yield
    run_memo.objects_memo.clear()
    run_memo.recording_memo.clear()


def without_clock(timeline: dict) -> dict:
    """The timeline without its plugin timings' microseconds (wall-clock, never equal twice)."""
    timings = [{**t, "micros": sorted(t["micros"])} for t in timeline["timings"]]
    return {**timeline, "timings": timings}


def fresh_timeline(run: Run) -> dict:
    session = RunSession(copy.deepcopy(run.sources()), run.config or None, seed=run.seed,
                         out_of_tree=out_of_tree_plugins(), record=True)
    session.advance(run.cycle_count)
    return without_clock(session.scheduler.life.to_json())


def read_timeline(api, run: Run) -> dict:
    return without_clock(api.get(f"/api/runs/{run.pk}/timeline/").json())


def test_the_timeline_read_mid_run_and_again_at_the_end_is_the_fresh_replay(api, alice):
    cluster = import_fixture(alice, "preemption-lesson.yaml", cluster_name="p")
    run = run_create(cluster=cluster, seed=1, owner=alice)
    finish_run(run)
    total = run.cycle_count
    assert total >= 2
    Run.objects.filter(pk=run.pk).update(cycle_count=1)
    run.refresh_from_db()
    early = read_timeline(api, run)
    assert early == fresh_timeline(run)
    Run.objects.filter(pk=run.pk).update(cycle_count=total)
    run.refresh_from_db()
    late = read_timeline(api, run)
    assert late == fresh_timeline(run)
    assert len(late["samples"]) > len(early["samples"])
    # Behind where the kept replay is (a chunk that did not commit): replayed afresh.
    Run.objects.filter(pk=run.pk).update(cycle_count=0)
    run.refresh_from_db()
    assert read_timeline(api, run) == fresh_timeline(run)


def test_an_action_on_a_paused_run_is_a_new_key_and_shows_in_the_timeline(api, alice):
    cluster = import_fixture(alice, "taints-affinity.yaml", cluster_name="t")
    run = run_create(cluster=cluster, seed=1, owner=alice)
    run.status = Run.PAUSED
    run.save()
    key = run_memo.documents_key(run)
    before = api.get(f"/api/runs/{run.pk}/objects/").json()
    assert before["nodes"]
    assert api.get(f"/api/runs/{run.pk}/timeline/").json()["steps"] == []
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "extra"},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
    response = api.post(f"/api/runs/{run.pk}/actions/",
                        {"step": {"action": "Create", "object": node}}, format="json")
    assert response.status_code == 201, response.json()
    run.refresh_from_db()
    assert run_memo.documents_key(run) != key
    # The objects are the documents' (a step's objects come at replay), read again, with
    # the node the step adds described for the node grid from the step's manifest.
    after = api.get(f"/api/runs/{run.pk}/objects/").json()
    assert before["addedNodes"] == {}
    assert after["addedNodes"]["extra"]["allocatable"] == {
        "cpu": 4000, "memory": 8589934592, "pods": 110}
    assert ({k: v for k, v in after.items() if k != "addedNodes"}
            == {k: v for k, v in before.items() if k != "addedNodes"})
    assert len(run_memo.objects_memo._values) == 2
    steps = api.get(f"/api/runs/{run.pk}/timeline/").json()["steps"]
    assert [s["action"] for s in steps] == ["Create"]
