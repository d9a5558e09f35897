"""A workshop's release and feature gates: set by the trainer when creating it, checked as a
run's are (400 by field), shown, and followed by every run of the workshop (the presenter's
and each attendee's sandbox run)."""

import pytest

from playground.runs.models import Run
from playground.workshops.models import Workshop
from tests.workshops.conftest import ana_sandbox, joined, url

GATES = "GenericWorkload=true,GangScheduling=true"


def create(client, workshop, **fields):
    lesson = workshop.lessons.get().cluster_id
    return client.post("/api/workshops/", {"title": "Gangs", "lessons": [lesson], **fields},
                       format="json")


def test_a_workshop_follows_the_newest_release_and_its_default_gates_unless_told(room, workshop):
    body = room["trainer"].get(url(workshop)).json()
    assert (body["release"], body["feature_gates"]) == ("1.37", "")


def test_the_trainer_sets_the_release_and_gates_and_every_run_follows_them(
        room, workshop, django_capture_on_commit_callbacks):
    response = create(room["trainer"], workshop, release="1.36", feature_gates=GATES)
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["release"], body["feature_gates"]) == ("1.36", GATES)
    made = Workshop.objects.get(code=body["code"])
    assert made.feature_gates == {"GenericWorkload": True, "GangScheduling": True}
    trainer = room["trainer"]
    presented = trainer.post(url(made, "present/"), {"lesson": 0}, format="json")
    assert presented.status_code == 200, presented.content
    presenter = Run.objects.get(pk=made.lessons.get().presenter_run_id)
    assert (presenter.release, presenter.gates_flag) == ("1.36", GATES)
    # An attendee joins and takes the lesson into their sandbox: their run follows them too.
    ana = joined(made, "Ana")
    assert ana.get(url(made)).json()["feature_gates"] == GATES
    sandbox = ana_sandbox(made)
    with django_capture_on_commit_callbacks(execute=True):
        detached = ana.post(url(made, f"sandboxes/{sandbox.pk}/detach/"), {"cycles": 0},
                            format="json")
    assert detached.status_code == 201, detached.content
    run = Run.objects.get(pk=detached.json()["run"]["id"])
    assert (run.release, run.feature_gates) == ("1.36", {"GenericWorkload": True,
                                                         "GangScheduling": True})
    assert run.owner == sandbox.attendee.user


def test_gates_given_as_a_map_are_kept_in_their_order(room, workshop):
    response = create(room["trainer"], workshop, feature_gates={"OpportunisticBatching": False})
    assert response.status_code == 201, response.json()
    assert response.json()["feature_gates"] == "OpportunisticBatching=false"


@pytest.mark.parametrize("fields, field, message", [
    ({"feature_gates": "Nope=true"}, "feature_gates", "unrecognized feature gate: Nope"),
    ({"feature_gates": "DRAAdminAccess=false"}, "feature_gates",
     "cannot set feature gate DRAAdminAccess to false, feature is locked to true"),
    ({"release": "1.36", "feature_gates": "GangScheduling=true"}, "feature_gates",
     "GangScheduling is enabled, but depends on features that are disabled: [GenericWorkload]"),
    ({"release": "1.34", "feature_gates": "GenericWorkload=true"}, "feature_gates",
     "unrecognized feature gate: GenericWorkload"),
    ({"feature_gates": {"GenericWorkload": "yes"}}, "feature_gates",
     "GenericWorkload: must be true or false"),
    ({"release": "1.33"}, "release", '"1.33" is not a release'),
])
def test_bad_gates_or_release_are_a_400_by_field_and_nothing_is_stored(
        room, workshop, fields, field, message):
    response = create(room["trainer"], workshop, **fields)
    assert response.status_code == 400
    [got] = response.json()[field]
    assert message in got, got
    assert Workshop.objects.count() == 1
