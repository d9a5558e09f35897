"""/api/runs/{id}/state/: queues, waiting pods and node usage where the run is."""

import pytest

from playground.runs import sessions as run_sessions
from playground.runs.services import run_create


def test_it_shows_the_engine_state_where_the_run_is(api, finished_run):
    response = api.get(f"/api/runs/{finished_run.pk}/state/")
    assert response.status_code == 200, response.json()
    state = response.json()
    assert state["cycles"] == finished_run.cycle_count
    assert state["bindings"]["default/web-ssd"] == "node-a"
    assert state["nodeCount"] == 5
    assert {"activeQ", "backoffQ", "unschedulablePods"} <= set(state["queues"])


def test_without_a_cached_session_it_replays_the_run(api, finished_run):
    run_sessions.sessions.clear()  # a process that never ran it
    state = api.get(f"/api/runs/{finished_run.pk}/state/?max_nodes=2").json()
    assert state["cycles"] == finished_run.cycle_count
    assert len(state["nodes"]) == 2 and state["nodeCount"] == 5
    assert [p["pod"] for p in state["queues"]["unschedulablePods"]] == ["default/nowhere"]


def test_a_new_run_is_at_the_start(api, alice, cluster):
    run = run_create(cluster=cluster, seed=0, owner=alice)
    state = api.get(f"/api/runs/{run.pk}/state/").json()
    assert state["cycles"] == 0
    assert len(state["queues"]["activeQ"]) == 20


@pytest.mark.parametrize("value", ["-1", "lots"])
def test_it_rejects_a_bad_max_nodes(api, finished_run, value):
    assert api.get(f"/api/runs/{finished_run.pk}/state/?max_nodes={value}").status_code == 400


def test_it_rejects_other_users_run(bob_api, finished_run):
    assert bob_api.get(f"/api/runs/{finished_run.pk}/state/").status_code == 404


def test_it_rejects_anonymous_users(anon, finished_run):
    assert anon.get(f"/api/runs/{finished_run.pk}/state/").status_code in (401, 403)
