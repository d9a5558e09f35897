"""POST /api/workshops/<code>/close/, /present/ and GET /lesson/."""

from playground.workshops.models import Workshop
from tests.workshops.conftest import url


def test_the_trainer_closes_the_workshop_and_nobody_joins_any_more(room, workshop):
    assert room["trainer"].post(url(workshop, "close/")).json()["state"] == "closed"
    response = room["anon"].post("/api/workshops/join/", {"code": workshop.code,
                                                          "display_name": "Late"}, format="json")
    assert response.status_code == 400
    assert response.json() == {"code": [f"workshop {workshop.code} is closed"]}


def test_it_rejects_attendees_outsiders_and_anonymous_closing(room, workshop):
    for who, status in (("ana", 403), ("outsider", 404), ("anon", 403)):
        assert room[who].post(url(workshop, "close/")).status_code == status
    workshop.refresh_from_db()
    assert workshop.state == Workshop.OPEN


def test_the_trainer_presents_a_lesson(room, workshop):
    response = room["trainer"].post(url(workshop, "present/"), {"lesson": 0}, format="json")
    assert response.status_code == 200 and response.json()["run"]["cycle_count"] == 0
    again = room["trainer"].post(url(workshop, "present/"), {"lesson": 0}, format="json")
    assert again.json()["run"]["id"] == response.json()["run"]["id"]
    missing = room["trainer"].post(url(workshop, "present/"), {"lesson": 3}, format="json")
    assert missing.status_code == 400
    assert missing.json() == {"lesson": ["this workshop has no lesson 3"]}


def test_it_rejects_attendees_presenting(room, workshop):
    for who, status in (("ana", 403), ("outsider", 404), ("anon", 403)):
        assert room[who].post(url(workshop, "present/"), {"lesson": 0},
                              format="json").status_code == status


def test_the_lesson_keeps_its_spoilers_for_the_trainer_only(room, workshop):
    trainer = room["trainer"].get(url(workshop, "lesson/")).json()
    ana = room["ana"].get(url(workshop, "lesson/")).json()
    assert "What it teaches" in trainer["text"] and "What it teaches" in ana["text"]
    assert "What to look at" in trainer["text"] and "What to look at" not in ana["text"]
    nodes = {n["name"]: n for n in ana["objects"]["nodes"]}
    assert nodes["node-c"]["taints"][0]["effect"] == "PreferNoSchedule"
    assert nodes["node-a"]["labels"]["topology.kubernetes.io/zone"] == "zone-a"
    pods = {p["name"]: p for p in ana["objects"]["pods"]}
    assert pods["default/trainer"]["tolerations"]
    assert room["outsider"].get(url(workshop, "lesson/")).status_code == 404
    assert room["anon"].get(url(workshop, "lesson/")).status_code == 403
