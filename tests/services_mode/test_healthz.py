"""/healthz in services mode: PostgreSQL, channels-redis and the Redis broker all ok."""

import pytest

pytestmark = [pytest.mark.services, pytest.mark.django_db]


@pytest.fixture
def report(client):
    response = client.get("/healthz")
    return response.status_code, response.json()


def test_it_returns_200_when_all_ok(report):
    status, body = report
    assert status == 200, body
    assert body["ok"] is True


def test_it_reports_database_ok(report):
    _, body = report
    assert body["database"]["ok"] is True
    assert body["database"]["vendor"] == "postgresql"


def test_it_reports_channel_layer_ok(report):
    _, body = report
    assert body["channel_layer"]["ok"] is True
    assert body["channel_layer"]["backend"] == "channels_redis.core.RedisChannelLayer"


def test_it_reports_broker_ok(report):
    _, body = report
    assert body["broker"]["ok"] is True
    assert body["broker"]["mode"] == "services"
