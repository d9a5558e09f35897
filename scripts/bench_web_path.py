#!/usr/bin/env python3
"""The web path of a run against the engine alone, per pod: CPU and wall, loading included
and left out; bytes stored per cycle, transactions.

    .venv/bin/python scripts/bench_web_path.py [--nodes 500,5000] [--pods 1000] [--repeat 3]

For each node count it builds scheduler_perf's SchedulingBasic shape (scheduler_core.bench:
initPods already running, then `--pods` pending pods) and measures, `--repeat` times each:

- engine: a RunSession over the same documents with no observer, as `simulate` runs it
  (Python's collector off while loading, what was loaded frozen): loading (the session
  built) and the run (every cycle) apart;
- engine traced: the same with the trace on (TraceObserver), as `simulate --output json`
  does it without printing (the whole, for reference);
- web path: a Run in embedded mode (a fresh SQLite file, the run task inline in this
  process) from `runs.run_start` to the run finished: loading is the session's build (the
  task's `session_at`), the rest is the run: the chunks, their CycleRecords, the run's
  results and the stream's sends;
- bytes per cycle: what the run's CycleRecords hold, over its cycle count;
- transactions: commits of atomic blocks plus writes autocommitted outside one.

Each is timed in CPU seconds of this process (every thread) and in wall seconds, and printed
per pod (ms, over the run's cycles: one per pending pod); `ratio` is the web path over the
engine alone (issue 30's target: at most 2x, loading included and left out). What the
measure before left behind is collected before each, untimed (a fresh worker's state).
Medians of the repeats are printed.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--nodes", default="500,5000", help="comma-separated node counts")
    p.add_argument("--pods", type=int, default=1000, help="pending pods (the run's cycles)")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--seed", type=int, default=1)
    return p.parse_args(argv)


def setup_django(tmp: str) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")
    for name in ("DATABASE_URL", "REDIS_URL"):  # embedded mode whatever the environment
        os.environ.pop(name, None)
    import django
    from django.conf import settings

    settings.DATABASES["default"]["NAME"] = str(Path(tmp) / "bench.sqlite3")
    settings.PLAYGROUND_TASKS_SYNC = True
    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def documents(nodes: int, pods: int) -> list[dict]:
    from scheduler_core.bench import WORKLOADS

    wl = WORKLOADS["SchedulingBasic"](nodes, pods)
    return wl.nodes + wl.running + wl.pending


class Clock:
    """CPU and wall seconds since it was made."""

    def __init__(self):
        self.cpu, self.wall = time.process_time(), time.perf_counter()

    def lap(self) -> tuple[float, float]:
        return time.process_time() - self.cpu, time.perf_counter() - self.wall


def engine(docs: list[dict], seed: int, traced: bool) -> dict:
    import copy

    from scheduler_core.observe import TraceObserver
    from scheduler_core.session import RunSession
    from scheduler_core.simulate import collector_for_a_run

    sources = [("bench", copy.deepcopy(docs))]
    gc.collect()
    with collector_for_a_run() as loaded:
        clock = Clock()
        session = RunSession(sources, None, seed=seed)
        loaded()
        loading = clock.lap()
        session.advance(None, observer=TraceObserver() if traced else None)
        whole = clock.lap()
    return {"whole": whole, "loading": loading, "cycles": session.cycles}


class Transactions:
    """Counts the commits of this thread's connection: atomic blocks and autocommitted writes."""

    WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE")

    def __init__(self, connection):
        self.connection = connection
        self.count = 0

    def __call__(self, execute, sql, params, many, context):
        if (not self.connection.in_atomic_block
                and sql.lstrip()[:7].upper().startswith(self.WRITES)):
            self.count += 1
        return execute(sql, params, many, context)

    def __enter__(self):
        real_commit = self.connection.commit

        def commit():
            self.count += 1
            real_commit()

        self.connection.commit = commit
        self._wrapper = self.connection.execute_wrapper(self)
        self._wrapper.__enter__()
        return self

    def __exit__(self, *exc):
        self._wrapper.__exit__(*exc)
        del self.connection.commit


