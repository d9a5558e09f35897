"""A workshop on the taints-affinity lesson: its trainer, two attendees (Ana and Ben), an
outsider with an account of their own, and anonymous clients."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from playground.runs import sessions as run_sessions
from playground.workshops import services
from playground.workshops.models import Sandbox
from tests.helpers import finish_run, import_fixture, make_user


@pytest.fixture(autouse=True)
def _fresh_sessions(embedded_mode):
    run_sessions.sessions.clear()
    cache.clear()  # the join throttle's counts
    yield
    run_sessions.sessions.clear()


@pytest.fixture
def trainer_user(db):
    return make_user("trainer")


@pytest.fixture
def workshop(trainer_user):
    lesson = import_fixture(trainer_user, "taints-affinity.yaml", cluster_name="taints-affinity")
    return services.workshop_create(trainer=trainer_user, title="Filter 101", clusters=[lesson])


def joined(workshop, name: str) -> APIClient:
    client = APIClient()
    response = client.post("/api/workshops/join/", {"code": workshop.code,
                                                     "display_name": name}, format="json")
    assert response.status_code == 200, response.content
    client.attendee_id = response.json()["me"]["attendee"]
    return client


@pytest.fixture
def trainer(trainer_user):
    client = APIClient()
    client.force_login(trainer_user)
    return client


@pytest.fixture
def ana(workshop):
    return joined(workshop, "Ana")


@pytest.fixture
def ben(workshop):
    return joined(workshop, "Ben")


@pytest.fixture
def outsider(db):
    client = APIClient()
    client.force_login(make_user("outsider"))
    return client


@pytest.fixture
def presented(workshop):
    """The lesson on the projector, its run finished (every cycle stored)."""
    lesson = workshop.lessons.get()
    run = services.workshop_present(workshop=workshop, lesson=lesson)
    finish_run(run)
    workshop.refresh_from_db()
    return run


def url(workshop, tail: str = "") -> str:
    return f"/api/workshops/{workshop.code}/{tail}"


def sandbox_of(client, workshop) -> int:
    return client.get(url(workshop, "sandboxes/")).json()[0]["id"]


@pytest.fixture
def room(workshop, trainer, ana, ben, outsider, anon):
    """Every kind of caller: the trainer, Ana and Ben (attendees), an outsider, anonymous."""
    return {"trainer": trainer, "ana": ana, "ben": ben, "outsider": outsider, "anon": anon}


def ana_sandbox(workshop):
    return Sandbox.objects.get(attendee__workshop=workshop, attendee__display_name="Ana")
