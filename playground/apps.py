from functools import partial

from django.apps import AppConfig
from django.core.handlers.asgi import ASGIHandler
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_started
from django.db.backends.signals import connection_created

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


def check_the_whole_pool_on_a_dead_connection(sender, connection, **kwargs) -> None:
    """A PostgreSQL pool (settings: OPTIONS["pool"]) that finds one of its connections dead
    checks all its idle ones at once (psycopg_pool's `check()`), replacing the dead.

    A database restart or pg_terminate_backend kills every idle connection of every pool, and
    psycopg_pool checks one per attempt, waiting 0, 1, 2, 4... s between attempts: a pool
    that a burst had grown to 9 connections made its next caller wait 30 s, then fail."""
    pool = getattr(connection, "pool", None)  # None: not PostgreSQL, or no pool
    if pool is None or getattr(pool._check, "sweeps", False):
        return
    check = partial(_check_or_sweep, pool)
    check.sweeps = True
    pool._check = check  # Django passes the pool its check; none of ours can be added


def _check_or_sweep(pool, conn) -> None:
    try:
        pool.check_connection(conn)
    except Exception:
        pool.check()
        raise


class PlaygroundConfig(AppConfig):
    name = "playground"
    verbose_name = "Scheduling playground"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        request_started.connect(recover_embedded_runs, dispatch_uid=RECOVERY_UID)
        connection_created.connect(check_the_whole_pool_on_a_dead_connection)
