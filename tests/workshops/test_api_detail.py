"""GET /api/workshops/<code>/ and /attendees/."""

from tests.workshops.conftest import url


def test_it_shows_the_workshop_to_its_trainer_and_attendees(room, workshop):
    assert room["trainer"].get(url(workshop)).json()["role"] == "trainer"
    mine = room["ana"].get(url(workshop)).json()
    assert mine["role"] == "attendee" and mine["me"]["display_name"] == "Ana"


def test_it_hides_the_workshop_from_outsiders_and_anonymous(room, workshop):
    assert room["outsider"].get(url(workshop)).status_code == 404
    assert room["anon"].get(url(workshop)).status_code == 403


def test_it_lists_attendees_to_the_trainer_only(room, workshop):
    names = [a["display_name"] for a in room["trainer"].get(url(workshop, "attendees/")).json()]
    assert names == ["Ana", "Ben"]
    assert room["ana"].get(url(workshop, "attendees/")).status_code == 403
    assert room["outsider"].get(url(workshop, "attendees/")).status_code == 404
    assert room["anon"].get(url(workshop, "attendees/")).status_code == 403
