#!/usr/bin/env python3
"""The web path of a run against the engine alone: time, bytes stored per cycle, transactions.

    .venv/bin/python scripts/bench_web_path.py [--nodes 500,5000] [--pods 1000] [--repeat 3]

For each node count it builds scheduler_perf's SchedulingBasic shape (scheduler_core.bench:
initPods already running, then `--pods` pending pods) and measures, `--repeat` times each:

- engine: a RunSession over the same documents with no observer, from loading the documents
  to the last cycle (the engine alone, as issue 30's "per pod" counts it);
- engine traced: the same with the trace on (TraceObserver), as `simulate --output json` does
  it without printing;
- web path: a Run in embedded mode (a fresh SQLite file, the run task inline in this
  process) from `runs.run_start` to the run finished: loading the session, the chunks, their
  CycleRecords, the run's results and the stream's sends;
- bytes per cycle: what the run's CycleRecords hold, over its cycle count;
- transactions: commits of atomic blocks plus writes autocommitted outside one.

`ratio` is the web path over the engine alone (issue 30's target: at most 2x), `traced` over
the engine traced.

Times are CPU seconds of this process (every thread), so other load on the machine shows
less than in wall time; the medians of the repeats are printed.
"""

from __future__ import annotations

import argparse
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


def engine(docs: list[dict], seed: int, traced: bool) -> tuple[float, int]:
    import copy

    from scheduler_core.observe import TraceObserver
    from scheduler_core.session import RunSession

    sources = [("bench", copy.deepcopy(docs))]
    started = time.process_time()
    session = RunSession(sources, None, seed=seed)
    trace = TraceObserver() if traced else None
    while not session.finished:
        session.advance(1000, observer=trace)
    return time.process_time() - started, session.cycles


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
    from playground.runs import services as runs
    from playground.runs import sessions as run_sessions
    from playground.runs.models import CycleRecord, Run

    run = Run.objects.create(cluster=cluster, owner=user, config=default_config(),
                             documents=docs, seed=seed)
    run_sessions.sessions.clear()  # as a fresh worker: the session is loaded in the timing
    with Transactions(connection) as counted:
        started = time.process_time()
        runs.run_start(run=run, user=user)
        seconds = time.process_time() - started
    run.refresh_from_db()
    if run.status != Run.FINISHED:
        raise SystemExit(f"the run ended {run.status}: {run.error}")
    stored = CycleRecord.objects.filter(run=run).aggregate(n=Sum(
        Coalesce(Length("packed"), 0) + Coalesce(Length("legacy_trace"), 0)))["n"]
    run.delete()
    return {"seconds": seconds, "cycles": run.cycle_count, "bytes": stored / run.cycle_count,
            "transactions": counted.count}


def main(argv=None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        setup_django(tmp)
        from django.contrib.auth.models import User

        from playground.clusters.models import Cluster

        user = User.objects.create_user(f"bench-{uuid.uuid4().hex[:8]}", password="x")
        cluster = Cluster.objects.create(owner=user, name="bench")
        print(f"{'nodes':>6} {'cycles':>6} {'engine s':>9} {'traced s':>9} {'web s':>8} "
              f"{'ratio':>6} {'traced':>6} {'KB/cycle':>9} {'transactions':>12}")
        for nodes in (int(n) for n in args.nodes.split(",")):
            docs = documents(nodes, args.pods)
            alone, traced, web = [], [], []
            for _ in range(args.repeat):
                alone.append(engine(docs, args.seed, traced=False)[0])
                traced_seconds, cycles = engine(docs, args.seed, traced=True)
                traced.append(traced_seconds)
                web.append(web_path(user, cluster, docs, args.seed))
                if web[-1]["cycles"] != cycles:
                    raise SystemExit(f"the run made {web[-1]['cycles']} cycles, the engine "
                                     f"{cycles}")
            e, t = statistics.median(alone), statistics.median(traced)
            w = statistics.median(r["seconds"] for r in web)
            kb = statistics.median(r["bytes"] for r in web) / 1000
            tx = statistics.median(r["transactions"] for r in web)
            print(f"{nodes:>6} {cycles:>6} {e:>9.2f} {t:>9.2f} {w:>8.2f} {w / e:>5.2f}x "
                  f"{w / t:>5.2f}x {kb:>9.1f} {tx:>12.0f}", flush=True)
        user.delete()
    return 0


if __name__ == "__main__":
    sys.exit(main())
