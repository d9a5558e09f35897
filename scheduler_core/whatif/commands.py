"""python -m scheduler_core plan|optimize: the what-if commands' command-line face.

They read their input as `simulate` does (FILEs, --config, --seed, --plugin) and follow its
bad-input rules; scheduler_core.cli turns an InputError into exit 2 with one line.
"""
from __future__ import annotations

import json
import sys

from ..errors import InputError
from .capacity import DEFAULT_MAX_COPIES
from .plan import DEFAULT_MAX_NODES, plan
from .scenario import Scenario
from .template import read_template


def _input_flags(p) -> None:
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--config", help="a KubeSchedulerConfiguration YAML")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--output", choices=("json", "table"), default="table")
    p.add_argument("--plugin", action="append", default=[], metavar="NAME=MODULE[:FACTORY]",
                   help="register an out-of-tree plugin (like app.WithPlugin)")


def add_parsers(sub) -> None:
    p = sub.add_parser("plan", help="how many copies of a node template every pending pod needs")
    _input_flags(p)
    p.add_argument("--node-template", required=True, metavar="NODE.yaml",
                   help="the Node to add copies of")
    p.add_argument("--max-nodes", type=int, default=DEFAULT_MAX_NODES)
    p.add_argument("--max-copies", type=int, default=DEFAULT_MAX_COPIES,
                   help="stop counting more copies of a pod at this many (0: do not count)")


def scenario_of(args, out_of_tree: dict) -> Scenario:
    return Scenario(args.files, config_file=args.config, seed=args.seed,
                    out_of_tree=out_of_tree,
                    warn=lambda line: print(f"warning: {line}", file=sys.stderr))


def _non_negative(value: int, flag: str) -> None:
    if value < 0:
        raise InputError(f"{flag} must be 0 or more, got {value}")


def plan_command(args, out_of_tree: dict) -> int:
    _non_negative(args.max_nodes, "--max-nodes")
    _non_negative(args.max_copies, "--max-copies")
    template = read_template(args.node_template)
    scenario = scenario_of(args, out_of_tree)
    result = plan(scenario, template, template_file=args.node_template,
                  max_nodes=args.max_nodes, max_copies=args.max_copies,
                  progress=lambda e: print(f"plan: {_progress_line(e)}", file=sys.stderr,
                                           flush=True))
    out = result.to_json()
    out["warnings"] = scenario.warnings
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
