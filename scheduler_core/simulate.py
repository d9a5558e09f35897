"""simulate(): load files, build the scheduler, run it to the end, return the trace."""
from __future__ import annotations

import gc
import json
from contextlib import contextmanager
from dataclasses import dataclass

from .build import build_scheduler
from .errors import InputError
from .features import DEFAULT_GATES, FeatureGates
from .field_validation import WARN
from .loader import load_files
from .observe import MultiObserver, OutcomeObserver, TraceObserver
from .plugins.registry import default_registry
from .scheduler import Scheduler

SCHEMA_VERSION = 1


@dataclass
class SimulationResult:
    scheduler: Scheduler
    trace: TraceObserver | None
    outcomes: OutcomeObserver | None = None

    def head(self) -> dict:
        features = self.scheduler.features
        head = {"schemaVersion": SCHEMA_VERSION, "release": features.release}
        if features.overrides:   # the --feature-gates that reproduces the run
            head["featureGates"] = features.flag()
        head.update(warnings=self.scheduler.warnings.to_list(),
                    bindings=dict(self.scheduler.bindings))
        life = self.scheduler.life
        if life is not None and life.steps:
            head["timeline"] = life.to_json()
        return head

    def counts(self) -> dict:
        bindings = self.scheduler.bindings
        bound = sum(1 for node in bindings.values() if node)
        return {"pods": len(bindings), "bound": bound, "pending": len(bindings) - bound,
                "cycles": self.scheduler.cycle_count}

    def to_summary(self) -> dict:
        """`--output summary`: bindings, counts and each cycle's outcome, no per-node detail."""
        cycles = self.outcomes.to_list() if self.outcomes else []
        return {**self.head(), "counts": self.counts(), "cycles": cycles}

    def to_json(self) -> dict:
        return {**self.head(), "cycles": self.trace.to_list() if self.trace else []}

    def write_json(self, out) -> None:
        """The contract's JSON, streamed cycle by cycle rather than built whole in memory."""
        if self.trace is None:
            out.write(json.dumps(self.to_json(), indent=2))
        else:
            self.trace.write_json(out, self.head())


def load_scheduler(paths: list[str], *, config_file: str | None = None, seed: int = 0,
                   observer=None, out_of_tree: dict | None = None, warn=None,
                   texts: dict[str, str] | None = None, until: float | None = None,
                   features: FeatureGates = DEFAULT_GATES, field_validation: str = WARN,
                   drop_removed_plugins: bool = False) -> Scheduler:
    """The scheduler over the files (texts: their contents, instead of reading them).

    warn(line) is called with every warning line of the run, as it is emitted (the loader's
    first, then those of the configuration and the plugins); features: the release and gates;
    field_validation: the API server's (Warn, Strict, Ignore) for the objects' fields;
    drop_removed_plugins: removed plugins left out of the configuration, a warning each."""
    cluster = load_files(list(paths) + ([config_file] if config_file else []), texts, seed,
                         features=features, field_validation=field_validation)
    if config_file and cluster.config_file != config_file:
        raise InputError("no KubeSchedulerConfiguration document", file=config_file)
    for note in features.notes:
        cluster.warnings.append(note)
    if warn is not None:
        cluster.warnings.subscribe(warn)
    return build_scheduler(cluster, config_file=cluster.config_file, seed=seed,
                           observer=observer, out_of_tree=out_of_tree, until=until,
                           drop_removed_plugins=drop_removed_plugins)


@contextmanager
def collector_for_a_run():
    """Python's cyclic garbage collector kept off what a run is built from.

    Loading makes hundreds of thousands of objects (nodes, pods, their parsed specs) that all
    live until the run ends, and each of the collector's full passes would walk them again
    (7 to 10% of a 5,000-node run's CPU time). So the collector is off while loading, and what
    was loaded is then frozen (gc.freeze: left out of every later pass) for the run; yields
    `loaded()`, to call once the scheduler is built. Leaving unfreezes it, so that a longer-
    lived process still collects it afterwards."""
    was_enabled = gc.isenabled()
    gc.disable()

    def loaded() -> None:
        gc.freeze()
        if was_enabled:
            gc.enable()

    try:
        yield loaded
    finally:
        gc.unfreeze()
        if was_enabled:
            gc.enable()


def simulate(paths: list[str], *, config_file: str | None = None, seed: int = 0,
             max_cycles: int | None = None, out_of_tree: dict | None = None,
             warn=None, observe: bool = True, summary: bool = False,
             until: float | None = None, features: FeatureGates = DEFAULT_GATES,
             field_validation: str = WARN, drop_removed_plugins: bool = False
             ) -> SimulationResult:
    """observe: keep the contract's full trace; summary: keep only each cycle's outcome;
    until: stop at that virtual second (None: the default of build.default_until);
    field_validation and drop_removed_plugins as load_scheduler takes them."""
    trace = TraceObserver() if observe and not summary else None
    outcomes = OutcomeObserver() if summary else None
    with collector_for_a_run() as loaded:
        scheduler = load_scheduler(paths, config_file=config_file, seed=seed,
                                   observer=trace or outcomes, out_of_tree=out_of_tree,
                                   warn=warn, until=until, features=features,
                                   field_validation=field_validation,
                                   drop_removed_plugins=drop_removed_plugins)
        loaded()
        if scheduler.life is not None and scheduler.life.steps:   # only a timeline is recorded
            scheduler.set_observer(MultiObserver(
                [o for o in (trace or outcomes, scheduler.life.recorder) if o is not None]))
        scheduler.run(max_cycles)
    return SimulationResult(scheduler, trace, outcomes)


def format_table(result: SimulationResult) -> str:
    s = result.scheduler
    reasons = s.pending_reasons()
    rows = [(key, node or "-", "" if node else reasons.get(key, "pending"))
            for key, node in s.bindings.items()]
    width = max([len("POD")] + [len(r[0]) for r in rows])
    node_width = max([len("NODE")] + [len(r[1]) for r in rows])
    lines = [f"{'POD':<{width}}  {'NODE':<{node_width}}  REASON"]
    lines += [f"{k:<{width}}  {n:<{node_width}}  {why}".rstrip() for k, n, why in rows]
    bound = sum(1 for n in s.bindings.values() if n)
    lines.append("")
    lines.append(f"{bound} of {len(s.bindings)} pods bound in {s.cycle_count} cycles, "
                 f"virtual time {s.clock:g}s")
    return "\n".join(lines) + "\n"


def list_plugins(out_of_tree: dict | None = None) -> str:
    """One line per registered plugin: its name and the extension points it implements."""
    from .framework.handle import FakeHandle
    from .framework.interfaces import EXTENSION_POINTS
    registry = default_registry(out_of_tree)
    lines = []
    for name in registry.names():
        spec = registry.spec(name)
        plugin = spec.new(spec.default_args({}), FakeHandle())
        points = [p for p, iface in EXTENSION_POINTS.items() if isinstance(plugin, iface)]
        lines.append(f"{name:<34} {', '.join(points)}")
    return "\n".join(lines)
