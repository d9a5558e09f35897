"""Fixtures shared by the web app's tests (builders are in tests/helpers.py)."""
import pytest
from rest_framework.test import APIClient

from tests.helpers import make_user


@pytest.fixture
def embedded_mode(settings):
    """Embedded settings whatever the environment: in-memory layer, in-process tasks."""
    settings.PLAYGROUND_TASK_MODE = "embedded"
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    return settings


@pytest.fixture
def fresh_sessions(embedded_mode):
    """Embedded mode, and no run session kept in this process's LRU from another test."""
    from playground.runs import sessions as run_sessions

    run_sessions.sessions.clear()
    yield embedded_mode
    run_sessions.sessions.clear()


@pytest.fixture
def alice(db):
    return make_user("alice")


@pytest.fixture
def bob(db):
    return make_user("bob")


@pytest.fixture
def anon(db):
    """A client signed in as nobody."""
    return APIClient()
