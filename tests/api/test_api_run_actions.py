"""/api/runs/{id}/start|step|pause|resume|reset/: the API calls playground.runs' services.

These tests stand recording doubles in for playground.runs' service functions, so they check
the endpoint's contract (who may call, what is passed, what comes back) whatever the executor
does.
"""

import pytest

from playground.errors import Conflict
from playground.runs import services as runs
from playground.runs.models import Run
from playground.runs.services import run_create

ACTIONS = ["start", "step", "pause", "resume", "reset"]


@pytest.fixture
def calls(monkeypatch):
    recorded = []

    def record(action):
        def service(*, run, user, **kwargs):
            recorded.append((action, run.pk, user.username, kwargs))
            Run.objects.filter(pk=run.pk).update(status=Run.RUNNING)
            return run
        return service

    for action in ACTIONS:
        monkeypatch.setattr(runs, f"run_{action}", record(action))
    return recorded


@pytest.fixture
def run(alice, cluster):
    return run_create(cluster=cluster, seed=0, owner=alice)


@pytest.mark.parametrize("action", ACTIONS)
def test_it_calls_the_run_service(api, run, calls, action):
    response = api.post(f"/api/runs/{run.pk}/{action}/", {}, format="json")
    assert response.status_code == 202, response.json()
    expected = {"cycles": 1} if action == "step" else {}
    assert calls == [(action, run.pk, "alice", expected)]
    assert response.json()["status"] == "running"


def test_step_passes_the_number_of_cycles(api, run, calls):
    api.post(f"/api/runs/{run.pk}/step/", {"cycles": 25}, format="json")
    assert calls[0][3] == {"cycles": 25}


@pytest.mark.parametrize("cycles", [0, -3, "many"])
def test_step_rejects_a_bad_number_of_cycles(api, run, calls, cycles):
    response = api.post(f"/api/runs/{run.pk}/step/", {"cycles": cycles}, format="json")
    assert response.status_code == 400
    assert "cycles" in response.json()
    assert calls == []


def test_a_conflict_from_the_executor_is_409(api, run, monkeypatch, calls):
    def busy(*, run, user):
        raise Conflict({"detail": ["run is busy"]})
    monkeypatch.setattr(runs, "run_start", busy)
    response = api.post(f"/api/runs/{run.pk}/start/", {}, format="json")
    assert response.status_code == 409
    assert response.json() == {"detail": ["run is busy"]}


@pytest.mark.parametrize("action", ACTIONS)
def test_it_rejects_other_users_run(bob_api, run, calls, action):
    assert bob_api.post(f"/api/runs/{run.pk}/{action}/", {}, format="json").status_code == 404
    assert calls == []


@pytest.mark.parametrize("action", ACTIONS)
def test_a_run_of_another_user_on_a_shared_cluster_cannot_be_driven(api, bob, shared_cluster,
                                                                    calls, action):
    run = run_create(cluster=shared_cluster, seed=0, owner=bob)
    assert api.post(f"/api/runs/{run.pk}/{action}/", {}, format="json").status_code == 403
    assert calls == []


@pytest.mark.parametrize("action", ACTIONS)
def test_it_rejects_anonymous_users(anon, run, calls, action):
    assert anon.post(f"/api/runs/{run.pk}/{action}/", {}, format="json").status_code in (401,
                                                                                         403)
