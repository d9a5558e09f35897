"""POST /api/workshops/<code>/sandboxes/<id>/reset/ and /reset/ (all)."""

from django.db import transaction

from playground.clusters.models import Cluster, Node
from playground.runs.services import run_create
from playground.workshops import services
from tests.workshops.conftest import ana_sandbox, url


def copied(sandbox):
    """The sandbox with its copy made, as the attendee's first detach makes it."""
    with transaction.atomic():
        services.sandbox_cluster(sandbox)
    return sandbox.cluster


def test_the_trainer_resets_one_sandbox_and_leaves_the_others(room, workshop):
    sandbox = ana_sandbox(workshop)
    old = copied(sandbox)
    Node.objects.filter(cluster=old).first().delete()   # Ana changed her copy
    bens = workshop.attendees.get(display_name="Ben").sandboxes.get()
    bens_copy = copied(bens)
    response = room["trainer"].post(url(workshop, f"sandboxes/{sandbox.pk}/reset/"))
    assert response.status_code == 200 and response.json()["reset_count"] == 1
    sandbox.refresh_from_db()
    assert not Cluster.objects.filter(pk=old.pk).exists()
    assert sandbox.cluster is None   # the lesson again, copied afresh at the next detach
    assert room["ana"].get(url(workshop, f"sandboxes/{sandbox.pk}/")).json()[
        "objects"]["nodeCount"] == 5
    bens.refresh_from_db()
    assert bens.reset_count == 0 and bens.cluster_id == bens_copy.pk
    assert Node.objects.filter(cluster=bens_copy).count() == 5


def test_it_rejects_attendees_resetting_sandboxes(room, workshop):
    sandbox = ana_sandbox(workshop)
    for who in ("ana", "ben"):
        assert room[who].post(url(workshop, f"sandboxes/{sandbox.pk}/reset/")).status_code == 403
        assert room[who].post(url(workshop, "reset/")).status_code == 403
    sandbox.refresh_from_db()
    assert sandbox.reset_count == 0


def test_it_rejects_outsiders_and_anonymous_resets(room, workshop):
    sandbox = ana_sandbox(workshop)
    for who, status in (("outsider", 404), ("anon", 403)):
        assert room[who].post(url(workshop, f"sandboxes/{sandbox.pk}/reset/")).status_code \
            == status
        assert room[who].post(url(workshop, "reset/")).status_code == status


def test_the_trainer_resets_all_sandboxes(room, workshop):
    run = run_create(cluster=copied(ana_sandbox(workshop)), seed=1)
    assert room["trainer"].post(url(workshop, "reset/")).json() == {"reset": 2}
    assert not type(run).objects.filter(pk=run.pk).exists()
    assert sorted(workshop.attendees.values_list("sandboxes__reset_count", flat=True)) == [1, 1]
