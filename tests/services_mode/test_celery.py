"""A Celery task makes the round trip through Redis to a real worker process."""

import uuid

import pytest
from django.conf import settings

from playground import celery_app
from playground.runs.tasks import ping

pytestmark = pytest.mark.services


def test_celery_uses_the_redis_broker_and_backend():
    assert settings.PLAYGROUND_TASK_MODE == "services"
    assert celery_app.conf.broker_url == settings.REDIS_URL
    assert celery_app.conf.result_backend == settings.REDIS_URL
    assert celery_app.conf.task_always_eager is False
    assert celery_app.conf.task_acks_late is True
    assert celery_app.conf.worker_prefetch_multiplier == 1
    assert celery_app.conf.task_reject_on_worker_lost is True


def test_ping_round_trips_through_a_real_worker(celery_worker):
    value = f"ping-{uuid.uuid4().hex}"
    result = ping.delay(value)
    assert result.get(timeout=30) == value
    assert result.successful()
    assert celery_worker.poll() is None  # the worker is still up


def test_several_tasks_round_trip(celery_worker):
    results = [ping.delay(n) for n in range(5)]
    assert [r.get(timeout=30) for r in results] == list(range(5))
