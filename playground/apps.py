from django.apps import AppConfig
from django.core.handlers.asgi import ASGIHandler
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_started

RECOVERY_UID = "playground-recover-embedded-runs"


def recover_embedded_runs(sender, **kwargs) -> None:
    """On the first request a real server (not the test client) handles in embedded mode:
    runs left running by the previous server process go on. Migrations, shells and tests
    never get here, and it runs once per process."""
    if sender not in (ASGIHandler, WSGIHandler):
        return
    request_started.disconnect(dispatch_uid=RECOVERY_UID)
    # Imported here: they import models, which apps.py must not do before the registry is ready.
    from playground import tasking
    from playground.runs import services as runs

    if not tasking.services_mode():
        runs.recover_after_restart()


class PlaygroundConfig(AppConfig):
    name = "playground"
    verbose_name = "Scheduling playground"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        request_started.connect(recover_embedded_runs, dispatch_uid=RECOVERY_UID)
