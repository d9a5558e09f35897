"""python -m scheduler_core sweep: one cluster under every variant of a grid, from the command line.

The grid file is the spec the playground's sweep API takes (scheduler_core.whatif.sweep), checked
by the same `expand`, so a bad grid is refused in the same words (the file named before them).
Each variant runs with `run_variant`, in this process or spread over --workers processes (the
variants are independent; the results are printed in variant order whatever order they end in).
A variant that fails is reported with its error and the others go on, as in the playground.
"""
from __future__ import annotations

import json
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed

from ..errors import InputError
from ..loader import read_sources
from .scenario import Frozen, Scenario
from .sweep import DEFAULT_MAX_VARIANTS, Variant, expand, run_variant

COLUMNS = (("BOUND", "bound"), ("PENDING", "pending"), ("CPU-SPREAD", "cpuSpread"),
           ("MEM-SPREAD", "memorySpread"), ("FRAGMENTATION", "fragmentation"),
           ("PREEMPTIONS", "preemptions"), ("SCORE", "placementScore"))


def add_flags(p) -> None:
    p.add_argument("--grid", required=True, metavar="GRID.yaml",
                   help="the axes to vary (YAML or JSON): weights, strategies, "
                        "percentageOfNodesToScore, releases, disabled, featureGates")
    p.add_argument("--workers", type=int, default=1,
                   help="run the variants on this many processes (default 1)")
    p.add_argument("--max-variants", type=int, default=DEFAULT_MAX_VARIANTS,
                   help="refuse a grid of more variants than this (default %(default)s)")


def read_grid(path: str) -> dict:
    """The one document of the grid file (InputError naming the file otherwise)."""
    [(_, docs)] = read_sources([path])
    if len(docs) != 1 or not isinstance(docs[0], dict) or not docs[0]:
        raise InputError("grid: give one object with at least one axis", file=path)
    return docs[0]


def sweep_command(args, run: dict) -> int:
    if args.workers < 1:
        raise InputError(f"--workers must be 1 or more, got {args.workers}")
    if args.max_variants < 1:
        raise InputError(f"--max-variants must be 1 or more, got {args.max_variants}")
    spec = read_grid(args.grid)
    scenario = Scenario.from_files(args.files, config_file=args.config, seed=args.seed, **run)
    try:
        variants = expand(spec, scenario.base_config, base_release=run["features"].release,
                          max_variants=args.max_variants, out_of_tree=run["out_of_tree"],
                          limit_name="--max-variants", gates=args.feature_gates)
    except InputError as exc:
        raise InputError(str(exc), file=args.grid) from exc
    known = set(scenario.warnings)
    job = (scenario.frozen, args.seed, run["out_of_tree"], args.feature_gates)
    rows = [_row(v, outcome, known, run["warn"]) for v, outcome in
            zip(variants, run_all(variants, job, args.workers), strict=True)]
    out = {"schemaVersion": 1, "release": run["features"].release,
           "featureGates": args.feature_gates or "",
           "warnings": scenario.warnings.to_list(), "variants": rows}
    if args.output == "json":
        sys.stdout.write(json.dumps(out, indent=2) + "\n")
    else:
        sys.stdout.write(format_sweep(out))
    return 0


def outcome(variant: Variant, sources: Frozen, seed: int, out_of_tree: dict,
            gates: str) -> dict:
    """One variant's measures and warnings, or its error: never raised, so that one failure
    leaves the other variants (and a worker process) going."""
    try:
        result = run_variant(sources, variant, seed=seed, out_of_tree=out_of_tree, gates=gates)
    except InputError as exc:
        return {"error": str(exc)}
    except Exception as exc:   # a bug in one variant must not stop the others
        return {"error": f"internal error: {type(exc).__name__}: {exc}"}
    return {"metrics": result.metrics, "warnings": result.warnings}


def run_all(variants: list[Variant], job: tuple, workers: int) -> list[dict]:
    """Each variant's outcome, in variant order; a progress line on stderr as each ends."""
    results: list[dict | None] = [None] * len(variants)

    def done(variant: Variant, result: dict) -> None:
        results[variant.index] = result
        count = sum(r is not None for r in results)
        failed = f" failed: {result['error']}" if "error" in result else ""
        print(f"sweep: {count}/{len(variants)} done: variant {variant.index} "
              f"({variant.label}){failed}", file=sys.stderr, flush=True)

    if workers == 1:
        for variant in variants:
            done(variant, outcome(variant, *job))
        return results
    with ProcessPoolExecutor(max_workers=min(workers, len(variants))) as pool:
        futures = {pool.submit(outcome, v, *job): v for v in variants}
        for future in as_completed(futures):
            try:
                result = future.result()
            except Exception as exc:   # the worker process itself died
                result = {"error": f"internal error: {type(exc).__name__}: {exc}"}
            done(futures[future], result)
    return results


def _row(variant: Variant, result: dict, known: set[str], warn) -> dict:
    row = {"index": variant.index, "label": variant.label, "params": variant.params}
    if "error" in result:
        return {**row, "error": result["error"]}
    new = [line for line in result["warnings"] if line not in known]
    for line in new:
        warn(f"variant {variant.index} ({variant.label}): {line}")
    return {**row, **result["metrics"], "warnings": new}


def format_sweep(out: dict) -> str:
    width = max([len("VARIANT")] + [len(r["label"]) for r in out["variants"]])
    lines = [f"{'VARIANT':<{width}}  " + "  ".join(h for h, _ in COLUMNS)]
    for row in out["variants"]:
        if "error" in row:
            lines.append(f"{row['label']:<{width}}  error: {row['error']}")
            continue
        cells = [f"{row[key]:>{len(head)}}" for head, key in COLUMNS]
        lines.append(f"{row['label']:<{width}}  " + "  ".join(cells))
    return "\n".join(lines) + "\n"
