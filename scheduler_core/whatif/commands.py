"""python -m scheduler_core plan|optimize|sweep: the what-if commands' command-line face
(sweep's own in scheduler_core.whatif.sweep_command).

They read their input as `simulate` does (FILEs, --config, --seed, --plugin, and --release and
--feature-gates, added by scheduler_core.cli's own add_release_flags and turned into the run's
gates by its gates_of) and follow its bad-input rules: scheduler_core.cli turns an InputError
into exit 2 with one line.
"""
from __future__ import annotations

import json
import sys

from ..errors import InputError
from .capacity import DEFAULT_MAX_COPIES
from .optimize import (
    DEFAULT_MAX_NODES as SOLVER_NODES,
)
from .optimize import (
    DEFAULT_MAX_PODS,
    DEFAULT_TIME_LIMIT,
    DEFAULT_WORKERS,
    Limits,
    optimize,
)
from .plan import DEFAULT_MAX_NODES, plan
from .scenario import Scenario
from .sweep_command import add_flags as add_sweep_flags
from .template import read_template


def _input_flags(p, release_flags) -> None:
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="the cluster, as simulate reads it (YAML or JSON; - reads standard "
                        "input)")
    p.add_argument("--config", metavar="KSC.yaml",
                   help="a KubeSchedulerConfiguration (default: kube-scheduler's profile)")
    p.add_argument("--seed", type=int, default=0,
                   help="the random tie-break between equally scored nodes (default 0)")
    p.add_argument("-o", "--output", choices=("json", "table"), default="table",
                   help="json: one object for scripts; table (default): for people")
    p.add_argument("--plugin", action="append", default=[], metavar="NAME=MODULE[:FACTORY]",
                   help="register an out-of-tree plugin (like app.WithPlugin); the bundled "
                        "ones are registered already")
    release_flags(p)


def add_parsers(sub, release_flags) -> None:
    """release_flags(parser): adds --release and --feature-gates as simulate has them."""
    p = sub.add_parser("plan", help="how many copies of a node template every pending pod needs")
    _input_flags(p, release_flags)
    p.add_argument("--node-template", required=True, metavar="NODE.yaml",
                   help="the Node to add copies of")
    p.add_argument("--max-nodes", type=int, default=DEFAULT_MAX_NODES,
                   help="add at most this many copies (default %(default)s)")
    p.add_argument("--max-copies", type=int, default=DEFAULT_MAX_COPIES,
                   help="stop counting more copies of a pod at this many (0: do not count)")
    add_optimize_parser(sub, release_flags)
    p = sub.add_parser("sweep", help="the cluster scheduled under every variant of a grid")
    _input_flags(p, release_flags)
    add_sweep_flags(p)


def add_optimize_parser(sub, release_flags) -> None:
    p = sub.add_parser("optimize", help="the global placement beside the scheduler's")
    _input_flags(p, release_flags)
    p.add_argument("--time-limit", type=float, default=DEFAULT_TIME_LIMIT, metavar="S",
                   help="stop the solver after S seconds with its best placement (FEASIBLE)")
    p.add_argument("--max-solver-nodes", type=int, default=SOLVER_NODES,
                   help="refuse a cluster of more nodes than this (default %(default)s)")
    p.add_argument("--max-solver-pods", type=int, default=DEFAULT_MAX_PODS,
                   help="refuse more pending pods than this (default %(default)s)")
    p.add_argument("--workers", type=int, default=DEFAULT_WORKERS,
                   help="the solver's search workers")


def scenario_of(args, run: dict) -> Scenario:
    """run: the command line's out_of_tree plugins, features and warn sink."""
    return Scenario.from_files(args.files, config_file=args.config, seed=args.seed, **run)


def _non_negative(value: int, flag: str) -> None:
    if value < 0:
        raise InputError(f"{flag} must be 0 or more, got {value}")


def plan_command(args, run: dict) -> int:
    _non_negative(args.max_nodes, "--max-nodes")
    _non_negative(args.max_copies, "--max-copies")
    said: list[str] = []
    template = read_template(args.node_template, features=run["features"], warnings=said)
    scenario = scenario_of(args, run)
    scenario.warnings.extend(said)
    result = plan(scenario, template, template_file=args.node_template,
                  max_nodes=args.max_nodes, max_copies=args.max_copies,
                  progress=lambda e: print(f"plan: {_progress_line(e)}", file=sys.stderr,
                                           flush=True))
    out = {"schemaVersion": 1, "release": scenario.features.release,
           "warnings": scenario.warnings.to_list(), **result.to_json()}
    if args.output == "json":
        sys.stdout.write(json.dumps(out, indent=2) + "\n")
    else:
        sys.stdout.write(format_plan(out, template["metadata"]["name"]))
    return 0


