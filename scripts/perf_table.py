#!/usr/bin/env python3
"""Run `bench` over every scheduler_perf workload and write its table into docs/PERFORMANCE.md.

    .venv/bin/python scripts/perf_table.py [--repeat 3] [--repeat-traced 1] [--jobs 2]
                                           [--log FILE | --from-log FILE] [--doc PATH]

One run on this machine: every workload at 5,000 nodes, SchedulingDaemonset at 15,000 and
SchedulingWithResourceClaimTemplate at 500 (their threshold's variants) and SchedulingBasic at
50,000 too, each with the counts of the variant
carrying Go's threshold; trace off (`--output summary`) with the medians of `--repeat` runs and
trace on (the contract's JSON rendered) with the medians of `--repeat-traced`, `--jobs`
measurements at once (each is a process of its own, timed in its own CPU time). bench's
rows are printed as they come; the table between `<!-- table -->` and `<!-- /table -->` in the
document is then replaced, with the commit, the date and the load average it ran under.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from threading import Lock
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scheduler_core.bench import WORKLOADS, bench_command, rates, row  # noqa: E402

BEGIN, END = "<!-- table -->", "<!-- /table -->"
# (node count, workloads): the threshold variants' sizes.
OWN_SIZE = {"SchedulingDaemonset": 15000, "SchedulingWithResourceClaimTemplate": 500}
GROUPS = [(5000, [n for n in WORKLOADS if n not in OWN_SIZE]),
          (15000, ["SchedulingDaemonset"]),
          (500, ["SchedulingWithResourceClaimTemplate"]),
          (50000, ["SchedulingBasic"])]
TARGETS = {"off": 2.0, "on": 1.0}   # whole process, times the Go floor


def run_one(trace: str, nodes: int, name: str, repeat: int, lock, results: list,
            log: str | None) -> None:
    args = SimpleNamespace(nodes=str(nodes), pods=None, workloads=name, profile="default",
                           trace=trace, repeat=repeat)
    status = bench_command(args, out=io.StringIO(),
                           on_result=lambda r: _keep(r, lock, results, log))
    if status:
        raise SystemExit(status)


def _keep(result: dict, lock, results: list, log: str | None) -> None:
    """Print bench's row and keep the figures (in the log too, one JSON object a line)."""
    with lock:
        print(row(result), flush=True)
        results.append(result)
        if log:
            with open(log, "a", encoding="utf-8") as f:
                f.write(json.dumps(result) + "\n")


def _ratio(value) -> str:
    return "-" if value is None else f"{value:.2f}x"


def markdown(results: list[dict], repeat: int, repeat_traced: int) -> str:
    order = {name: i for i, name in enumerate(WORKLOADS)}
    results = sorted(results, key=lambda r: (order[r["workload"]], r["nodes"], r["trace"]))
    lines = ["| workload | nodes | pods | Go floor | trace | load s | run s | output s | whole s "
             "| wall s | run ratio | whole ratio | target | peak MiB |",
             "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---:|"]
    for r in results:
        figures = rates(r)
        whole = figures["whole"][1]
        target = TARGETS[r["trace"]]
        met = "-" if whole is None else ("met" if whole >= target else "**not met**")
        lines.append(
            f"| {r['workload']} | {r['nodes']:,} | {r['pods']:,} | "
            f"{r['floor'] if r['floor'] else '-'} | {r['trace']} | {r['load']:.2f} | "
            f"{r['run']:.2f} | {r['output']:.2f} | {r['whole']:.2f} | {r['wall']:.1f} | "
            f"{_ratio(figures['run'][1])} | {_ratio(whole)} | {target:g}x: {met} | "
            f"{r['peak_mib']:.0f} |")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    head = (f"Measured by `scripts/perf_table.py --repeat {repeat} --repeat-traced "
            f"{repeat_traced}` at commit {commit}, {when}, load average at the end {load} "
            f"(2 cores shared). Trace off: medians of {repeat}; trace on: medians of "
            f"{repeat_traced}. Seconds are CPU seconds of the measuring process (wall s beside "
            "them); ratios are measured pods bound per CPU second over the Go floor, of the run "
            "alone and of the whole process (interpreter start, imports, load, build, run, "
            "output). Target: whole process at least 2x trace off, 1x trace on.")
    done = {(r["workload"], r["nodes"], r["trace"]) for r in results}
    missing = [f"{name} at {nodes:,} nodes, trace {trace}" for trace in ("off", "on")
               for nodes, names in GROUPS for name in names if (name, nodes, trace) not in done]
    tail = [f"Not measured in this run: {'; '.join(missing)}."] if missing else []
    return "\n".join([head, "", *lines, *([""] + tail if tail else [])])


def measure_all(args) -> list[dict]:
    """Every row, --jobs at once: the untraced ones first, the traced ones by size."""
    lock, results = Lock(), []
    tasks = [("off", nodes, name, args.repeat) for nodes, names in GROUPS for name in names]
    tasks += sorted((("on", nodes, name, args.repeat_traced) for nodes, names in GROUPS
                     for name in names), key=lambda t: t[1] * _pods(t[2], t[1]))
    with ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(run_one, *task, lock, results, args.log) for task in tasks]
        for future in futures:
            future.result()
    return results


def _pods(name: str, nodes: int) -> int:
    return len(WORKLOADS[name](min(nodes, 5000), None).pending)


def replace_table(doc: Path, table: str) -> None:
    text = doc.read_text(encoding="utf-8")
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    doc.write_text(text[:start] + "\n" + table + "\n" + text[end:], encoding="utf-8")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--repeat-traced", type=int, default=1)
    parser.add_argument("--doc", default=str(ROOT / "docs" / "PERFORMANCE.md"))
    parser.add_argument("--jobs", type=int, default=2, help="measurements run at once")
    parser.add_argument("--log", help="append each row's figures to this file as JSON lines")
    parser.add_argument("--from-log", help="write the table from such a file, measuring nothing")
    args = parser.parse_args(argv)
    if args.from_log:
        with open(args.from_log, encoding="utf-8") as f:
            results = [json.loads(line) for line in f if line.strip()]
    else:
        results = measure_all(args)
    replace_table(Path(args.doc), markdown(results, args.repeat, args.repeat_traced))
    print(f"wrote {args.doc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
