import pytest


@pytest.fixture
def embedded_mode(settings):
    """Embedded settings whatever the environment: in-memory layer, in-process tasks."""
    settings.PLAYGROUND_TASK_MODE = "embedded"
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    return settings
