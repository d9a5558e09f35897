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
def alice(db):
    return make_user("alice")


@pytest.fixture
def bob(db):
    return make_user("bob")


@pytest.fixture
def anon(db):
    """A client signed in as nobody."""
    return APIClient()
