"""Hidden means hidden: while a question is open, nothing an attendee can reach shows the
outcome asked about. Each route an attendee had to it is a case here: the presenter's run
through its page, its REST API and its socket (its lesson cluster is a shared demo lesson,
visible to every account); their own sandbox run, detached and stepped past the asked cycle
before the question; a new detach or a run of their own; the clusters they could run. After
the reveal their own things come back; the presenter's run stays the trainer's.
"""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from django.test import Client

from playground.runs import services as runs
from playground.runs.consumer import CLOSE_REFUSED
from playground.workshops import services
from playground.workshops.models import Attendee
from tests.helpers import finish_run, import_fixture
from tests.runs.test_consumer_runs import Socket, headers
from tests.workshops.conftest import ana_sandbox, joined, url

ASKED = 3


@pytest.fixture
def workshop(trainer_user):
    """The taints-affinity lesson as load_demo makes it: shared with every account."""
    lesson = import_fixture(trainer_user, "taints-affinity.yaml", cluster_name="taints-affinity",
                            shared=True)
    return services.workshop_create(trainer=trainer_user, title="Filter 101", clusters=[lesson])


@pytest.fixture
def presenter_run(workshop):
    run = services.workshop_present(workshop=workshop, lesson=workshop.lessons.get())
    finish_run(run)
    return run


@pytest.fixture
def ana(workshop):
    return joined(workshop, "Ana")


@pytest.fixture
def ana_run(workshop, ana, presenter_run, django_capture_on_commit_callbacks):
    """Ana detached at cycle #3 and stepped her run past it, before any question."""
    with django_capture_on_commit_callbacks(execute=True):
        body = ana.post(url(workshop, f"sandboxes/{ana_sandbox(workshop).pk}/detach/"),
                        {"cycles": ASKED}, format="json").json()
    user = Attendee.objects.get(pk=ana.attendee_id).user
    with django_capture_on_commit_callbacks(execute=True):
        runs.run_step(run=runs.Run.objects.get(pk=body["run"]["id"]), user=user, cycles=3)
    return body["run"]["id"]


def ask(trainer, workshop):
    response = trainer.post(url(workshop, "questions/"), {"point": "Score",
                                                          "cycle_index": ASKED}, format="json")
    assert response.status_code == 201
    return response.json()


def reveal(trainer, workshop, question):
    assert trainer.post(url(workshop, f"questions/{question['id']}/reveal/")).status_code == 200


def run_routes(run_id: int) -> list[str]:
    api = f"/api/runs/{run_id}/"
    return [api, f"{api}cycles/", f"{api}cycles/{ASKED}/", f"{api}state/", f"{api}export/",
            f"{api}view/", f"/runs/{run_id}/"]


def page_client(api_client) -> Client:
    """A Django test client with the API client's session (pages are not DRF views)."""
    client = Client()
    client.cookies = api_client.cookies
    return client


def test_the_presenters_run_is_not_found_to_the_room_through_any_page_or_api(
        workshop, trainer, ana, presenter_run):
    ask(trainer, workshop)
    for path in run_routes(presenter_run.pk):
        assert page_client(ana).get(path).status_code == 404, path
        assert trainer.get(path).status_code != 404, path
    listed = [r["id"] for r in ana.get("/api/runs/").json()["results"]]
    assert presenter_run.pk not in listed


@pytest.mark.django_db(transaction=True)
def test_the_presenters_run_socket_refuses_an_attendee(workshop, ana, presenter_run):
    h = headers(Attendee.objects.get(pk=ana.attendee_id).user)

    async def connect():
        sock = Socket(presenter_run.pk, h)
        connected, code = await sock.connect()
        await sock.close()
        return connected, code

    assert async_to_sync(connect)() == (False, CLOSE_REFUSED)


def test_an_attendees_own_run_past_the_asked_cycle_is_withheld_until_the_reveal(
        workshop, trainer, ana, ana_run):
    assert ana.get(f"/api/runs/{ana_run}/cycles/{ASKED}/").status_code == 200
    question = ask(trainer, workshop)
    for path in run_routes(ana_run):
        assert page_client(ana).get(path).status_code == 404, path
    assert ana.post(f"/api/runs/{ana_run}/step/", {"cycles": 1}, format="json"
                    ).status_code == 404
    boxes = ana.get(url(workshop, "sandboxes/")).json()
    assert boxes[0]["run"] is None and boxes[0]["run_withheld"] is True
    detail = ana.get(url(workshop, f"sandboxes/{boxes[0]['id']}/")).json()
    assert detail["run"] is None
    # The trainer still sees Ana's sandbox run, read-only.
    assert trainer.get(url(workshop, "sandboxes/")).json()[0]["run"]["id"] == ana_run

    reveal(trainer, workshop, question)
    assert ana.get(f"/api/runs/{ana_run}/cycles/{ASKED}/").status_code == 200
    assert ana.get(url(workshop, "sandboxes/")).json()[0]["run"]["id"] == ana_run


@pytest.mark.django_db(transaction=True)
def test_an_attendees_own_run_socket_closes_when_a_question_opens(
        workshop, trainer, ana, ana_run):
    h = headers(Attendee.objects.get(pk=ana.attendee_id).user)

    async def scenario():
        sock = Socket(ana_run, h)
        connected, _ = await sock.connect()
        assert connected
        await sock.snapshot()
        await database_sync_to_async(ask)(trainer, workshop)
        await sock.send({"action": "cycle_detail", "index": ASKED})
        while True:
            message = await sock.ws.receive_output(timeout=30)
            if message["type"] == "websocket.close":
                return message["code"]

    assert async_to_sync(scenario)() == CLOSE_REFUSED


def test_detaching_waits_for_the_reveal(workshop, trainer, ana, presenter_run):
    question = ask(trainer, workshop)
    path = url(workshop, f"sandboxes/{ana_sandbox(workshop).pk}/detach/")
    refused = ana.post(path, {}, format="json")
    assert refused.status_code == 409
    assert refused.json() == {"detail": [f"a question on cycle {ASKED} is open: your sandbox "
                                         "waits until the reveal"]}
    reveal(trainer, workshop, question)
    assert ana.post(path, {"cycles": 0}, format="json").status_code == 201


def test_no_cluster_to_run_while_a_question_is_open(workshop, trainer, ana, presenter_run):
    lesson = workshop.lessons.get().cluster_id
    assert ana.get(f"/api/clusters/{lesson}/").status_code == 200
    question = ask(trainer, workshop)
    assert ana.get(f"/api/clusters/{lesson}/").status_code == 404
    made = ana.post("/api/runs/", {"cluster": lesson, "seed": 1}, format="json")
    assert made.status_code == 400 and "cluster" in made.json()
    assert ana.post(f"/api/clusters/{lesson}/compare/", {}, format="json").status_code == 404
    reveal(trainer, workshop, question)
    assert ana.get(f"/api/clusters/{lesson}/").status_code == 200
