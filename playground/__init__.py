"""The scheduling playground: Django project package and Django app in one.

The Celery app is imported here so that ``@shared_task`` functions bind to it.
"""

from playground.celery import app as celery_app

__all__ = ("celery_app",)
