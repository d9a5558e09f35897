"""python -m scheduler_core simulate|bench|plugins|plan|optimize|sweep: the engine's command-line
face (the what-if commands' own in scheduler_core.whatif.commands)."""
from __future__ import annotations

import argparse
import json
import re
import sys

import yaml

from .errors import InputError
from .features import DEFAULT_RELEASE, RELEASES, FeatureGates, feature_gates, parse_release
from .field_validation import STRICT, WARN
from .framework.registry import RegistryError
from .outoftree import PLUGINS as BUNDLED_PLUGINS
from .whatif import commands as whatif
from .whatif.sweep_command import sweep_command

EXIT_BAD_INPUT = 2
OUTPUTS = ("json", "yaml", "summary", "table", "simulator")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
WHATIF = {"plan": whatif.plan_command, "optimize": whatif.optimize_command,
          "sweep": sweep_command}


def _simulate_parser(sub) -> None:
    p = sub.add_parser("simulate", help="run the scheduling framework over a cluster")
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="YAML or JSON files of Kubernetes objects (a List, kubectl's *List "
                        "kinds, a KubeSchedulerConfiguration, a kube-scheduler-simulator "
                        "export); - reads standard input")
    p.add_argument("--config", metavar="KSC.yaml",
                   help="a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1); "
                        "without one, kube-scheduler's default profile")
    p.add_argument("--seed", type=int, default=0,
                   help="the random tie-break between equally scored nodes (default 0): the "
                        "same input and seed give the same output")
    p.add_argument("-o", "--output", choices=OUTPUTS, default="table",
                   help="json: every extension point of every cycle; yaml: the same as YAML; "
                        "summary: each cycle's outcome only; table (default): one line per "
                        "pod; simulator: kube-scheduler-simulator's /api/v1/export JSON, its "
                        "result annotations on every pod")
    p.add_argument("--max-cycles", type=int, default=None, metavar="N",
                   help="stop after N scheduling cycles (default: run until nothing changes)")
    p.add_argument("--until", type=float, default=None, metavar="SECONDS",
                   help="stop at this virtual time (default: when nothing can change any "
                        "more; 3600 when the input has a CronJob)")
    p.add_argument("--plugin", action="append", default=[], metavar="NAME=MODULE[:FACTORY]",
                   help="register an out-of-tree plugin (like app.WithPlugin); the bundled "
                        f"ones ({', '.join(BUNDLED_PLUGINS)}) are registered already")
    p.add_argument("--strict", action="store_true",
                   help="refuse an object with an unknown or repeated field, as the API server "
                        "does with fieldValidation=Strict (default: a warning, the field left "
                        "out, as with fieldValidation=Warn)")
    p.add_argument("--drop-removed-plugins", action="store_true",
                   help="leave out plugins kube-scheduler has removed (EBSLimits, GCEPDLimits, "
                        "AzureDiskLimits, ... as older kube-scheduler-simulator exports name "
                        "them), one warning each, instead of refusing the configuration")
    add_release_flags(p)


def _bench_parser(sub) -> None:
    bench = sub.add_parser("bench", help="benchmark scheduling throughput")
    bench.add_argument("--nodes", default="100,1000,5000",
                       help="cluster sizes, separated by commas (default 100,1000,5000)")
    bench.add_argument("--pods", type=int, default=None,
                       help="pods to schedule per run (default: the workload's own count)")
    bench.add_argument("--workloads", default="SchedulingBasic",
                       help="scheduler_perf workload names separated by commas, or all")
    bench.add_argument("--profile", choices=("minimal", "default"), default="default",
                       help="the scheduler profile: kube-scheduler's default, or a minimal one")
    bench.add_argument("--trace", choices=("off", "on", "both"), default="both",
                       help="measure without per-node detail, with the JSON trace, or both")
    bench.add_argument("--repeat", type=int, default=1,
                       help="run each measurement N times and print the medians")
    add_release_flags(bench)


def add_release_flags(p) -> None:
    """--release and --feature-gates, for every command that runs the engine."""
    p.add_argument("--release", default=None, metavar="1.3X",
                   help=f"the kube-scheduler release to follow ({', '.join(RELEASES)}; "
                        f"default {DEFAULT_RELEASE})")
    p.add_argument("--feature-gates", default="", metavar="NAME=BOOL,...",
                   help="feature gates on top of the release's defaults, as kube-scheduler "
                        "takes them")


def gates_of(args) -> FeatureGates:
    """The run's release and gates from the flags; InputError (exit 2) when refused."""
    return feature_gates(parse_release(args.release), args.feature_gates)


