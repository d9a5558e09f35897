"""The what-if tasks: a capacity plan, and a sweep's variants and its finish, as background
work (a Celery worker, or the embedded threads), started through playground.tasking; they
take ids."""
from celery import shared_task

from playground.whatif import services, sweeps


@shared_task(name=services.PLAN_RUN, acks_late=True, reject_on_worker_lost=True)
def plan_run(job_id):
    services.plan_execute(job_id=job_id)


@shared_task(name=sweeps.SWEEP_VARIANT, acks_late=True, reject_on_worker_lost=True)
def sweep_variant(variant_id):
    sweeps.sweep_variant_execute(variant_id=variant_id)


@shared_task(name=sweeps.SWEEP_FINISH, acks_late=True, reject_on_worker_lost=True)
def sweep_finish(sweep_id):
    sweeps.sweep_finish(sweep_id=sweep_id)
