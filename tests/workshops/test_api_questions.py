"""Questions: ask, read, predict, reveal (/questions/, /questions/<id>/, /predictions/,
/reveal/) and the CSV of predictions."""

import csv
import io

import pytest

from playground.workshops.models import Prediction
from tests.workshops.conftest import url


@pytest.fixture
def question(room, workshop, presented):
    """A Score question on cycle 3 of the lesson (likes-b: node-b wins, 692 to 480)."""
    response = room["trainer"].post(url(workshop, "questions/"),
                                    {"point": "Score", "cycle_index": 3}, format="json")
    assert response.status_code == 201
    return response.json()


def predict(client, workshop, question, answer):
    return client.post(url(workshop, f"questions/{question['id']}/predictions/"),
                       {"answer": answer}, format="json")


def test_it_rejects_attendees_asking(room, workshop, presented):
    for who, status in (("ana", 403), ("outsider", 404), ("anon", 403)):
        assert room[who].post(url(workshop, "questions/"), {"point": "Filter"},
                              format="json").status_code == status


def test_asking_needs_a_presented_run_and_a_known_point(room, workshop):
    none = room["trainer"].post(url(workshop, "questions/"), {"point": "Filter"}, format="json")
    assert none.status_code == 409
    assert none.json() == {"detail": ["present a lesson first: questions are about its run"]}
    bad = room["trainer"].post(url(workshop, "questions/"), {"point": "Bind"}, format="json")
    assert bad.status_code == 400 and "point" in bad.json()


def test_one_question_is_open_at_a_time(room, workshop, question):
    again = room["trainer"].post(url(workshop, "questions/"), {"point": "Filter"},
                                 format="json")
    assert again.status_code == 409


def test_attendees_see_the_question_without_its_answer(room, workshop, question):
    listed = room["ana"].get(url(workshop, "questions/")).json()
    assert listed[0]["choices"] == ["node-a", "node-b", "node-c", "gpu-1", "node-d"]
    assert "answer" not in listed[0]
    assert room["outsider"].get(url(workshop, "questions/")).status_code == 404
    assert room["anon"].get(url(workshop, "questions/")).status_code == 403


def test_predictions_come_from_attendees_only(room, workshop, question):
    assert predict(room["ana"], workshop, question, ["node-b"]).status_code == 200
    assert predict(room["ana"], workshop, question, ["node-a"]).status_code == 200  # changed
    assert predict(room["trainer"], workshop, question, ["node-b"]).status_code == 403
    assert predict(room["outsider"], workshop, question, ["node-b"]).status_code == 404
    assert predict(room["anon"], workshop, question, ["node-b"]).status_code == 403
    assert list(Prediction.objects.values_list("answer", flat=True)) == [["node-a"]]


def test_it_rejects_answers_that_are_not_choices(room, workshop, question):
    response = predict(room["ana"], workshop, question, ["node-z"])
    assert response.status_code == 400
    assert response.json() == {"answer": ["not a choice of this question: node-z"]}
    two = predict(room["ana"], workshop, question, ["node-a", "node-b"])
    assert two.json() == {"answer": ["pick exactly one node"]}


def test_the_trainer_sees_the_tally_an_attendee_their_own_prediction(room, workshop,
                                                                   question):
    predict(room["ana"], workshop, question, ["node-b"])
    predict(room["ben"], workshop, question, ["node-a"])
    path = url(workshop, f"questions/{question['id']}/")
    assert room["trainer"].get(path).json()["tally"] == {
        "count": 2, "answers": {"node-b": 1, "node-a": 1}}
    ana = room["ana"].get(path).json()
    assert ana["mine"] == {"answer": ["node-b"], "correct": None} and "tally" not in ana
    assert room["outsider"].get(path).status_code == 404


def test_the_reveal_marks_each_prediction_right_or_wrong(room, workshop, question):
    predict(room["ana"], workshop, question, ["node-b"])
    predict(room["ben"], workshop, question, ["node-a"])
    for who, status in (("ana", 403), ("outsider", 404), ("anon", 403)):
        assert room[who].post(url(workshop, f"questions/{question['id']}/reveal/")) \
            .status_code == status
    revealed = room["trainer"].post(url(workshop, f"questions/{question['id']}/reveal/")).json()
    assert revealed["answer"]["answer"] == ["node-b"]
    assert revealed["answer"]["plugin"] == "NodeAffinity"
    assert "node-b 692 against node-a 480" in revealed["answer"]["reason"]
    path = url(workshop, f"questions/{question['id']}/")
    assert room["ana"].get(path).json()["mine"]["correct"] is True
    assert room["ben"].get(path).json()["mine"]["correct"] is False
    late = predict(room["ana"], workshop, question, ["node-a"])
    assert late.status_code == 409


def test_a_cycle_that_has_not_run_cannot_be_revealed(room, workshop):
    lesson = workshop.lessons.get()
    room["trainer"].post(url(workshop, "present/"), {"lesson": lesson.position}, format="json")
    q = room["trainer"].post(url(workshop, "questions/"), {"point": "Filter"},
                             format="json").json()
    response = room["trainer"].post(url(workshop, f"questions/{q['id']}/reveal/"))
    assert response.status_code == 409
    assert "has not run yet" in response.json()["detail"][0]


def test_the_csv_holds_every_prediction_for_the_trainer_only(room, workshop, question):
    predict(room["ana"], workshop, question, ["node-b"])
    predict(room["ben"], workshop, question, ["node-a"])
    room["trainer"].post(url(workshop, f"questions/{question['id']}/reveal/"))
    response = room["trainer"].get(url(workshop, "predictions.csv"))
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [(r["attendee"], r["answer"], r["correct"], r["right_answer"]) for r in rows] == [
        ("Ana", "node-b", "yes", "node-b"), ("Ben", "node-a", "no", "node-b")]
    for who, status in (("ana", 403), ("outsider", 404), ("anon", 403)):
        assert room[who].get(url(workshop, "predictions.csv")).status_code == status