def print_warning(line: str) -> None:
    print(f"Warning: {printable(line)}", file=sys.stderr)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m scheduler_core")
    sub = parser.add_subparsers(dest="command", required=True)
    _simulate_parser(sub)
    _bench_parser(sub)
    sub.add_parser("plugins", help="list registered plugins and their extension points")
    _import_parser(sub)
    whatif.add_parsers(sub, add_release_flags)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "simulate":
        return simulate_command(args)
    if args.command == "import-cluster":
        return import_command(args)
    if args.command in WHATIF:
        return _bad_input_exits(WHATIF[args.command], args)
    if args.command == "bench":
        from .bench import bench_command
        return bench_command(args)
    from .simulate import list_plugins
    print(list_plugins(BUNDLED_PLUGINS))
    return 0


def simulate_command(args) -> int:
    from .simulate import format_table, simulate
    try:
        out_of_tree = _out_of_tree(args)
        if args.until is not None and not args.until >= 0:
            raise InputError(f"--until must be a number of seconds >= 0, got {args.until:g}")
        result = simulate(args.files, config_file=args.config, seed=args.seed,
                          max_cycles=args.max_cycles, out_of_tree=out_of_tree,
                          warn=print_warning, features=gates_of(args),
                          observe=args.output in ("json", "yaml", "simulator"),
                          summary=args.output == "summary", until=args.until,
                          field_validation=STRICT if args.strict else WARN,
                          drop_removed_plugins=args.drop_removed_plugins)
    except (InputError, RegistryError) as exc:
        print(f"error: {printable(str(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.output == "json":
        result.write_json(sys.stdout)
        sys.stdout.write("\n")
    elif args.output == "yaml":
        yaml.safe_dump(result.to_json(), sys.stdout, sort_keys=False, allow_unicode=True)
    elif args.output == "simulator":
        from .simulator_snap import export_resources
        resources = export_resources(result.scheduler, result.trace.to_list())
        sys.stdout.write(json.dumps(resources, indent=2) + "\n")
    elif args.output == "summary":
        sys.stdout.write(json.dumps(result.to_summary(), indent=2) + "\n")
    else:
        sys.stdout.write(format_table(result))
    return 0


def _import_parser(sub) -> None:
    p = sub.add_parser("import-cluster",
                       help="read a live cluster once through a kubeconfig; prints a v1 List "
                            "that simulate reads")
    p.add_argument("--kubeconfig", default=None,
                   help="the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)")
    p.add_argument("--context", default=None, help="the kubeconfig context (default: current)")
    p.add_argument("-n", "--namespace", action="append", default=[], metavar="NAMESPACE",
                   help="only this namespace's namespaced objects (repeatable; default: all)")
    p.add_argument("-l", "--selector", default="", metavar="SELECTOR",
                   help="label selector for the namespaced objects (pods, claims, ...), as "
                        "kubectl's -l; cluster-scoped objects are read whole")
    p.add_argument("--format", choices=("json", "yaml"), default="json",
                   help="how the List is printed")


def import_command(args) -> int:
    import os

    import yaml

    from .live_import import import_cluster
    path = args.kubeconfig or os.environ.get("KUBECONFIG") or os.path.expanduser(
        "~/.kube/config")
    try:
        result = import_cluster(
            path, context=args.context, namespaces=args.namespace or None,
            label_selector=args.selector,
            progress=lambda kind, n: print(f"imported {n} {kind} object(s)", file=sys.stderr))
    except InputError as exc:   # the API server checks the selector (HTTP 400)
        print(f"error: {printable(str(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    for line in result.warnings:
        print(f"warning: {line}", file=sys.stderr)
    listing = result.as_list()
    if args.format == "yaml":
        sys.stdout.write(yaml.safe_dump(listing, sort_keys=False))
    else:
        sys.stdout.write(json.dumps(listing, indent=2) + "\n")
    return 0


def _bad_input_exits(command, args) -> int:
    """A what-if command, given the run's plugins, release and warning sink as simulate's."""
    try:
        run = {"out_of_tree": _out_of_tree(args), "features": gates_of(args),
               "warn": print_warning}
        return command(args, run)
    except (InputError, RegistryError) as exc:
        print(f"error: {printable(str(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT


def _out_of_tree(args) -> dict[str, str]:
    """The bundled out-of-tree plugins (as the web registers them), then --plugin's."""
    return {**BUNDLED_PLUGINS, **dict(_parse_plugin_flag(p) for p in args.plugin)}


def printable(text: str) -> str:
    """One line without control characters (a NUL from the input, a newline): escaped as
    Go's %q escapes them, so a terminal or a log shows what the input held."""
    return _CONTROL.sub(lambda m: json.dumps(m.group())[1:-1], text)


def _parse_plugin_flag(text: str) -> tuple[str, str]:
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise InputError(f"--plugin takes NAME=MODULE[:FACTORY], got {text!r}")
    return name, path
