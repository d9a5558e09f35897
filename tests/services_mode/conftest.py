"""Fixtures for tests against real PostgreSQL and Redis (run with --services).

Nothing here skips: an unreachable server is a failure.
"""

import os
import socket
import subprocess
import sys
import time
import uuid
from urllib.parse import quote

import pytest
from django.conf import settings

from playground.runs import sessions as run_sessions
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


# --- Run workers on the test database (the run and fault tests) ---------------------------

LEASE = 3  # seconds, as tests/services_mode/run_worker_settings.py sets it for the workers


def database_url() -> str:
    """The test database (pytest-django's), for the worker processes."""
    db = settings.DATABASES["default"]
    auth = quote(db["USER"] or "", safe="")
    if db.get("PASSWORD"):
        auth += ":" + quote(db["PASSWORD"], safe="")
    host = db.get("HOST") or "127.0.0.1"
    port = db.get("PORT") or 5432
    return f"postgres://{auth}@{host}:{port}/{db['NAME']}"


class Workers:
    """Celery worker processes on the test database; each killed or stopped at the end."""

    def __init__(self, tmp_path, queue: str):
        self.tmp_path = tmp_path
        self.queue = queue
        self.processes: list[tuple[subprocess.Popen, object]] = []

    def start(self) -> subprocess.Popen:
        from playground import celery_app

        nodename = f"runs-{uuid.uuid4().hex[:8]}@{socket.gethostname()}"
        log_path = self.tmp_path / f"{nodename.split('@')[0]}.log"
        env = {**os.environ, "DATABASE_URL": database_url(), "RUNS_TEST_QUEUE": self.queue,
               "DJANGO_SETTINGS_MODULE": "tests.services_mode.run_worker_settings"}
        with open(log_path, "wb") as log:
            process = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "playground", "worker", "--pool=solo",
                 "--loglevel=INFO", "--hostname", nodename, "--queues", self.queue,
                 "--without-gossip", "--without-mingle"],
                cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        self.processes.append((process, log_path))
        deadline = time.monotonic() + WORKER_START_TIMEOUT
        while not celery_app.control.ping(destination=[nodename], timeout=1.0):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"celery worker did not start:\n{log_path.read_text()}")
        return process

    def logs(self) -> str:
        return "\n".join(f"--- {path.name}\n{path.read_text(errors='replace')}"
                         for _, path in self.processes)

    def stop(self) -> None:
        for process, _ in self.processes:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=10)


@pytest.fixture
def workers(tmp_path, settings):
    """Start workers with workers.start(); this process sends tasks to their queue only."""
    from playground import celery_app

    settings.PLAYGROUND_RUN_LEASE_SECONDS = LEASE
    run_sessions.sessions.clear()
    queue = f"runs-test-{uuid.uuid4().hex[:12]}"
    default_queue = celery_app.conf.task_default_queue
    celery_app.conf.task_default_queue = queue  # the router reads it at each send
    pool = Workers(tmp_path, queue)
    try:
        yield pool
    finally:
        pool.stop()
        celery_app.conf.task_default_queue = default_queue
