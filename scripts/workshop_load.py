#!/usr/bin/env python3
"""Figures for workshop mode: a room of attendees following a presenter's run over websockets.

    .venv/bin/python scripts/workshop_load.py [--mode embedded|services|both]
        [--attendees 40] [--steps 10] [--fixture fixtures/scale-500.yaml]

For each mode it starts the playground on a throw-away database, creates a workshop on the
fixture (500 nodes, 2,000 pods), presents it, lets --attendees attendees join (each gets a
sandbox, copied from the lesson at their first detach, not at the join), connects every
attendee to the workshop socket /ws/workshops/<code>/ and the trainer to the run's socket,
then steps the presenter's run one cycle at a time. It prints, per mode:

- how long the joins took (median and slowest join) and the first snapshot's size;
- frames and bytes per attendee per step (everything an attendee receives in the step);
- the delay from the trainer's step message to each attendee's frame showing that cycle:
  median, 95th percentile and maximum (target: p95 <= 300 ms), how much of it is the spread
  over the room (from the first attendee's frame to each one's), and its legs: the step's
  ack (the step enqueued), the trainer's own frame of the cycle on the run's socket (the run
  advanced, stored and sent), and from that frame to each attendee's (the relay). In services
  mode half of the room is on the other server, so the last leg can come out below zero;
- the CPU time per measured step of each server and worker process, and of this script.

Embedded mode: one ASGI server (daphne) on SQLite set up as embedded mode sets it (WAL), the
in-memory channel layer, tasks on threads in the server. Services mode: PostgreSQL and Redis
(a database it creates and drops, and Redis database 7 so as not to meet other users' queues),
a Celery worker and TWO ASGI servers; attendees are spread over both and the trainer steps
through the first, so every frame reaches half of the room through channels-redis. It prints
figures, it asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from bench_run_view import SQLITE_OPTIONS  # noqa: E402 - embedded mode's SQLite (WAL)

PYTHON = sys.executable
START_TIMEOUT = 90
STEP_TIMEOUT = 60
SETTLE = 0.3           # seconds after the last attendee's frame before a step's count closes
SERVICES_DB = "workshop_load"
SERVICES_REDIS = "redis://127.0.0.1:6379/7"


# --- setup (runs in a child process, on the mode's database) ---------------------------------


def setup(fixture: str, attendees: int) -> dict:
    """Trainer, workshop, presented run and joined attendees; their session cookies."""
    import django

    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")
    django.setup()
    from django.conf import settings
    from django.contrib.auth.models import User
    from django.test import Client

    from playground.clusters.services import cluster_import
    from playground.workshops import services

    def cookie(user) -> str:
        client = Client()
        client.force_login(user)
        return client.cookies[settings.SESSION_COOKIE_NAME].value

    trainer = User.objects.create_user("trainer", password="load-trainer-1")
    path = ROOT / fixture
    cluster, _ = cluster_import(owner=trainer, name=path.stem,
                                     files=[(path.name, path.read_text(encoding="utf-8"))])
    workshop = services.workshop_create(trainer=trainer, title="load", clusters=[cluster])
    run = services.workshop_present(workshop=workshop, lesson=workshop.lessons.get())
    joined, join_times = [], []
    for i in range(attendees):
        start = time.perf_counter()
        joined.append(services.workshop_join(code=workshop.code, display_name=f"attendee {i}"))
        join_times.append(time.perf_counter() - start)
    return {"code": workshop.code, "run": run.pk, "trainer": cookie(trainer),
            "attendees": [cookie(a.user) for a in joined], "join_times": join_times,
            "session_cookie": settings.SESSION_COOKIE_NAME}


# --- servers ------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Processes:
    """Child processes (servers, a worker), each stopped at the end; logs in a temp dir."""

    def __init__(self, workdir: Path, env: dict):
        self.workdir, self.env = workdir, env
        self.children: list[subprocess.Popen] = []
        self.named: dict[str, subprocess.Popen] = {}

    def manage(self, *args: str) -> None:
        subprocess.run([PYTHON, "manage.py", *args], cwd=ROOT, env=self.env, check=True,
                       stdout=subprocess.DEVNULL)

    def start(self, name: str, command: list[str]) -> subprocess.Popen:
        log = open(self.workdir / f"{name}.log", "wb")  # noqa: SIM115 - the child keeps it
        child = subprocess.Popen(command, cwd=ROOT, env=self.env, stdout=log,
                                 stderr=subprocess.STDOUT)
        self.children.append(child)
        self.named[name] = child
        return child

    def server(self, name: str) -> str:
        port = free_port()
        child = self.start(name, [PYTHON, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
                                  "playground.asgi:application"])
        base = f"127.0.0.1:{port}"
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                urllib.request.urlopen(f"http://{base}/healthz", timeout=2).read()
                return base
            except OSError as exc:
                if child.poll() is not None or time.monotonic() > deadline:
                    log = (self.workdir / f"{name}.log").read_text(errors="replace")
                    raise SystemExit(f"{name} did not start: {exc}\n{log[-3000:]}") from exc
                time.sleep(0.3)

    def cpu_seconds(self) -> dict[str, float]:
        """CPU time (user + system) each child has used so far, by its log's name."""
        ticks = os.sysconf("SC_CLK_TCK")
        used = {}
        for name, child in self.named.items():
            with open(f"/proc/{child.pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            used[name] = (int(fields[11]) + int(fields[12])) / ticks
        return used

    def stop(self) -> None:
        for child in self.children:
            child.terminate()
        for child in self.children:
            try:
                child.wait(timeout=15)
            except subprocess.TimeoutExpired:
                child.kill()


def prepare(env: dict, fixture: str, attendees: int) -> dict:
    out = subprocess.run([PYTHON, __file__, "--setup", "--fixture", fixture,
                          "--attendees", str(attendees)], cwd=ROOT, env=env, check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


# --- measuring ------------------------------------------------------------------------------


class Listener:
    """One socket's frames: (arrival time, size, frame), read continuously."""

    def __init__(self, ws):
        self.ws = ws
        self.frames: list[tuple[float, int, dict]] = []
        self.task = asyncio.ensure_future(self._read())

    async def _read(self):
        async for text in self.ws:
            self.frames.append((time.perf_counter(), len(text.encode()), json.loads(text)))

    async def until(self, predicate, start: int = 0, timeout: float = STEP_TIMEOUT):
        deadline = time.perf_counter() + timeout
        while True:
            for when, _, frame in self.frames[start:]:
                if predicate(frame):
                    return when
            if time.perf_counter() > deadline:
                raise TimeoutError("no such frame")
            await asyncio.sleep(0.005)


def reached(cycles: int):
    def check(frame: dict) -> bool:
        return frame.get("type") == "batch" and any(
            e.get("kind") == "progress" and e.get("cycles", 0) >= cycles
            for e in frame["events"])
    return check


def snapshot_done(frame_count_holder: dict):
    def check(frame: dict) -> bool:
        if frame.get("type") == "snapshot":
            frame_count_holder["parts"] = frame.get("parts", 0)
            frame_count_holder["seen"] = 0
            return frame_count_holder["parts"] == 0
        if frame.get("type") == "snapshot_part":
            frame_count_holder["seen"] = frame_count_holder.get("seen", 0) + 1
            return frame_count_holder["seen"] >= frame_count_holder.get("parts", 1)
        return False
    return check


async def connect(base: str, path: str, cookie_name: str, cookie: str):
    import websockets

    return await websockets.connect(
        f"ws://{base}{path}", max_size=None, open_timeout=60, ping_interval=None,
        additional_headers={"Cookie": f"{cookie_name}={cookie}", "Origin": f"http://{base}"})


async def measure(bases: list[str], data: dict, steps: int, cpu) -> dict:
    """The figures; cpu(): CPU seconds used so far by each server and worker process."""
    name = data["session_cookie"]
    attendees = []
    for i, cookie in enumerate(data["attendees"]):
        ws = await connect(bases[i % len(bases)], f"/ws/workshops/{data['code']}/", name, cookie)
        attendees.append(Listener(ws))
        if i < len(bases):
            # A server's first snapshot loads the run's engine session (seconds at 500
            # nodes); meanwhile daphne would drop handshakes that wait longer than 5 s.
            await attendees[-1].until(snapshot_done({}))
    for listener in attendees:
        await listener.until(snapshot_done({}))
    snapshot_bytes = statistics.mean(sum(s for _, s, _ in a.frames) for a in attendees)
    trainer = Listener(await connect(bases[0], f"/ws/runs/{data['run']}/", name,
                                     data["trainer"]))
    await trainer.until(snapshot_done({}))
    # The room's snapshots, parsed, are ~20 MB of objects kept to the end: each of this
    # script's full collections walked them (100-150 ms), holding up every socket's reading,
    # so a whole step's frames looked late. Frozen, they are left out: the delays measured
    # are the servers', not this collector's.
    gc.collect()
    gc.freeze()
    delays, fanout, frames, sizes, warmup = [], [], [], [], 0.0
    legs = {"ack": [], "own": [], "relay": []}
    # Step 1 warms up: the worker builds the engine session (loads the 500 nodes) first.
    for step in range(1, steps + 2):
        marks = [len(a.frames) for a in attendees]
        mark = len(trainer.frames)
        sent = time.perf_counter()
        await trainer.ws.send(json.dumps({"action": "step", "cycles": 1}))
        arrivals = [await a.until(reached(step), start) for a, start in zip(attendees, marks)]
        acked = await trainer.until(lambda f: f.get("type") == "ack", mark)
        own = await trainer.until(reached(step), mark)
        await asyncio.sleep(SETTLE)
        if step == 1:
            warmup = max(arrivals) - sent
            cpu_before, own_before = cpu(), time.process_time()
            continue
        delays += [when - sent for when in arrivals]
        fanout += [when - min(arrivals) for when in arrivals]
        legs["ack"].append(acked - sent)
        legs["own"].append(own - sent)
        legs["relay"] += [when - own for when in arrivals]
        for a, start in zip(attendees, marks):
            frames.append(len(a.frames) - start)
            sizes.append(sum(s for _, s, _ in a.frames[start:]))
    cpu_after, own = cpu(), time.process_time() - own_before
    step_cpu = {name: (cpu_after[name] - cpu_before[name]) / steps for name in cpu_after}
    step_cpu["client (this script)"] = own / steps
    for listener in [*attendees, trainer]:
        await listener.ws.close()
        listener.task.cancel()
    return {"snapshot_bytes": snapshot_bytes, "frames": statistics.mean(frames),
            "bytes": statistics.mean(sizes), "delay": percentiles(delays),
            "fanout": percentiles(fanout), "warmup": warmup,
            "legs": {k: percentiles(v) for k, v in legs.items()}, "cpu": step_cpu}


def percentiles(values: list[float]) -> dict:
    values = sorted(values)
    return {"n": len(values), "median": statistics.median(values),
            "p95": values[max(0, int(round(0.95 * len(values))) - 1)], "max": values[-1]}


# --- modes ------------------------------------------------------------------------------------


def base_env() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(DJANGO_DEBUG="1", PYTHONUNBUFFERED="1", PLAYGROUND_LOG_LEVEL="WARNING")
    return env


def run_embedded(args) -> dict:
    with tempfile.TemporaryDirectory(prefix="workshop-load-") as tmp:
        workdir = Path(tmp)
        env = base_env()
        env["DATABASE_URL"] = f"sqlite:///{workdir / 'db.sqlite3'}?{SQLITE_OPTIONS}"
        procs = Processes(workdir, env)
        try:
            procs.manage("migrate", "--noinput", "-v", "0")
            data = prepare(env, args.fixture, args.attendees)
            bases = [procs.server("asgi-1")]
            figures = asyncio.run(measure(bases, data, args.steps, procs.cpu_seconds))
        finally:
            procs.stop()
    return {**figures, "join_times": data["join_times"], "servers": 1}


def run_services(args) -> dict:
    subprocess.run(["dropdb", "--if-exists", "-h", "127.0.0.1", "-U", "postgres", SERVICES_DB],
                   check=True)
    subprocess.run(["createdb", "-h", "127.0.0.1", "-U", "postgres", SERVICES_DB], check=True)
    subprocess.run(["redis-cli", "-n", "7", "flushdb"], check=True, stdout=subprocess.DEVNULL)
    with tempfile.TemporaryDirectory(prefix="workshop-load-") as tmp:
        workdir = Path(tmp)
        env = base_env()
        env["DATABASE_URL"] = f"postgres://postgres@127.0.0.1:5432/{SERVICES_DB}"
        env["REDIS_URL"] = SERVICES_REDIS
        procs = Processes(workdir, env)
        try:
            procs.manage("migrate", "--noinput", "-v", "0")
            data = prepare(env, args.fixture, args.attendees)
            procs.start("worker", [PYTHON, "-m", "celery", "-A", "playground", "worker",
                                   "--pool=solo", "--loglevel=WARNING", "--without-gossip",
                                   "--without-mingle", "-n", f"load-{os.getpid()}@%h"])
            bases = [procs.server("asgi-1"), procs.server("asgi-2")]
            figures = asyncio.run(measure(bases, data, args.steps, procs.cpu_seconds))
        except Exception:
            for log in sorted(workdir.glob("*.log")):
                print(f"--- {log.name}\n{log.read_text(errors='replace')[-6000:]}", file=sys.stderr)
            raise
        finally:
            procs.stop()
            subprocess.run(["dropdb", "--if-exists", "-h", "127.0.0.1", "-U", "postgres",
                            SERVICES_DB], check=False)
    return {**figures, "join_times": data["join_times"], "servers": 2}


def report(mode: str, args, f: dict) -> None:
    print(f"\n{mode} mode: {args.attendees} attendees on {f['servers']} ASGI server(s), "
          f"{args.fixture}, {args.steps} steps")
    joins = f["join_times"]
    print(f"  joins: {sum(joins):.2f} s for {len(joins)}, median "
          f"{statistics.median(joins) * 1000:.0f} ms, slowest {max(joins) * 1000:.0f} ms")
    print(f"  first snapshot per attendee: {f['snapshot_bytes'] / 1024:.1f} KiB")
    print(f"  per attendee per step: {f['frames']:.2f} frames, {f['bytes']:.0f} bytes")
    print(f"  first step (the worker loads the engine session): {f['warmup'] * 1000:.0f} ms")
    for label, d in (("trainer's step -> attendee's frame", f["delay"]),
                     ("  of which the room's spread (first attendee -> each)", f["fanout"]),
                     ("  leg: step -> the step's ack (step enqueued)", f["legs"]["ack"]),
                     ("  leg: step -> the trainer's own frame of it", f["legs"]["own"]),
                     ("  leg: trainer's frame -> attendee's frame", f["legs"]["relay"])):
        print(f"  {label} ({d['n']} samples): median {d['median'] * 1000:.0f} ms, "
              f"p95 {d['p95'] * 1000:.0f} ms, max {d['max'] * 1000:.0f} ms")
    print("  CPU per step (ms, the measured steps' average): " + ", ".join(
        f"{name} {seconds * 1000:.0f}" for name, seconds in f["cpu"].items()))
    print("  target: p95 of the step -> frame delay <= 300 ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=["embedded", "services", "both"], default="both")
    parser.add_argument("--attendees", type=int, default=40)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--fixture", default="fixtures/scale-500.yaml")
    parser.add_argument("--setup", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.setup:
        print(json.dumps(setup(args.fixture, args.attendees)))
        return
    modes = ["embedded", "services"] if args.mode == "both" else [args.mode]
    for mode in modes:
        figures = run_embedded(args) if mode == "embedded" else run_services(args)
        report(mode, args, figures)


if __name__ == "__main__":
    main()
