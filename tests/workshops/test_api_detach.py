"""POST /api/workshops/<code>/sandboxes/<id>/detach/."""

from playground.models import Run
from tests.workshops.conftest import ana_sandbox, url


def test_an_attendee_gets_a_run_of_their_sandbox_where_the_presenter_is(
        room, workshop, presented, django_capture_on_commit_callbacks):
    sandbox = ana_sandbox(workshop)
    with django_capture_on_commit_callbacks(execute=True):
        response = room["ana"].post(url(workshop, f"sandboxes/{sandbox.pk}/detach/"), {},
                                    format="json")
    assert response.status_code == 201
    body = response.json()
    assert body["cycles"] == presented.cycle_count
    run = Run.objects.get(pk=body["run"]["id"])
    assert run.cluster_id == sandbox.cluster_id and run.owner == sandbox.attendee.user
    assert run.cycle_count == presented.cycle_count   # its step task ran at commit
    presented.refresh_from_db()
    assert presented.cycle_count == body["cycles"]


def test_it_rejects_other_attendees_sandbox(room, workshop):
    sandbox = ana_sandbox(workshop)
    path = url(workshop, f"sandboxes/{sandbox.pk}/detach/")
    assert room["ben"].post(path, {}, format="json").status_code == 404
    assert room["trainer"].post(path, {}, format="json").status_code == 403
    assert room["outsider"].post(path, {}, format="json").status_code == 404
    assert room["anon"].post(path, {}, format="json").status_code == 403
    assert not Run.objects.filter(cluster=sandbox.cluster).exists()


def test_it_rejects_a_negative_cycle_count(room, workshop):
    sandbox = ana_sandbox(workshop)
    response = room["ana"].post(url(workshop, f"sandboxes/{sandbox.pk}/detach/"),
                                {"cycles": -1}, format="json")
    assert response.status_code == 400 and "cycles" in response.json()
