"""A workshop across two ASGI processes behind channels-redis, with a Celery worker.

The trainer drives the presenter's run through one daphne process, an attendee follows on
another: the run's frames (sent by the worker), the question asked and the reveal (sent by
this process) all reach the attendee through Redis, with the asked cycle concealed until
the reveal. Another attendee's socket on the second process is refused the first one's run.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time

import pytest
import websockets
from asgiref.sync import async_to_sync, sync_to_async

from playground.workshops import services
from tests.helpers import ROOT, import_cluster, make_user
from tests.services_mode.conftest import database_url
from tests.services_mode.test_runs_services import session_cookie

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

START_TIMEOUT = 60
FRAME_TIMEOUT = 60


class AsgiServers:
    """daphne processes on the test database and the workers' task queue."""

    def __init__(self, tmp_path, queue: str):
        self.tmp_path, self.queue = tmp_path, queue
        self.processes: list[tuple[subprocess.Popen, object]] = []

    def start(self, name: str) -> str:
        import socket

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        env = {**os.environ, "DATABASE_URL": database_url(), "RUNS_TEST_QUEUE": self.queue,
               "DJANGO_SETTINGS_MODULE": "tests.services_mode.run_worker_settings",
               "DJANGO_DEBUG": "1"}
        log_path = self.tmp_path / f"{name}.log"
        with open(log_path, "wb") as log:
            process = subprocess.Popen(
                [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
                 "playground.asgi:application"],
                cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        self.processes.append((process, log_path))
        base = f"127.0.0.1:{port}"
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    return base
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"{name} did not start:\n{log_path.read_text()}")
                time.sleep(0.2)

    def logs(self) -> str:
        return "\n".join(f"--- {path.name}\n{path.read_text(errors='replace')[-4000:]}"
                         for _, path in self.processes)

    def stop(self) -> None:
        for process, _ in self.processes:
            process.terminate()
        for process, _ in self.processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()


@pytest.fixture
def servers(tmp_path, workers):
    pool = AsgiServers(tmp_path, workers.queue)
    try:
        yield pool
    finally:
        pool.stop()


async def open_socket(base: str, path: str, cookie: bytes):
    return await websockets.connect(
        f"ws://{base}{path}", max_size=None, open_timeout=30,
        additional_headers={"Cookie": cookie.decode(), "Origin": f"http://{base}"})


async def until(ws, predicate, frames: list) -> dict:
    async def read():
        while True:
            frame = json.loads(await ws.recv())
            frames.append(frame)
            if predicate(frame):
                return frame
    return await asyncio.wait_for(read(), FRAME_TIMEOUT)


def batch_with_cycle(frame) -> bool:
    return frame["type"] == "batch" and any(e.get("kind") == "cycle" for e in frame["events"])


def test_an_attendee_on_one_server_follows_a_trainer_on_another(workers, servers):
    trainer = make_user("trainer")
    lesson = import_cluster(trainer, "taints-affinity.yaml")
    workshop = services.workshop_create(trainer=trainer, title="two servers", clusters=[lesson])
    run = services.workshop_present(workshop=workshop, lesson=workshop.lessons.get())
    ana = services.workshop_join(code=workshop.code, display_name="Ana")
    ben = services.workshop_join(code=workshop.code, display_name="Ben")
    ana_sandbox_run = services.sandbox_detach(sandbox=ana.sandboxes.get(), cycles=0)
    workers.start()
    first, second = servers.start("asgi-1"), servers.start("asgi-2")
    cookies = {who: session_cookie(user) for who, user in
               (("trainer", trainer), ("ana", ana.user), ("ben", ben.user))}

    async def scenario():
        frames: list[dict] = []
        follower = await open_socket(second, f"/ws/workshops/{workshop.code}/", cookies["ana"])
        await until(follower, lambda f: f["type"] == "snapshot", frames)
        driver = await open_socket(first, f"/ws/runs/{run.pk}/", cookies["trainer"])
        await until(driver, lambda f: f["type"] == "snapshot", [])
        question = await sync_to_async(services.question_ask)(workshop=workshop,
                                                               point="Filter")
        asked = await until(follower, lambda f: f["type"] == "workshop", frames)
        await driver.send(json.dumps({"action": "step", "cycles": 1}))
        hidden = await until(follower, batch_with_cycle, frames)
        await sync_to_async(services.prediction_submit)(question=question, attendee=ana,
                                                        answer=["node-a"])
        await sync_to_async(services.question_reveal)(question=question)
        revealed = await until(follower, lambda f: f["type"] == "workshop"
                               and f["event"]["kind"] == "revealed", frames)
        after = await until(follower, lambda f: f["type"] == "snapshot", frames)
        for ws in (follower, driver):
            await ws.close()
        try:
            intruder = await open_socket(second, f"/ws/runs/{ana_sandbox_run.pk}/",
                                         cookies["ben"])
            await intruder.recv()
            refused = None
        except websockets.exceptions.InvalidStatus as exc:
            refused = exc.response.status_code
        except websockets.exceptions.ConnectionClosed as exc:
            refused = exc.rcvd.code if exc.rcvd else None
        return asked, hidden, revealed, after, refused

    try:
        asked, hidden, revealed, after, refused = async_to_sync(scenario)()
    except (TimeoutError, OSError) as exc:
        pytest.fail(f"{exc!r}\n{servers.logs()}\n{workers.logs()}")
    assert asked["event"]["question"]["point"] == "Filter"
    cycle = next(e for e in hidden["events"] if e["kind"] == "cycle")
    assert cycle["index"] == 0 and cycle["hidden"] is True and "outcome" not in cycle
    assert revealed["event"]["mine"] == {"answer": ["node-a"], "correct": True}
    assert after["cycles"][0]["outcome"] == "Bound" and after["cycles"][0]["node"] == "node-a"
    assert refused in (403, 4403)
