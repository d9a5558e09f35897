"""Celery tasks of the scheduler core.

Start them through ``playground.tasking.enqueue_on_commit`` so they run the same way
with a Celery worker (services mode) and inside the server process (embedded mode).
"""

from celery import shared_task


@shared_task
def ping(value):
    """Return ``value`` unchanged: proves a task can make the round trip."""
    return value
