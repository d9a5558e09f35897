"""Settings of the Celery workers the run tests start: the project's, with a short lease.

A worker killed mid-run is noticed once its lease runs out; three seconds keeps the test short.
The workers take (and send) tasks on a queue of the test's own (RUNS_TEST_QUEUE), so a
worker started by another test, on another database, never gets a run task of this one.
"""

import os

from playground.settings import *  # noqa: F403

PLAYGROUND_RUN_LEASE_SECONDS = 3
CELERY_TASK_DEFAULT_QUEUE = os.environ["RUNS_TEST_QUEUE"]
