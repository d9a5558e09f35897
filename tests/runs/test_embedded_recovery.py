"""Embedded mode: runs left `running` when the server stopped go on when it starts again, on
the first request a real server handles; the test client, shells and migrations never
trigger it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.handlers.asgi import ASGIHandler
from django.core.signals import request_started
from django.test.client import ClientHandler
from django.utils import timezone

from playground import apps
from playground.runs import services as runs
from playground.runs.models import Run
from tests.helpers import make_user, new_run, reference

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _embedded(fresh_sessions):
    yield
    request_started.connect(apps.recover_embedded_runs, dispatch_uid=apps.RECOVERY_UID)


def _left_running(run, user, *, cycles: int) -> None:
    """What a server killed mid-run leaves: some cycles stored, a lease not yet expired."""
    runs.run_step(run=run, user=user, cycles=cycles)
    Run.objects.filter(pk=run.pk).update(status=Run.RUNNING, target_cycle=None,
                                         lock_token="old-process",
                                         lock_expires=timezone.now() + timedelta(minutes=5))


def test_a_run_left_running_finishes_after_the_restart():
    alice = make_user("alice")
    run = new_run(alice)
    _left_running(run, alice, cycles=2)
    apps.recover_embedded_runs(sender=ASGIHandler)
    run.refresh_from_db()
    assert run.status == Run.FINISHED
    assert run.cycle_count == len(reference("gpu-cluster.yaml", seed=3)["cycles"])


def test_the_test_client_does_not_trigger_recovery():
    alice = make_user("alice")
    run = new_run(alice)
    _left_running(run, alice, cycles=2)
    apps.recover_embedded_runs(sender=ClientHandler)
    run.refresh_from_db()
    assert (run.status, run.cycle_count) == (Run.RUNNING, 2)


def test_recovery_runs_once_per_process(monkeypatch):
    calls = []
    monkeypatch.setattr(runs, "recover_after_restart", lambda: calls.append(1) or [])
    apps.recover_embedded_runs(sender=ASGIHandler)
    request_started.send(sender=ASGIHandler)
    assert calls == [1]


def test_services_mode_leaves_recovery_to_the_run_recover_task(settings, monkeypatch):
    settings.PLAYGROUND_TASK_MODE = "services"
    calls = []
    monkeypatch.setattr(runs, "recover_after_restart", lambda: calls.append(1) or [])
    apps.recover_embedded_runs(sender=ASGIHandler)
    assert calls == []
