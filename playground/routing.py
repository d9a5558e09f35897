"""WebSocket routes, served by playground.asgi under AuthMiddlewareStack."""

from django.urls import path

from playground.consumers import RunConsumer

websocket_urlpatterns = [
    path("ws/runs/<int:pk>/", RunConsumer.as_asgi()),
]
