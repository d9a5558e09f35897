#!/usr/bin/env python3
"""End-to-end rate of a run: cycles per second that reach a websocket client.

    .venv/bin/python scripts/bench_stream.py [--fixture fixtures/scale-500.yaml] [--seed 1]
                                             [--mode embedded|services]

It imports the fixture as a cluster of a throw-away user, creates a run, connects a
websocket client (channels' WebsocketCommunicator on playground.asgi, so the real consumer,
channel layer and throttle) and starts the run; it counts the cycle events the client receives
until the run is finished and prints the rate, with the engine's own rate (the same
observers, no database, no stream) for comparison. The user and what it owns are deleted at
the end.

- embedded (no REDIS_URL): a fresh SQLite file in a temporary directory, tasks on the
  in-process thread pool, the in-memory channel layer: what `./scripts/serve` runs.
- services (DATABASE_URL and REDIS_URL set): the configured PostgreSQL and Redis, with a
  real `celery worker` subprocess started by this script and channels-redis.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--fixture", default=str(ROOT / "fixtures" / "scale-500.yaml"))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--mode", choices=("embedded", "services"), default=None,
                   help="default: services if REDIS_URL is set, else embedded")
    p.add_argument("--timeout", type=float, default=1800.0)
    return p.parse_args(argv)


def setup_django(mode: str, tmp: str) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")
    os.environ.setdefault("DJANGO_DEBUG", "1")
    if mode == "embedded":
        for name in ("DATABASE_URL", "REDIS_URL"):
            os.environ.pop(name, None)
    import django
    from django.conf import settings

    if mode == "embedded":
        settings.DATABASES["default"]["NAME"] = str(Path(tmp) / "bench.sqlite3")
    django.setup()
    from django.core.management import call_command

    if mode == "embedded":
        call_command("migrate", verbosity=0)


def start_worker(tmp: str):
    from playground import celery_app

    nodename = f"bench-{uuid.uuid4().hex[:8]}@{socket.gethostname()}"
    log = open(Path(tmp) / "worker.log", "wb")  # the worker writes it until it stops
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "playground", "worker", "--pool=solo",
         "--loglevel=WARNING", "--hostname", nodename, "--without-gossip", "--without-mingle"],
        cwd=ROOT, env=os.environ.copy(), stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while not celery_app.control.ping(destination=[nodename], timeout=1.0):
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"celery worker did not start; see {log.name}")
    return process


def engine_rate(run) -> tuple[int, float]:
    """Cycles per second of the engine alone, observed as the run task observes it."""
    import copy

    from playground.engine import out_of_tree_plugins
    from playground.runs.executor import _Collector
    from scheduler_core.session import RunSession

    session = RunSession(copy.deepcopy(run.sources()), run.config or None, seed=run.seed,
                         out_of_tree=out_of_tree_plugins())
    started = time.perf_counter()
    cycles = 0
    while not session.finished:
        collector = _Collector({})
        cycles += session.advance(25, observer=collector.observer)
    return cycles, time.perf_counter() - started


async def stream(run_id: int, cookie: str, start, timeout: float) -> dict:
    from channels.testing import WebsocketCommunicator

    from playground.asgi import application

    ws = WebsocketCommunicator(application, f"/ws/runs/{run_id}/", headers=[
        (b"origin", b"http://localhost"), (b"host", b"localhost"), (b"cookie", cookie.encode())])
    connected, _ = await ws.connect(timeout=30)
    if not connected:
        raise SystemExit("the websocket was refused")
    frames = cycles = largest = 0
    first_frame = None
    began = time.perf_counter()
    await start()
    deadline = began + timeout
    while True:
        text = await ws.receive_from(timeout=max(1.0, deadline - time.perf_counter()))
        frame = json.loads(text)
        largest = max(largest, len(text.encode()))
        if frame["type"] != "batch":
            continue
        frames += 1
        first_frame = first_frame or time.perf_counter()
        cycles += sum(1 for e in frame["events"] if e["kind"] == "cycle")
        if any(e["kind"] == "progress" and e["status"] not in ("running",)
               for e in frame["events"]):
            break
    elapsed = time.perf_counter() - began
    await ws.disconnect()
    return {"cycles": cycles, "seconds": elapsed, "frames": frames, "largest": largest,
            "frames_per_second": frames / max(elapsed, 1e-9)}


def main(argv=None) -> int:
    args = parse_args(argv)
    mode = args.mode or ("services" if os.environ.get("REDIS_URL") else "embedded")
    if mode == "services" and not (os.environ.get("DATABASE_URL")
                                   and os.environ.get("REDIS_URL")):
        raise SystemExit("--mode services needs DATABASE_URL and REDIS_URL")
    with tempfile.TemporaryDirectory() as tmp:
        setup_django(mode, tmp)
        from asgiref.sync import sync_to_async
        from django.conf import settings
        from django.contrib.auth.models import User
        from django.test import Client

        from playground import tasking
        from playground.clusters.services import cluster_import
        from playground.runs import services as runs
        from playground.runs.services import run_create

        fixture = Path(args.fixture)
        user = User.objects.create_user(f"bench-{uuid.uuid4().hex[:8]}", password="x")
        worker = None
        try:
            cluster, _ = cluster_import(
                owner=user, name=fixture.name, files=[(fixture.name, fixture.read_text())])
            run = run_create(cluster=cluster, seed=args.seed, owner=user)
            client = Client()
            client.force_login(user)
            cookie = f"{settings.SESSION_COOKIE_NAME}=" \
                     f"{client.cookies[settings.SESSION_COOKIE_NAME].value}"
            if mode == "services":
                worker = start_worker(tmp)

            async def start():
                await sync_to_async(runs.run_start)(run=run, user=user)

            result = asyncio.run(stream(run.pk, cookie, start, args.timeout))
            if mode == "embedded":
                tasking.wait_for_embedded_tasks(timeout=60)
            run.refresh_from_db()
            engine_cycles, engine_seconds = engine_rate(run)
        finally:
            if worker is not None:
                worker.terminate()
                worker.wait(timeout=30)
            user.delete()
    print(f"mode:              {mode}")
    print(f"fixture:           {fixture.name} (seed {args.seed})")
    print(f"run:               {run.status}, {run.cycle_count} cycles, {run.pods_bound} pods "
          "bound")
    print(f"streamed:          {result['cycles']} cycles in {result['seconds']:.2f}s = "
          f"{result['cycles'] / result['seconds']:.1f} cycles/s")
    print(f"frames:            {result['frames']} batches, "
          f"{result['frames_per_second']:.1f}/s, largest frame {result['largest']} bytes")
    print(f"engine alone:      {engine_cycles} cycles in {engine_seconds:.2f}s = "
          f"{engine_cycles / engine_seconds:.1f} cycles/s")
    return 0 if run.status == "finished" and result["cycles"] == run.cycle_count else 1


if __name__ == "__main__":
    sys.exit(main())
