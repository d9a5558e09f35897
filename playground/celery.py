"""The Celery app: ``celery -A playground worker -l info``.

Configuration comes from Django settings (``CELERY_*``). Task modules: every installed
Django app's ``tasks`` module, plus ``scheduler_core.tasks`` (plain Python, not an app).
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")

app = Celery("playground", include=["scheduler_core.tasks"])
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