def _progress_line(event: dict) -> str:
    if event["phase"] == "capacity":
        return f"counted more copies of {event['shapes']} pod shape(s)"
    return (f"trial {event['trials']} ({event['phase']}): {event['nodes']} node(s) added, "
            f"{event['bound']} bound, {event['pending']} pending")


def format_plan(out: dict, template_name: str) -> str:
    n = out["nodesToAdd"]
    lines = [f"nodes to add: {n}" + (f" ({template_name}-1 .. {template_name}-{n})" if n else "")]
    if out["maxNodesReached"]:
        lines.append("  --max-nodes reached: more copies might bind more pods")
    lines.append("search: " + ", ".join(f"{r['nodes']} -> {r['bound']} bound"
                                        for r in out["search"]))
    if out["stillPending"]:
        lines.append(f"still pending with any number of copies ({len(out['stillPending'])}):")
        for p in out["stillPending"]:
            lines.append(f"  {p['pod']}: {p['message']}")
            if p["onTemplate"]:
                lines.append(f"    on a copy of {template_name}: {p['onTemplate']}")
    shapes = out["capacity"].get("shapes", []) if out["capacity"] else []
    if shapes:
        lines.append("more copies that fit after adding them:")
        for row in shapes:
            more = f"{row['moreFit']}+" if row["limited"] else str(row["moreFit"])
            why = f"; then: {row['stoppedBy']}" if row["stoppedBy"] else ""
            lines.append(f"  {row['pod']} ({row['shapeOf']} pending like it): {more}{why}")
    return "\n".join(lines) + "\n"


def optimize_command(args, run: dict) -> int:
    if not args.time_limit > 0:
        raise InputError(f"--time-limit must be more than 0, got {args.time_limit:g}")
    if args.workers < 1:
        raise InputError(f"--workers must be 1 or more, got {args.workers}")
    scenario = scenario_of(args, run)
    out = optimize(scenario, time_limit=args.time_limit, workers=args.workers,
                   limits=Limits(args.max_solver_nodes, args.max_solver_pods),
                   progress=lambda e: print(f"optimize: {_solver_line(e)}", file=sys.stderr,
                                            flush=True))
    if args.output == "json":
        sys.stdout.write(json.dumps(out, indent=2) + "\n")
    else:
        sys.stdout.write(format_optimize(out))
    return 0


def _solver_line(event: dict) -> str:
    if event["phase"] == "model":
        return f"modelling {event['pods']} pending pod(s) on {event['nodes']} node(s)"
    return f"{event['status']} after {event['seconds']}s"


def format_optimize(out: dict) -> str:
    sched, best = out["scheduler"], out["optimal"]
    lines = [f"scheduler: {sched['bound']} bound; global placement ({best['status']}): "
             f"{best['bound']} bound"]
    width = max([len("POD")] + [len(k) for k in best["bindings"]])
    lines.append(f"{'POD':<{width}}  SCHEDULER  GLOBAL")
    for pod, node in best["bindings"].items():
        lines.append(f"{pod:<{width}}  {sched['bindings'].get(pod) or '-':<9}  {node or '-'}")
    for g in out["gained"]:
        b = g["blockedBy"]
        if b is not None:
            lines.append(f"{g['pod']} fits {g['optimalNode']}, which cycle {b['cycle']} gave to "
                         f"{b['pod']} (globally on {b['optimalNode'] or 'no node'})")
    if sched["violations"]:
        lines.append("bound by the scheduler, broken by a pod bound later (affinity and spread "
                     "are checked in the pod's own cycle only):")
        lines += [f"  {v['pod']} on {v['node']}: {v['plugin']}: {v['message']}"
                  for v in sched["violations"]]
    if sched["preempted"]:
        lines.append("preempted by the scheduler (the global placement keeps running pods "
                     "where they are): " + ", ".join(sched["preempted"]))
    if out["unmodelled"]:
        lines.append("not modelled by the solver: " + ", ".join(out["unmodelled"]))
    return "\n".join(lines) + "\n"
