"""playground.asgi: HTTP and WebSocket routing."""

import pytest
from asgiref.sync import async_to_sync
from channels.routing import ProtocolTypeRouter
from channels.testing import HttpCommunicator, WebsocketCommunicator
from django.conf import settings

from playground.asgi import application
from playground.routing import websocket_urlpatterns


def test_the_setting_points_at_a_protocol_router():
    assert settings.ASGI_APPLICATION == "playground.asgi.application"
    assert isinstance(application, ProtocolTypeRouter)
    assert set(application.application_mapping) == {"http", "websocket"}
    assert isinstance(websocket_urlpatterns, list)


@pytest.mark.django_db(transaction=True)
def test_http_is_served_over_asgi(embedded_mode):
    async def get():
        communicator = HttpCommunicator(
            application, "GET", "/healthz", headers=[(b"host", b"127.0.0.1")]
        )
        return await communicator.get_response(timeout=10)

    response = async_to_sync(get)()
    assert response["status"] == 200
    assert b'"ok": true' in response["body"]


@pytest.mark.django_db(transaction=True)
def test_websockets_from_a_foreign_origin_are_refused():
    async def connect():
        communicator = WebsocketCommunicator(
            application, "/ws/anything/", headers=[(b"origin", b"https://evil.example")]
        )
        connected, _ = await communicator.connect(timeout=5)
        await communicator.disconnect()
        return connected

    assert async_to_sync(connect)() is False
