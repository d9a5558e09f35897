"""ASGI entry point: ``daphne playground.asgi:application`` (and ``manage.py runserver``).

HTTP goes to Django; WebSocket connections pass the allowed-hosts origin check and the
session auth middleware, then ``playground.routing.websocket_urlpatterns``.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")

# Set Django up before importing anything that touches models (consumers, routing).
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from playground import tasking  # noqa: E402
from playground.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        # Embedded tasks run on worker threads and reach the in-memory channel layer
        # through the server's event loop, which this middleware remembers.
        "http": tasking.RememberServerLoopMiddleware(django_asgi_app),
        "websocket": tasking.RememberServerLoopMiddleware(
            AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns)))
        ),
    }
)
