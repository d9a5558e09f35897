"""POST /api/workshops/<code>/sandboxes/<id>/reset/ and /reset/ (all)."""

from playground import services as data
from playground.models import Cluster, Node
from tests.workshops.conftest import ana_sandbox, url


def test_the_trainer_resets_one_sandbox_and_leaves_the_others(room, workshop):
    sandbox = ana_sandbox(workshop)
    old = sandbox.cluster
    Node.objects.filter(cluster=old).first().delete()   # Ana changed her copy
    bens = workshop.attendees.get(display_name="Ben").sandboxes.get()
    response = room["trainer"].post(url(workshop, f"sandboxes/{sandbox.pk}/reset/"))
    assert response.status_code == 200 and response.json()["reset_count"] == 1
    sandbox.refresh_from_db()
    assert not Cluster.objects.filter(pk=old.pk).exists()
    assert Node.objects.filter(cluster=sandbox.cluster).count() == 5
    bens.refresh_from_db()
    assert bens.reset_count == 0


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
    run = data.run_create(cluster=ana_sandbox(workshop).cluster, seed=1)
    assert room["trainer"].post(url(workshop, "reset/")).json() == {"reset": 2}
    assert not type(run).objects.filter(pk=run.pk).exists()
    assert sorted(workshop.attendees.values_list("sandboxes__reset_count", flat=True)) == [1, 1]
