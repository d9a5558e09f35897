"""GET/POST /api/workshops/ and POST /api/workshops/join/."""

from playground.workshops.models import Attendee, Workshop
from tests.workshops.conftest import url


def test_it_lists_a_workshop_to_its_trainer_and_attendees_only(room, workshop):
    for who in ("trainer", "ana"):
        codes = [w["code"] for w in room[who].get("/api/workshops/").json()]
        assert codes == [workshop.code], who
    assert room["outsider"].get("/api/workshops/").json() == []
    assert room["anon"].get("/api/workshops/").status_code == 403


def test_it_creates_a_workshop_from_clusters_the_trainer_can_see(room, workshop):
    lesson = workshop.lessons.get().cluster_id
    response = room["trainer"].post("/api/workshops/", {"title": "Day 2", "lessons": [lesson]},
                                    format="json")
    assert response.status_code == 201 and response.json()["role"] == "trainer"
    assert len(response.json()["code"]) == 6


def test_it_rejects_lessons_the_caller_cannot_see(room, workshop):
    lesson = workshop.lessons.get().cluster_id
    response = room["outsider"].post("/api/workshops/", {"title": "x", "lessons": [lesson]},
                                     format="json")
    assert response.status_code == 400
    assert response.json() == {"lessons": [f"no cluster {lesson} that you can see"]}


def test_it_rejects_attendee_accounts_creating_workshops(room, workshop):
    lesson = workshop.lessons.get().cluster_id
    response = room["ana"].post("/api/workshops/", {"title": "x", "lessons": [lesson]},
                                format="json")
    assert response.status_code == 403
    assert Workshop.objects.count() == 1


def test_it_rejects_anonymous_creation(room):
    assert room["anon"].post("/api/workshops/", {"title": "x", "lessons": [1]},
                             format="json").status_code == 403


def test_joining_needs_a_good_code_and_a_name(room, workshop, anon):
    bad = anon.post("/api/workshops/join/", {"code": "NOPE42", "display_name": "Zed"},
                    format="json")
    assert bad.status_code == 400 and "no workshop has the code NOPE42" in bad.json()["code"][0]
    blank = anon.post("/api/workshops/join/", {"code": workshop.code, "display_name": " "},
                      format="json")
    assert blank.status_code == 400 and "display_name" in blank.json()
    good = anon.post("/api/workshops/join/", {"code": workshop.code, "display_name": "Zed"},
                     format="json")
    assert good.status_code == 200 and good.json()["me"]["display_name"] == "Zed"
    # The session is now Zed's: the workshop answers it.
    assert anon.get(url(workshop)).json()["role"] == "attendee"
    assert Attendee.objects.filter(workshop=workshop).count() == 3


def test_nul_characters_get_a_clear_400(room, workshop, anon):
    name = anon.post("/api/workshops/join/", {"code": workshop.code, "display_name": "a\x00b"},
                     format="json")
    assert name.status_code == 400 and list(name.json()) == ["display_name"]
    code = anon.post("/api/workshops/join/", {"code": "AB\x00", "display_name": "Zed"},
                     format="json")
    assert code.status_code == 400 and list(code.json()) == ["code"]
    assert room["trainer"].get("/api/workshops/A%00B/").status_code == 404
