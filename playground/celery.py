"""The Celery app: ``celery -A playground worker -l info``.

Configuration comes from Django settings (``CELERY_*``). Task modules: every installed
Django app's ``tasks`` module, plus those of the feature folders, which are not apps
(``include``: ``playground.tasking.task_named`` imports them too).
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")

app = Celery("playground", include=["playground.runs.tasks", "playground.whatif.tasks"])
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
