"""/healthz in embedded mode (and with each part failing)."""

import pytest
from django.db import OperationalError

from playground.site import health

pytestmark = pytest.mark.django_db

UNREACHABLE_REDIS = "redis://127.0.0.1:1/0"  # nothing listens on port 1


@pytest.fixture
def report(client, embedded_mode):
    response = client.get("/healthz")
    return response.status_code, response.json()


def test_it_reports_database_ok(report):
    status, body = report
    assert body["database"]["ok"] is True
    assert body["database"]["vendor"] in {"sqlite", "postgresql"}


def test_it_reports_channel_layer_ok(report):
    _, body = report
    assert body["channel_layer"]["ok"] is True
    assert body["channel_layer"]["backend"] == "channels.layers.InMemoryChannelLayer"


def test_it_reports_broker_embedded(report):
    _, body = report
    assert body["broker"] == {
        "ok": True,
        "mode": "embedded",
        "detail": "tasks run inside the server process",
    }


def test_it_returns_200_when_all_ok(report):
    status, body = report
    assert status == 200
    assert body["ok"] is True


def test_it_needs_no_login(client, embedded_mode):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"


def test_it_is_never_cached(client, embedded_mode):
    response = client.get("/healthz")
    assert "no-cache" in response["Cache-Control"]


def test_it_returns_503_when_the_database_fails(client, embedded_mode, monkeypatch):
    class BrokenConnection:
        vendor = "sqlite"

        def cursor(self):
            raise OperationalError("unable to open database file")

    monkeypatch.setattr(health, "connection", BrokenConnection())
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 503
    assert body["ok"] is False
    assert body["database"]["ok"] is False
    assert "unable to open database file" in body["database"]["error"]
    assert body["channel_layer"]["ok"] is True


def test_it_returns_503_when_the_channel_layer_is_unreachable(client, embedded_mode):
    embedded_mode.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [UNREACHABLE_REDIS]},
        }
    }
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 503
    assert body["channel_layer"]["ok"] is False
    assert body["channel_layer"]["backend"] == "channels_redis.core.RedisChannelLayer"
    assert body["channel_layer"]["error"]
    assert body["database"]["ok"] is True


def test_it_returns_503_when_the_broker_is_unreachable(client, embedded_mode):
    embedded_mode.PLAYGROUND_TASK_MODE = "services"
    embedded_mode.CELERY_BROKER_URL = UNREACHABLE_REDIS
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 503
    assert body["broker"]["ok"] is False
    assert body["broker"]["mode"] == "services"
    assert "Connection" in body["broker"]["error"]


def test_it_is_exempt_from_the_https_redirect(client, embedded_mode):
    embedded_mode.SECURE_SSL_REDIRECT = True
    assert client.get("/").status_code == 301
    assert client.get("/healthz").status_code == 200
