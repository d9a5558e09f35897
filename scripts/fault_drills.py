#!/usr/bin/env python3
"""Fault drills against real services: PostgreSQL, Redis, a Celery worker, two ASGI servers.

    .venv/bin/python scripts/fault_drills.py [--followers 100] [--fixture fixtures/scale-500.yaml]

It creates a throw-away database (`fault_drills`) and uses Redis database 8, starts two daphne
processes and a Celery worker, and runs each drill of issue 29 in turn:

- quota race: 8 run starts at the same moment, over both servers, against a quota of 3;
- database connection dropped: pg_terminate_backend on every other connection mid-run;
- worker killed: SIGKILL of the worker mid-run, with a second worker already running;
- Redis connections dropped (what a Redis restart does to the servers' pools), then 40
  websockets opened over both servers;
- followers: --followers websocket clients following a whole run over both servers.

It prints a table: the fault, the result, the recovery time (from the fault to the run's next
stored cycle, or to the last socket in), the cycles lost (a follower's missing cycle indexes,
or stored cycles missing: must be 0) and whether the run's bindings are those of an
undisturbed run (`simulate` on the same input and seed: must be yes). It asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))
from workshop_load import PYTHON, Processes, base_env, connect  # noqa: E402

DB = "fault_drills"
REDIS = "redis://127.0.0.1:6379/8"
RUN_TIMEOUT = 900
QUOTA = 3
FOLLOWER_SILENCE = 60  # seconds without a frame before a follower gives up


def environment() -> dict:
    return {**base_env(), "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{DB}",
            "REDIS_URL": REDIS, "PLAYGROUND_QUOTA_CONCURRENT_RUNS": str(QUOTA),
            "PLAYGROUND_THROTTLE_RUN_START": "600/min"}


def psql(sql: str, database: str = DB) -> str:
    return subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-d", database, "-At",
                           "-c", sql], check=True, capture_output=True, text=True).stdout.strip()


# --- the playground's side, through Django (this process is on the same database) ----------


def django_setup(env: dict) -> None:
    os.environ.update(env)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")
    import django

    django.setup()


def new_user(name: str) -> tuple[object, str, str]:
    """A user, its API token and its session cookie."""
    from django.conf import settings
    from django.contrib.auth.models import User
    from django.test import Client
    from rest_framework.authtoken.models import Token

    user = User.objects.create_user(name, password=f"{name}-drills-1")
    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    return user, Token.objects.create(user=user).key, cookie


def new_cluster(user, fixture: Path):
    from playground.clusters.services import cluster_import

    cluster, _ = cluster_import(owner=user, name=fixture.stem,
                                files=[(fixture.name, fixture.read_text(encoding="utf-8"))])
    return cluster


def new_run(user, fixture: Path, seed: int, cluster=None):
    from playground.runs.services import run_create

    return run_create(cluster=cluster or new_cluster(user, fixture), seed=seed, owner=user)


def run_row(run_id: int):
    from django.db import connection

    from playground.runs.models import Run

    connection.close()  # a drill may have terminated this process's connection too
    return Run.objects.get(pk=run_id)


def stored_gaps(run_id: int, cycles: int) -> int:
    from playground.runs.models import CycleRecord

    stored = set(CycleRecord.objects.filter(run_id=run_id).values_list("index", flat=True))
    return len(set(range(cycles)) - stored)


def same_bindings(run_id: int, expected: dict) -> bool:
    from playground.runs.export import run_bindings

    return run_bindings(run_row(run_id)) == expected


def api(base: str, token: str, method: str, path: str) -> int:
    request = urllib.request.Request(f"http://{base}{path}", method=method, data=b"",
                                     headers={"Authorization": f"Token {token}"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def wait_cycles(run_id: int, above: int) -> float:
    """Seconds until the run has stored more than `above` cycles (or ended)."""
    start = time.monotonic()
    while time.monotonic() - start < RUN_TIMEOUT:
        run = run_row(run_id)
        if run.cycle_count > above or run.status != "running":
            return time.monotonic() - start
        time.sleep(0.1)
    raise SystemExit(f"run {run_id} did not go on within {RUN_TIMEOUT}s")


def wait_end(run_id: int):
    deadline = time.monotonic() + RUN_TIMEOUT
    while (run := run_row(run_id)).status == "running":
        if time.monotonic() > deadline:
            raise SystemExit(f"run {run_id} did not end within {RUN_TIMEOUT}s")
        time.sleep(0.2)
    return run


# --- the drills ------------------------------------------------------------------------------


def drill_quota(ctx) -> dict:
    user, token, _ = new_user("quota")
    cluster = new_cluster(user, ctx.fixture)
    runs = [new_run(user, ctx.fixture, seed, cluster) for seed in range(8)]
    answers: list[int] = []
    barrier = threading.Barrier(len(runs))

    def start(i: int, run_id: int) -> None:
        barrier.wait()
        answers.append(api(ctx.bases[i % 2], token, "POST", f"/api/runs/{run_id}/start/"))

    threads = [threading.Thread(target=start, args=(i, run.pk)) for i, run in enumerate(runs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    accepted = answers.count(202)
    for run in runs:  # leave the worker to the next drills
        api(ctx.bases[0], token, "POST", f"/api/runs/{run.pk}/pause/")
    return {"result": f"{accepted} of 8 accepted, {answers.count(403)} refused (quota {QUOTA})",
            "ok": accepted == QUOTA}


def _disturbed_run(ctx, name: str, at: int, fault) -> dict:
    user, token, _ = new_user(name)
    run = new_run(user, ctx.fixture, ctx.seed)
    assert api(ctx.bases[0], token, "POST", f"/api/runs/{run.pk}/start/") == 202
    wait_cycles(run.pk, at - 1)
    result = fault()
    at_fault = run_row(run.pk)
    if at_fault.status != "running":
        return {"result": f"{result}; the run had ended before the fault: drill void",
                "ok": False}
    at_fault = at_fault.cycle_count
    recovery = wait_cycles(run.pk, at_fault)
    end = wait_end(run.pk)
    lost = stored_gaps(run.pk, end.cycle_count)
    same = end.status == "finished" and end.cycle_count == ctx.expected_cycles and \
        same_bindings(run.pk, ctx.expected)
    return {"result": f"{result}; run {end.status} at cycle {end.cycle_count}",
            "recovery": recovery, "lost": lost, "same": same}


def drill_database(ctx) -> dict:
    def fault() -> str:
        killed = psql("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                      f"WHERE datname = '{DB}' AND pid <> pg_backend_pid()")
        return f"{killed} connections terminated"
    return _disturbed_run(ctx, "database", 50, fault)


def drill_worker(ctx) -> dict:
    def fault() -> str:
        from playground import celery_app

        # A solo-pool worker answers nothing while it runs a task: the busy one is silent.
        answered = celery_app.control.inspect(timeout=0.5).ping() or {}
        busy = [name for name in ctx.workers if name not in answered]
        if len(busy) != 1:
            return f"no single busy worker to kill ({busy})"
        ctx.workers.pop(busy[0]).send_signal(signal.SIGKILL)
        return "the run's worker killed (SIGKILL), the other one running"
    return _disturbed_run(ctx, "worker", 100, fault)


async def _open_sockets(ctx, run_id: int, cookie: str, count: int) -> tuple[int, float]:
    start = time.monotonic()

    async def one(i: int) -> bool:
        try:
            ws = await connect(ctx.bases[i % 2], f"/ws/runs/{run_id}/?state=0",
                               ctx.cookie_name, cookie)
            frame = json.loads(await asyncio.wait_for(ws.recv(), 30))
            await ws.close()
            return frame.get("type") == "snapshot"
        except Exception:
            return False

    results = await asyncio.gather(*(one(i) for i in range(count)))
    return results.count(False), time.monotonic() - start


def drill_redis(ctx) -> dict:
    user, _, cookie = new_user("redis")
    run = new_run(user, ctx.fixture, ctx.seed)
    asyncio.run(_open_sockets(ctx, run.pk, cookie, 4))  # the servers' pools are in use
    subprocess.run(["redis-cli", "CLIENT", "KILL", "TYPE", "normal"], check=True,
                   capture_output=True)
    failed, took = asyncio.run(_open_sockets(ctx, run.pk, cookie, 40))
    return {"result": f"{40 - failed} of 40 websockets in after the drop", "recovery": took,
            "lost": 0, "ok": failed == 0}


async def _follow(ctx, run_id: int, token: str, cookie: str, count: int) -> list[dict]:
    async def read(ws) -> dict:
        got, refills, seqs = set(), 0, []
        while True:
            try:  # a follower that hears nothing for a minute reports what it has
                text = await asyncio.wait_for(ws.recv(), FOLLOWER_SILENCE)
            except (TimeoutError, Exception):
                return {"got": got, "refills": refills, "seq_ok": False}
            frame = json.loads(text)
            seqs.append(frame.get("seq"))
            got.update(c["index"] for c in frame.get("cycles") or [])
            if frame.get("type") == "snapshot" and frame["run"]["status"] not in ("running",
                                                                                 "created"):
                await ws.close()  # a refill ends with a snapshot of the finished run
                return {"got": got, "refills": refills,
                        "seq_ok": seqs == list(range(1, len(seqs) + 1))}
            for event in frame.get("events") or []:
                if event.get("kind") == "cycle":
                    got.add(event["index"])
                refills += event.get("kind") == "refill"
                if event.get("kind") == "progress" and event.get("status") not in (
                        None, "running"):
                    await ws.close()
                    return {"got": got, "refills": refills,
                            "seq_ok": seqs == list(range(1, len(seqs) + 1))}

    # Connected one after another (a room arrives over a minute, not in one instant).
    sockets = []
    for i in range(count):
        sockets.append(await connect(ctx.bases[i % 2], f"/ws/runs/{run_id}/?state=0",
                                     ctx.cookie_name, cookie))
    tasks = [asyncio.ensure_future(read(ws)) for ws in sockets]
    assert api(ctx.bases[0], token, "POST", f"/api/runs/{run_id}/start/") == 202
    return await asyncio.gather(*tasks)


def drill_followers(ctx) -> dict:
    user, token, cookie = new_user("followers")
    run = new_run(user, ctx.fixture, ctx.seed)
    results = asyncio.run(_follow(ctx, run.pk, token, cookie, ctx.followers))
    end = wait_end(run.pk)
    lost = max(len(set(range(end.cycle_count)) - r["got"]) for r in results)
    refilled = sum(1 for r in results if r["refills"])
    seq_ok = all(r["seq_ok"] for r in results)
    return {"result": f"{ctx.followers} followers, {refilled} refilled a gap, frames in order: "
                      f"{'yes' if seq_ok else 'no'}",
            "lost": lost, "same": same_bindings(run.pk, ctx.expected)}


DRILLS = [("8 parallel run starts, quota 3", drill_quota),
          ("pg_terminate_backend mid-run", drill_database),
          ("worker SIGKILL mid-run", drill_worker),
          ("followers of a whole run", drill_followers),
          ("Redis drops every connection", drill_redis)]


# --- main --------------------------------------------------------------------------------------


class Context:
    def __init__(self, args, procs: Processes, env: dict):
        self.fixture = ROOT / args.fixture
        self.seed = args.seed
        self.followers = args.followers
        self.procs = procs
        self.env = env
        out = subprocess.run([PYTHON, "-m", "scheduler_core", "simulate", str(self.fixture),
                              "--seed", str(self.seed), "--output", "json"], cwd=ROOT,
                             check=True, capture_output=True, text=True)
        undisturbed = json.loads(out.stdout)
        self.expected = undisturbed["bindings"]
        self.expected_cycles = len(undisturbed["cycles"])
        # Two workers from the start: the worker drill kills the busy one, the other goes on.
        self.workers = {self.worker_name(n): procs.start(f"worker-{n}", self.worker_command(n))
                        for n in ("1", "2")}
        self.bases = [procs.server("asgi-1"), procs.server("asgi-2")]
        from django.conf import settings

        self.cookie_name = settings.SESSION_COOKIE_NAME

    @staticmethod
    def worker_name(n: str) -> str:
        return f"drills-{n}-{os.getpid()}@{socket.gethostname()}"

    def worker_command(self, n: str) -> list[str]:
        return [PYTHON, "-m", "celery", "-A", "playground", "worker", "--pool=solo",
                "--loglevel=WARNING", "--without-gossip", "--without-mingle",
                "-n", self.worker_name(n)]


def cell(value, fmt: str = "{}") -> str:
    return "-" if value is None else fmt.format(value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fixture", default="fixtures/scale-500.yaml",
                        help="the cluster every disturbed run schedules")
    parser.add_argument("--seed", type=int, default=1, help="the runs' seed")
    parser.add_argument("--followers", type=int, default=100,
                        help="websocket clients following a whole run")
    args = parser.parse_args()
    psql(f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)", database="postgres")
    psql(f"CREATE DATABASE {DB}", database="postgres")
    subprocess.run(["redis-cli", "-n", "8", "flushdb"], check=True, stdout=subprocess.DEVNULL)
    env = environment()
    rows = []
    with tempfile.TemporaryDirectory(prefix="fault-drills-") as tmp:
        procs = Processes(Path(tmp), env)
        try:
            procs.manage("migrate", "--noinput", "-v", "0")
            django_setup(env)
            ctx = Context(args, procs, env)
            for name, drill in DRILLS:
                print(f"==> {name}", file=sys.stderr)
                try:
                    rows.append((name, drill(ctx)))
                except Exception as exc:  # the table says so; the next drill goes on
                    rows.append((name, {"result": f"drill failed: {exc!r}"[:200], "ok": False}))
        except BaseException:
            for log in sorted(Path(tmp).glob("*.log")):
                print(f"--- {log.name}\n{log.read_text(errors='replace')[-4000:]}",
                      file=sys.stderr)
            raise
        finally:
            procs.stop()
            from django.db import connections

            connections.close_all()
            # FORCE: this process's connection pool still holds connections to it.
            psql(f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)", database="postgres")
    print("\n| fault | result | recovery (s) | cycles lost | same bindings |")
    print("|---|---|---|---|---|")
    for name, r in rows:
        same = r.get("same", r.get("ok"))
        print(f"| {name} | {r['result']} | {cell(r.get('recovery'), '{:.1f}')} | "
              f"{cell(r.get('lost'))} | {'yes' if same else 'no'} |")


if __name__ == "__main__":
    main()
