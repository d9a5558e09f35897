"""The plan task: a capacity plan as background work (a Celery worker, or the embedded
threads), started through playground.tasking.enqueue_on_commit; it takes the job's id."""
from celery import shared_task

from playground.whatif import services


@shared_task(name=services.PLAN_RUN, acks_late=True, reject_on_worker_lost=True)
def plan_run(job_id):
    services.plan_execute(job_id=job_id)
