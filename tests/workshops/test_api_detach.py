"""POST /api/workshops/<code>/sandboxes/<id>/detach/."""

from playground.runs.models import Run
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
    sandbox.refresh_from_db()
    lesson = workshop.lessons.get().cluster
    # The first detach made Ana's own copy of the lesson, and the run is of that copy.
    assert sandbox.cluster is not None and sandbox.cluster_id != lesson.pk
    assert sandbox.cluster.owner == sandbox.attendee.user
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
    sandbox.refresh_from_db()
    assert sandbox.cluster is None and not Run.objects.filter(owner=sandbox.attendee.user).exists()


def test_it_rejects_a_negative_cycle_count(room, workshop):
    sandbox = ana_sandbox(workshop)
    response = room["ana"].post(url(workshop, f"sandboxes/{sandbox.pk}/detach/"),
                                {"cycles": -1}, format="json")
    assert response.status_code == 400 and "cycles" in response.json()


def test_a_second_detach_keeps_the_copy_made_by_the_first(room, workshop, presented):
    sandbox = ana_sandbox(workshop)
    path = url(workshop, f"sandboxes/{sandbox.pk}/detach/")
    first = room["ana"].post(path, {"cycles": 0}, format="json").json()["run"]["id"]
    sandbox.refresh_from_db()
    copy = sandbox.cluster_id
    second = room["ana"].post(path, {"cycles": 0}, format="json").json()["run"]["id"]
    sandbox.refresh_from_db()
    assert first != second and sandbox.cluster_id == copy
    assert set(Run.objects.filter(pk__in=[first, second]).values_list("cluster", flat=True)) \
        == {copy}
