"""GET /api/workshops/<code>/sandboxes/ and /sandboxes/<id>/."""

from tests.workshops.conftest import ana_sandbox, url


def test_the_trainer_sees_every_sandbox_an_attendee_their_own(room, workshop):
    everyone = room["trainer"].get(url(workshop, "sandboxes/")).json()
    assert sorted(s["display_name"] for s in everyone) == ["Ana", "Ben"]
    own = room["ana"].get(url(workshop, "sandboxes/")).json()
    assert [s["display_name"] for s in own] == ["Ana"]
    # No copy until the first detach: the sandbox reads as the lesson.
    assert own[0]["cluster"] is None and own[0]["copied"] is False


def test_it_rejects_other_attendees_sandbox(room, workshop):
    sandbox = ana_sandbox(workshop)
    path = url(workshop, f"sandboxes/{sandbox.pk}/")
    assert room["ben"].get(path).status_code == 404
    assert room["ana"].get(path).json()["objects"]["nodeCount"] == 5
    assert room["trainer"].get(path).status_code == 200


def test_it_rejects_outsiders_and_anonymous_sandbox_reads(room, workshop):
    sandbox = ana_sandbox(workshop)
    for who, status in (("outsider", 404), ("anon", 403)):
        assert room[who].get(url(workshop, "sandboxes/")).status_code == status
        assert room[who].get(url(workshop, f"sandboxes/{sandbox.pk}/")).status_code == status
