"""Fixtures for tests against real PostgreSQL and Redis (run with --services).

Nothing here skips: an unreachable server is a failure.
"""

import os
import socket
import subprocess
import sys
import time
import uuid

import pytest

from tests.helpers import ROOT

WORKER_START_TIMEOUT = 60  # seconds


@pytest.fixture(scope="session")
def celery_worker(tmp_path_factory):
    """A real `celery worker` process on the configured broker, stopped at the end."""
    from playground import celery_app

    nodename = f"pytest-{uuid.uuid4().hex[:8]}@{socket.gethostname()}"
    log_path = tmp_path_factory.mktemp("celery") / "worker.log"
    command = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "playground",
        "worker",
        "--pool=solo",
        "--loglevel=INFO",
        "--hostname",
        nodename,
        "--without-gossip",
        "--without-mingle",
    ]
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            command, cwd=ROOT, env=os.environ.copy(), stdout=log, stderr=subprocess.STDOUT
        )

    def output():
        return log_path.read_text(errors="replace")

    try:
        deadline = time.monotonic() + WORKER_START_TIMEOUT
        while True:
            if process.poll() is not None:
                pytest.fail(f"celery worker exited with {process.returncode}:\n{output()}")
            if celery_app.control.ping(destination=[nodename], timeout=1.0):
                break
            if time.monotonic() > deadline:
                pytest.fail(f"celery worker not ready in {WORKER_START_TIMEOUT}s:\n{output()}")
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