def web_path(user, cluster, docs: list[dict], seed: int) -> dict:
    from django.db import connection
    from django.db.models import Sum
    from django.db.models.functions import Coalesce, Length

    from playground.engine import default_config
    from playground.runs import executor
    from playground.runs import services as runs
    from playground.runs import sessions as run_sessions
    from playground.runs.models import CycleRecord, Run

    run = Run.objects.create(cluster=cluster, owner=user, config=default_config(),
                             documents=docs, seed=seed)
    run_sessions.sessions.clear()  # as a fresh worker: the session is loaded in the timing
    gc.unfreeze()
    gc.collect()
    getattr(run_sessions, "collect_dropped", gc.collect)()
    loading = [0.0, 0.0]
    session_at = executor.session_at

    def timed_session_at(*args, **kwargs):
        clock = Clock()
        try:
            return session_at(*args, **kwargs)
        finally:
            loading[:] = [a + b for a, b in zip(loading, clock.lap())]

    executor.session_at = timed_session_at
    try:
        with Transactions(connection) as counted:
            clock = Clock()
            runs.run_start(run=run, user=user)
            whole = clock.lap()
    finally:
        executor.session_at = session_at
    run.refresh_from_db()
    if run.status != Run.FINISHED:
        raise SystemExit(f"the run ended {run.status}: {run.error}")
    stored = CycleRecord.objects.filter(run=run).aggregate(n=Sum(
        Coalesce(Length("packed"), 0) + Coalesce(Length("legacy_trace"), 0)))["n"]
    run.delete()
    return {"whole": whole, "loading": tuple(loading), "cycles": run.cycle_count,
            "bytes": stored / run.cycle_count, "transactions": counted.count}


def medians(rows: list[dict]) -> dict:
    """Per pod (ms): CPU and wall, whole and run (loading left out), medians of the rows."""
    out = {}
    for measure in ("whole", "run"):
        for i, unit in enumerate(("cpu", "wall")):
            seconds = [r["whole"][i] - (r["loading"][i] if measure == "run" else 0.0)
                       for r in rows]
            out[measure, unit] = 1000 * statistics.median(seconds) / rows[0]["cycles"]
    return out


HEADER = (f"{'nodes':>6} {'pods':>5}  {'measure, ms per pod':<20} {'engine CPU':>10} "
          f"{'web CPU':>8} {'ratio':>6}  {'engine wall':>11} {'web wall':>8} {'ratio':>6}")


def report(nodes: int, alone: list, traced: list, web: list) -> None:
    e, w = medians(alone), medians(web)
    cycles = web[0]["cycles"]
    for measure, label in (("whole", "loading included"), ("run", "loading left out")):
        ec, wc, ew, ww = (e[measure, "cpu"], w[measure, "cpu"], e[measure, "wall"],
                          w[measure, "wall"])
        print(f"{nodes:>6} {cycles:>5}  {label:<20} {ec:>10.3f} {wc:>8.3f} {wc / ec:>5.2f}x  "
              f"{ew:>11.3f} {ww:>8.3f} {ww / ew:>5.2f}x")
    t = medians(traced)
    kb = statistics.median(r["bytes"] for r in web) / 1000
    tx = statistics.median(r["transactions"] for r in web)
    print(f"{'':>6} {'':>5}  engine traced, loading included: {t['whole', 'cpu']:.3f} ms CPU "
          f"per pod (web path {w['whole', 'cpu'] / t['whole', 'cpu']:.2f}x); stored "
          f"{kb:.1f} KB/cycle; {tx:.0f} transactions", flush=True)


def main(argv=None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        setup_django(tmp)
        from django.contrib.auth.models import User

        from playground.clusters.models import Cluster

        user = User.objects.create_user(f"bench-{uuid.uuid4().hex[:8]}", password="x")
        cluster = Cluster.objects.create(owner=user, name="bench")
        print(HEADER)
        for nodes in (int(n) for n in args.nodes.split(",")):
            docs = documents(nodes, args.pods)
            alone, traced, web = [], [], []
            for _ in range(args.repeat):
                alone.append(engine(docs, args.seed, traced=False))
                traced.append(engine(docs, args.seed, traced=True))
                web.append(web_path(user, cluster, docs, args.seed))
                if web[-1]["cycles"] != alone[-1]["cycles"]:
                    raise SystemExit(f"the run made {web[-1]['cycles']} cycles, the engine "
                                     f"{alone[-1]['cycles']}")
            report(nodes, alone, traced, web)
        user.delete()
    return 0


if __name__ == "__main__":
    sys.exit(main())
