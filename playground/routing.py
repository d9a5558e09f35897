"""WebSocket routes, served by playground.asgi under AuthMiddlewareStack.

Add consumers here, e.g. ``path("ws/runs/<int:pk>/", RunConsumer.as_asgi())``.
"""

websocket_urlpatterns = []
