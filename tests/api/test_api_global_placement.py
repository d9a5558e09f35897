"""/api/runs/{id}/global-placement/: optimize on a run's cluster, beside the scheduler's."""
import pytest
from django.test import override_settings

from tests.helpers import big_cluster_yaml, new_run


@pytest.fixture
def lesson_run(alice):
    return new_run(alice, "locally-optimal.yaml", seed=1)


def test_it_binds_the_pod_the_scheduler_left_pending_and_names_the_early_decision(
        api, lesson_run):
    response = api.get(f"/api/runs/{lesson_run.pk}/global-placement/?time_limit=5")
    assert response.status_code == 200, response.json()
    out = response.json()
    assert out["scheduler"]["bound"] == 2 and out["scheduler"]["bindings"]["default/batch"] is None
    assert out["scheduler"]["violations"] == []
    assert (out["optimal"]["bound"], out["optimal"]["status"]) == (3, "OPTIMAL")
    (gained,) = out["gained"]
    assert gained["pod"] == "default/batch" and gained["optimalNode"] == "large"
    assert gained["blockedBy"]["pod"] == "default/web-1"
    assert "VolumeBinding" in out["unmodelled"]


@pytest.mark.parametrize("value, message", [
    ("lots", "must be a number of seconds"),
    ("0", "must be more than 0 and at most 30 seconds"),
    ("31", "must be more than 0 and at most 30 seconds"),
])
def test_a_bad_time_limit_is_a_400_naming_it(api, lesson_run, value, message):
    response = api.get(f"/api/runs/{lesson_run.pk}/global-placement/?time_limit={value}")
    assert response.status_code == 400
    assert response.json() == {"time_limit": [message]}


def test_a_cluster_past_the_solver_limit_is_a_413_naming_the_limit(api, alice):
    run = new_run(alice, "big.yaml", text=big_cluster_yaml(3, 2))
    with override_settings(PLAYGROUND_OPTIMIZE_MAX_NODES=2):
        response = api.get(f"/api/runs/{run.pk}/global-placement/")
    assert response.status_code == 413
    assert response.json() == {"cluster": [
        "the cluster has 3 nodes, more than the solver's limit of 2 "
        "(PLAYGROUND_OPTIMIZE_MAX_NODES)"]}


def test_pending_pods_past_the_limit_are_named_by_the_engine(api, alice):
    run = new_run(alice, "big.yaml", text=big_cluster_yaml(2, 3))
    with override_settings(PLAYGROUND_OPTIMIZE_MAX_PODS=2):
        response = api.get(f"/api/runs/{run.pk}/global-placement/")
    assert response.status_code == 413
    assert response.json() == {"cluster": [
        "the cluster has 3 pending pods, more than the solver's limit of 2 "
        "(PLAYGROUND_OPTIMIZE_MAX_PODS)"]}


def test_other_users_and_anonymous_see_nothing(bob_api, anon, lesson_run):
    assert bob_api.get(f"/api/runs/{lesson_run.pk}/global-placement/").status_code == 404
    assert anon.get(f"/api/runs/{lesson_run.pk}/global-placement/").status_code in (401, 403)
