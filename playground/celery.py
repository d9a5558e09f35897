"""The Celery app: ``celery -A playground worker -l info``.

Configuration comes from Django settings (``CELERY_*``). Task modules: every installed
Django app's ``tasks`` module, plus those of the feature folders, which are not apps
(``include``: ``playground.tasking.task_named`` imports them too).
"""

import os

from celery import Celery
from celery.signals import worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")

app = Celery("playground", include=["playground.runs.tasks", "playground.whatif.tasks"])
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_init.connect
def _keep_database_connections(**kwargs):
    """A worker's threads live as long as it does: each keeps its database connection for
    PLAYGROUND_WORKER_CONN_MAX_AGE seconds (closed sooner if unusable) instead of the server's
    0, under which every task opened a new one (15-25 ms on PostgreSQL, more under load)
    before a run's step could start. Celery's Django fixup closes a connection between tasks
    only once it is unusable or that old."""
    from django.conf import settings
    from django.db import connections

    for alias in connections:
        connections[alias].settings_dict["CONN_MAX_AGE"] = settings.PLAYGROUND_WORKER_CONN_MAX_AGE
