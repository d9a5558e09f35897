"""WebSocket routes, served by playground.asgi under AuthMiddlewareStack."""

from django.urls import path

from playground.runs.consumer import RunConsumer
from playground.workshops.consumers import WorkshopConsumer

websocket_urlpatterns = [
    path("ws/runs/<int:pk>/", RunConsumer.as_asgi()),
    path("ws/workshops/<str:code>/", WorkshopConsumer.as_asgi()),
]
