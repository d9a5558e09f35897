"""Prediction mode for a learner alone: /api/practice/runs/<id>/ (the next cycle and the
choices), /predictions/ (predict), /predictions/<id>/check/ (right or wrong from the trace,
with the deciding plugin), /scores/ (per lesson, kept in the account)."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from playground.runs import services as runs
from playground.runs.services import run_create
from playground.workshops.models import PracticePrediction
from tests.helpers import import_fixture, make_user

# taints-affinity, seed 1: cycle #3 is likes-b, which goes to node-b (NodeAffinity: 692 to 480).
LIKES_B = 3


@pytest.fixture
def learner(db):
    return make_user("learner")


@pytest.fixture
def client(learner):
    client = APIClient()
    client.force_login(learner)
    return client


@pytest.fixture
def run(learner):
    cluster = import_fixture(learner, "taints-affinity.yaml", cluster_name="taints-affinity")
    return run_create(cluster=cluster, seed=1, owner=learner, name="practice")


def step(run, user, cycles, capture):
    with capture(execute=True):
        runs.run_step(run=run, user=user, cycles=cycles)
    run.refresh_from_db()


def predict(client, run, point, answer):
    return client.post(f"/api/practice/runs/{run.pk}/predictions/",
                       {"point": point, "answer": answer}, format="json")


def check(client, prediction_id):
    return client.post(f"/api/practice/predictions/{prediction_id}/check/")


def test_the_next_cycle_and_its_choices(client, run):
    body = client.get(f"/api/practice/runs/{run.pk}/").json()
    assert body["cycle_index"] == 0 and not body["finished"]
    assert body["choices"]["Score"] == ["node-a", "node-b", "node-c", "gpu-1", "node-d"]
    assert body["score"] == {"lesson": "taints-affinity", "checked": 0, "right": 0}


def test_a_prediction_is_checked_once_its_cycle_ran_with_the_deciding_plugin(
        client, run, learner, django_capture_on_commit_callbacks):
    step(run, learner, LIKES_B, django_capture_on_commit_callbacks)
    made = predict(client, run, "Score", ["node-b"])
    assert made.status_code == 201 and made.json()["cycle_index"] == LIKES_B
    early = check(client, made.json()["id"])
    assert early.status_code == 409
    assert early.json() == {"detail": [f"cycle {LIKES_B} has not run yet: step the run first"]}
    step(run, learner, 1, django_capture_on_commit_callbacks)
    checked = check(client, made.json()["id"]).json()
    assert checked["correct"] is True
    assert checked["right_answer"]["answer"] == ["node-b"]
    assert checked["right_answer"]["plugin"] == "NodeAffinity"
    assert checked["right_answer"]["reason"].startswith("node-b 692 against node-a 480")


def test_scores_per_lesson_count_checked_predictions(
        client, run, learner, django_capture_on_commit_callbacks):
    step(run, learner, LIKES_B, django_capture_on_commit_callbacks)
    first = predict(client, run, "Score", ["node-a"]).json()["id"]   # wrong: node-b wins
    step(run, learner, 1, django_capture_on_commit_callbacks)
    second = predict(client, run, "Filter", ["node-a"]).json()["id"]
    step(run, learner, 1, django_capture_on_commit_callbacks)
    assert check(client, first).json()["correct"] is False
    check(client, second)
    scores = client.get("/api/practice/scores/").json()
    assert scores == [{"lesson": "taints-affinity", "checked": 2,
                       "right": int(PracticePrediction.objects.get(pk=second).correct)}]
    # The score stays with the account when the run goes.
    run.delete()
    assert client.get("/api/practice/scores/").json() == scores


def test_a_new_prediction_replaces_the_unchecked_one_on_the_same_cycle(client, run):
    predict(client, run, "Score", ["node-a"])
    predict(client, run, "Filter", ["node-a", "node-b"])
    assert list(PracticePrediction.objects.values_list("point", "answer")) == [
        ("Filter", ["node-a", "node-b"])]


def test_bad_answers_are_400_by_field(client, run):
    assert predict(client, run, "Score", ["node-a", "node-b"]).json() == {
        "answer": ["pick exactly one node"]}
    assert predict(client, run, "Score", ["node-z"]).json() == {
        "answer": ["not a choice of this question: node-z"]}
    assert "point" in predict(client, run, "Bind", ["node-a"]).json()


def test_a_finished_run_has_nothing_left_to_predict(client, run, learner,
                                                    django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        runs.run_start(run=run, user=learner)
    response = predict(client, run, "Score", ["node-a"])
    assert response.status_code == 409
    assert "the run has finished" in response.json()["detail"][0]


def test_only_the_runs_drivers_predict_and_predictions_are_private(client, run, anon):
    other = APIClient()
    other.force_login(make_user("other"))
    assert other.get(f"/api/practice/runs/{run.pk}/").status_code == 404
    assert predict(other, run, "Score", ["node-a"]).status_code == 404
    mine = predict(client, run, "Score", ["node-a"]).json()["id"]
    assert check(other, mine).status_code == 404
    assert other.get("/api/practice/scores/").json() == []
    assert anon.get("/api/practice/scores/").status_code == 403
