"""The Celery app: ``celery -A playground worker -l info``.

Configuration comes from Django settings (``CELERY_*``). Task modules: every installed
Django app's ``tasks`` module, plus those of the feature folders, which are not apps
(``include``: ``playground.tasking.task_named`` imports them too).

A worker's database connections come from the pool the settings give every process on
PostgreSQL. Celery's Django fixup closes them before and after each task, which hands them
back to the pool, so the next task's are open already (--pool=solo, as the scripts and tests
run workers, or threads). Under the prefork pool Celery closes a child's whole pool after
each task instead: a task there connects anew.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")

app = Celery("playground", include=["playground.runs.tasks", "playground.whatif.tasks"])
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
