"""A sweep on 1 and on 2 Celery workers: wall time, and how the variants were shared.

    .venv/bin/python scripts/bench_sweep.py [--variants 100] [--fixture fixtures/scale-500.yaml]
                                            [--workers 1,2]

Against real services, as scripts/fault_drills.py: a throw-away PostgreSQL database
(`bench_sweep`) and Redis database 9. For each worker count it starts that many worker
processes (`--pool=solo`: one variant at a time each), sweeps the fixture over a grid of
`percentageOfNodesToScore` 1..N (N variants; the same grid each time), and prints the wall time
from the sweep's creation to its end; the CPU seconds the worker processes used meanwhile
(from /proc: what the variants cost, whatever else runs on the machine), per variant too; the
variants' wall time summed; and how many variants each worker ran. The speed-up two workers
can give is bounded by the share of the cores the machine leaves them: the CPU seconds over the
wall time is how many cores the workers actually had. It asserts nothing: on a machine whose
cores are busy with other work two workers cannot be twice as fast, and the figures say so.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))
from workshop_load import PYTHON, Processes  # noqa: E402

DB = "bench_sweep"
REDIS = "redis://127.0.0.1:6379/9"
START_TIMEOUT = 60
SWEEP_TIMEOUT = 3600


def environment() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(DJANGO_DEBUG="1", PYTHONUNBUFFERED="1", PLAYGROUND_LOG_LEVEL="WARNING",
               DATABASE_URL=f"postgres://postgres@127.0.0.1:5432/{DB}", REDIS_URL=REDIS)
    return env


def psql(sql: str) -> None:
    subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-d", "postgres", "-At", "-c",
                    sql], check=True, capture_output=True, text=True)


def start_workers(procs: Processes, count: int) -> list[subprocess.Popen]:
    from playground import celery_app

    names = [f"bench{i}-{uuid.uuid4().hex[:6]}@%h" for i in range(count)]
    children = [procs.start(name.split("@")[0], [
        PYTHON, "-m", "celery", "-A", "playground", "worker", "--pool=solo", "--loglevel=WARNING",
        "-n", name, "--without-gossip", "--without-mingle"]) for name in names]
    hosts = [name.replace("%h", os.uname().nodename) for name in names]
    deadline = time.monotonic() + START_TIMEOUT
    while len(celery_app.control.ping(destination=hosts, timeout=1.0)) < count:
        if time.monotonic() > deadline:
            raise SystemExit(f"the workers did not start (logs in {procs.workdir})")
    return children


def stop(children: list[subprocess.Popen]) -> None:
    """A warm shutdown, then SIGKILL for a worker that does not end in a minute (a loaded
    machine can take that long)."""
    for child in children:
        child.terminate()
    for child in children:
        try:
            child.wait(timeout=60)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def cpu_seconds(children: list[subprocess.Popen]) -> float:
    """User and system CPU time the worker processes have used so far."""
    total = 0
    for child in children:
        fields = Path(f"/proc/{child.pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])     # utime, stime (fields 14 and 15)
    return total / os.sysconf("SC_CLK_TCK")


def sweep_once(cluster, owner, variants: int, children: list[subprocess.Popen]) -> dict:
    from playground.whatif.models import Sweep, SweepVariant
    from playground.whatif.sweeps import sweep_create

    cpu = cpu_seconds(children)
    started = time.perf_counter()
    sweep = sweep_create(cluster=cluster, owner=owner,
                         grid={"percentageOfNodesToScore": list(range(1, variants + 1))})
    deadline = time.monotonic() + SWEEP_TIMEOUT
    while Sweep.objects.get(pk=sweep.pk).status != Sweep.DONE:
        if time.monotonic() > deadline:
            raise SystemExit(f"sweep {sweep.pk} did not end in {SWEEP_TIMEOUT} s")
        time.sleep(0.5)
    wall = time.perf_counter() - started
    cpu = cpu_seconds(children) - cpu
    rows = list(SweepVariant.objects.filter(sweep=sweep))
    shares: dict[str, int] = {}
    for row in rows:
        shares[row.worker] = shares.get(row.worker, 0) + 1
    return {"wall": wall, "cpu": cpu, "variant_seconds": sum(r.seconds or 0 for r in rows),
            "failed": sum(r.status != SweepVariant.DONE for r in rows),
            "shares": sorted(shares.values(), reverse=True)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", type=int, default=100)
    parser.add_argument("--fixture", type=Path, default=ROOT / "fixtures" / "scale-500.yaml")
    parser.add_argument("--workers", default="1,2")
    args = parser.parse_args()
    env = environment()
    psql(f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)")
    psql(f"CREATE DATABASE {DB}")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            procs = Processes(Path(tmp), env)
            procs.manage("migrate", "--noinput", "-v", "0")
            os.environ.update(env)
            os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")
            import django

            django.setup()
            from django.contrib.auth.models import User

            from playground.clusters.services import cluster_import

            owner = User.objects.create_user("bench")
            cluster, _ = cluster_import(owner=owner, name=args.fixture.stem, files=[
                (args.fixture.name, args.fixture.read_text(encoding="utf-8"))])
            print(f"{args.variants} variants of {args.fixture.name}; load average before: "
                  f"{os.getloadavg()[0]:.1f}")
            print(f"{'workers':>7}  {'wall s':>8}  {'CPU s':>7}  {'CPU/variant':>11}  "
                  f"{'cores had':>9}  {'variants s':>10}  {'failed':>6}  shares")
            for count in (int(n) for n in args.workers.split(",")):
                children = start_workers(procs, count)
                try:
                    r = sweep_once(cluster, owner, args.variants, children)
                finally:
                    stop(children)
                print(f"{count:>7}  {r['wall']:>8.1f}  {r['cpu']:>7.1f}  "
                      f"{r['cpu'] / args.variants:>11.2f}  {r['cpu'] / r['wall']:>9.2f}  "
                      f"{r['variant_seconds']:>10.1f}  {r['failed']:>6}  {r['shares']}  "
                      f"(load average {os.getloadavg()[0]:.1f})", flush=True)
    finally:
        from django.db import connections

        connections.close_all()
        psql(f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)")


if __name__ == "__main__":
    main()
