"""sweep: one cluster scheduled under a grid of configurations, each variant measured.

A grid spec names the axes to vary; its variants are their cartesian product, each a
KubeSchedulerConfiguration derived from the cluster's own (every profile changed alike):

    {"weights": {"NodeResourcesFit": [1, 5]},          # Score plugin -> weights tried
     "strategies": ["LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"],
     "percentageOfNodesToScore": [0, 50, 100],
     "releases": ["1.36", "1.37"],
     "disabled": [[], ["ImageLocality"]],              # plugin sets turned off (multiPoint)
     "featureGates": ["", "OpportunisticBatching=false", {"DRADeviceTaints": False}]}

An axis left out keeps the cluster's configuration. A weight is set in `plugins.score`
(which overrides the multiPoint default, as mergePluginSet does); a strategy replaces the
`type` of NodeResourcesFit's `scoringStrategy` and keeps its `resources` (a
RequestedToCapacityRatio without a shape gets the bin-packing one {0:0, 100:10}); a plugin
set is added to `plugins.multiPoint.disabled`; a set of feature gates (kube-scheduler's
`--feature-gates` text, or a map of gate to true/false; "" keeps the release's defaults) is
set on top of the variant's release and of the command's own --feature-gates, and refused
as kube-scheduler refuses it at that release (unknown gate, locked gate, dependency), naming
the variant and the grid field. Every variant's configuration is checked by
the engine's own parse_configuration when the grid is expanded, so a bad grid is refused
before anything runs.

Each variant runs as simulate does (load, build_scheduler, run) and is measured:
- bound / pending: pods with and without a node at the end;
- cpuSpread / memorySpread: the population standard deviation, over the nodes, of each
  node's requested / allocatable (0..1): low is balanced, high is packed unevenly;
- fragmentation: the share of the cluster's free CPU that sits on nodes where the median
  pending pod (by CPU request, then memory) does not fit by its requests; free capacity that
  cannot take the pods that wait. 0 when nothing is pending or nothing is free. Resources
  only: a node refused by affinity or taints is not counted as fragmented here;
- preemptions: pods deleted as preemption victims;
- placementScore: the sum, over the pods bound, of the totalScore of the node chosen (the
  sum of the weighted, normalized Score plugins). A cycle with one feasible node is not
  scored (as in kube-scheduler) and adds 0.
"""
from __future__ import annotations

import copy
import itertools
import math
import statistics
from dataclasses import dataclass, field

from ..build import build_scheduler
from ..config import API_VERSION, parse_configuration
from ..errors import InputError
from ..features import FeatureGateError, feature_gates, flag_text, parse_release
from ..framework.handle import FakeHandle
from ..framework.interfaces import ScorePlugin
from ..loader import load_documents
from ..observe import CycleRecorder, MultiObserver, Observer
from ..plugins.registry import default_registry
from .scenario import Frozen

DEFAULT_MAX_VARIANTS = 500
AXES = ("weights", "strategies", "percentageOfNodesToScore", "releases", "disabled",
        "featureGates")
STRATEGIES = ("LeastAllocated", "MostAllocated", "RequestedToCapacityRatio")
NODE_RESOURCES_FIT = "NodeResourcesFit"
# Go's MaxWeight for a Score plugin (config validation: weight in [1, 100] once defaulted).
MAX_WEIGHT = 100
BIN_PACKING_SHAPE = [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]


@dataclass
class Variant:
    index: int
    params: dict
    config: dict
    release: str

    @property
    def gates(self) -> str:
        """The variant's own feature gates, as --feature-gates takes them ("" for none)."""
        return self.params.get("featureGates", "")

    @property
    def label(self) -> str:
        parts = [f"{name}={w}" for name, w in sorted(self.params.get("weights", {}).items())]
        for key in ("strategy", "percentageOfNodesToScore", "release"):
            if key in self.params:
                parts.append(f"{key}={self.params[key]}")
        if "disabled" in self.params:
            parts.append("disabled=" + ("+".join(self.params["disabled"]) or "none"))
        if "featureGates" in self.params:
            parts.append("featureGates=" + (self.gates or "defaults"))
        return ", ".join(parts) or "as configured"


# --- the grid -------------------------------------------------------------------------------

def _values(spec: dict, axis: str) -> list:
    values = spec[axis]
    if not isinstance(values, list) or not values:
        raise InputError(f"grid.{axis}: must be a non-empty list")
    return values


def _check_weights(spec: dict) -> dict[str, list[int]]:
    weights = spec["weights"]
    if not isinstance(weights, dict) or not weights:
        raise InputError("grid.weights: must map Score plugin names to lists of weights")
    out = {}
    for name, values in weights.items():
        path = f"grid.weights.{name}"
        if not isinstance(values, list) or not values:
            raise InputError(f"{path}: must be a non-empty list of weights")
        for w in values:
            if isinstance(w, bool) or not isinstance(w, int) or not 1 <= w <= MAX_WEIGHT:
                raise InputError(f"{path}: {w!r} is not a weight (a whole number from 1 to "
                                 f"{MAX_WEIGHT})")
        out[name] = values
    return out


def _check_strategy(value, path: str):
    kind = value.get("type") if isinstance(value, dict) else value
    if kind not in STRATEGIES:
        raise InputError(f"{path}: {value!r} is not a scoring strategy; accepted: "
                         f"{', '.join(STRATEGIES)} (or a scoringStrategy object with one as "
                         "its type)")
    return value


def _check_percentage(value, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 100:
        raise InputError(f"{path}: {value!r} is not a percentage (a whole number from 0 to "
                         "100; 0 means the adaptive default)")
    return value


def _check_disabled(value, path: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(n, str) and n for n in value):
        raise InputError(f"{path}: must be a list of plugin names")
    return value


def _check_gates(value, path: str) -> str:
    """One set of gates as --feature-gates text: checked against a release in expand."""
    if isinstance(value, str):
        return value.strip()
    if not isinstance(value, dict):
        raise InputError(f"{path}: {value!r} is not a set of feature gates (give "
                         "\"A=true,B=false\" as kube-scheduler's --feature-gates takes it, or a "
                         "map of gate names to true or false)")
    for name, on in value.items():
        if not isinstance(name, str) or not isinstance(on, bool):
            raise InputError(f"{path}.{name}: {on!r} is not true or false")
    return flag_text(value.items())


def _axes(spec) -> list[tuple[str, list]]:
    """[(param key, [values])] in AXES order, each value checked; weights give one axis per
    plugin."""
    if not isinstance(spec, dict):
        raise InputError("grid: must be an object with any of " + ", ".join(AXES))
    unknown = sorted(set(spec) - set(AXES))
    if unknown:
        raise InputError(f"grid.{unknown[0]}: unknown axis; accepted: {', '.join(AXES)}")
    axes: list[tuple[str, list]] = []
    if "weights" in spec:
        axes += [(f"weight:{name}", values) for name, values in _check_weights(spec).items()]
    if "strategies" in spec:
        axes.append(("strategy", [_check_strategy(v, f"grid.strategies[{i}]")
                                  for i, v in enumerate(_values(spec, "strategies"))]))
    if "percentageOfNodesToScore" in spec:
        axes.append(("percentageOfNodesToScore",
                     [_check_percentage(v, f"grid.percentageOfNodesToScore[{i}]")
                      for i, v in enumerate(_values(spec, "percentageOfNodesToScore"))]))
    if "releases" in spec:
        axes.append(("release", [parse_release(v, field=f"grid.releases[{i}]")
                                 for i, v in enumerate(_values(spec, "releases"))]))
    if "disabled" in spec:
        axes.append(("disabled", [_check_disabled(v, f"grid.disabled[{i}]")
                                  for i, v in enumerate(_values(spec, "disabled"))]))
    if "featureGates" in spec:
        axes.append(("featureGates", [_check_gates(v, f"grid.featureGates[{i}]")
                                      for i, v in enumerate(_values(spec, "featureGates"))]))
    return axes


def count_variants(spec) -> int:
    return math.prod(len(values) for _, values in _axes(spec))


def _params(keys: list[str], combo: tuple) -> dict:
    params: dict = {}
    for key, value in zip(keys, combo, strict=True):
        if key.startswith("weight:"):
            params.setdefault("weights", {})[key.removeprefix("weight:")] = value
        else:
            params[key] = value
    return params


def expand(spec, base_config: dict | None, *, base_release: str,
           max_variants: int = DEFAULT_MAX_VARIANTS, out_of_tree: dict | None = None,
           limit_name: str = "the limit", gates: str = "") -> list[Variant]:
    """The grid's variants, each configuration checked by the engine; InputError names the
    field, the limit (limit_name: the setting that sets it) or the variant that is refused.
    gates: --feature-gates, set on top of each variant's release."""
    axes = _axes(spec)
    total = math.prod(len(values) for _, values in axes)
    if total > max_variants:
        raise InputError(f"grid: {total} variants is more than {limit_name} of {max_variants}")
    keys = [key for key, _ in axes]
    gate_sets = dict(axes).get("featureGates", [])
    registries: dict[tuple[str, str], object] = {}
    variants = []
    for index, combo in enumerate(itertools.product(*(values for _, values in axes))):
        params = _params(keys, combo)
        variant = Variant(index, params, variant_config(base_config, params),
                          params.get("release", base_release))
        key = (variant.release, variant.gates)
        if key not in registries:
            features = _gates_of(variant, gates, gate_sets)
            registries[key] = (default_registry(out_of_tree, features=features), features)
        registry, features = registries[key]
        _check_plugins(params, registry)
        try:
            parse_configuration(variant.config, registry, features=features)
        except InputError as exc:
            raise InputError(f"grid: variant {index} ({variant.label}): {exc}") from exc
        variants.append(variant)
    return variants


def variant_gates(variant: Variant, gates: str = ""):
    """The variant's FeatureGates: its release's defaults, then the command's --feature-gates
    (gates), then the variant's own on top (a later setting of a gate wins, as in Go's Set)."""
    return feature_gates(variant.release, ",".join(g for g in (gates, variant.gates) if g))


def _gates_of(variant: Variant, gates: str, gate_sets: list[str]):
    """variant_gates, or InputError blaming --feature-gates when the release refuses it alone,
    else the variant's grid.featureGates entry (kube-scheduler's words, without its flag's)."""
    try:
        feature_gates(variant.release, gates)
    except InputError as exc:
        raise InputError(f"grid: release {variant.release}: {exc}") from exc
    try:
        return variant_gates(variant, gates)
    except FeatureGateError as exc:
        raise InputError(
            f"grid: variant {variant.index} ({variant.label}): grid.featureGates"
            f"[{gate_sets.index(variant.gates)}]: kube-scheduler v{variant.release} refuses "
            f"\"{variant.gates}\": {exc.detail}") from exc


def _check_plugins(params: dict, registry) -> None:
    for name in params.get("weights", {}):
        if name not in registry:
            raise InputError(f"grid.weights.{name}: no such plugin")
        spec = registry.spec(name)
        if not isinstance(spec.new(spec.default_args({}), FakeHandle()), ScorePlugin):
            raise InputError(f"grid.weights.{name}: not a Score plugin (it has no weight)")
    for name in params.get("disabled", []):
        if name not in registry:
            raise InputError(f"grid.disabled: {name}: no such plugin")


# --- one variant's configuration -------------------------------------------------------------

def variant_config(base: dict | None, params: dict) -> dict:
    """The base KubeSchedulerConfiguration with the variant's settings in every profile."""
    config = copy.deepcopy(base) if base else {"apiVersion": API_VERSION,
                                               "kind": "KubeSchedulerConfiguration"}
    if "percentageOfNodesToScore" in params:
        config["percentageOfNodesToScore"] = params["percentageOfNodesToScore"]
    profiles = config.get("profiles") or [{"schedulerName": "default-scheduler"}]
    config["profiles"] = profiles
    for profile in profiles:
        plugins = profile.setdefault("plugins", {})
        for name, weight in params.get("weights", {}).items():
            _set_weight(plugins.setdefault("score", {}), name, weight)
        if "disabled" in params:
            multi = plugins.setdefault("multiPoint", {})
            disabled = multi.setdefault("disabled", [])
            known = {d.get("name") for d in disabled}
            disabled += [{"name": n} for n in params["disabled"] if n not in known]
        if "strategy" in params:
            _set_strategy(profile, params["strategy"])
    return config


def _set_weight(point: dict, name: str, weight: int) -> None:
    enabled = point.setdefault("enabled", [])
    for ref in enabled:
        if ref.get("name") == name:
            ref["weight"] = weight
            return
    enabled.append({"name": name, "weight": weight})


def _set_strategy(profile: dict, strategy) -> None:
    configs = profile.setdefault("pluginConfig", [])
    entry = next((c for c in configs if c.get("name") == NODE_RESOURCES_FIT), None)
    if entry is None:
        entry = {"name": NODE_RESOURCES_FIT, "args": {}}
        configs.append(entry)
    args = entry.setdefault("args", {})
    if isinstance(strategy, dict):
        args["scoringStrategy"] = copy.deepcopy(strategy)
        return
    current = dict(args.get("scoringStrategy") or {})
    current["type"] = strategy
    if strategy == "RequestedToCapacityRatio":
        current.setdefault("requestedToCapacityRatio", {"shape": BIN_PACKING_SHAPE})
    else:
        current.pop("requestedToCapacityRatio", None)
    args["scoringStrategy"] = current


# --- one variant's run and its measures ----------------------------------------------------

class _ScoreRecorder(CycleRecorder):
    """Keeps the totals of the cycle's feasible nodes, to read the chosen one's at the end."""

    def __init__(self, tally: _Tally):
        self.tally, self.nodes, self.totals = tally, None, None

    def filter_many(self, plugins, names, rows, stops, statuses) -> None:
        """Not wanted: the base class would build every node's Filter trail (a quarter of a
        variant's time at 500 nodes) for nothing. (per_node must stay True: the totals
        are only shown to a recorder that takes the Filter and Score points.)"""

    def total_scores(self, nodes, totals) -> None:
        self.nodes, self.totals = nodes, totals

    def finish(self, outcome, node, message, time) -> None:
        if outcome == "Bound" and self.nodes is not None:
            index = next(i for i, ni in enumerate(self.nodes) if ni.name == node)
            self.tally.score += int(self.totals[index])


@dataclass
class _Tally(Observer):
    score: int = 0
    preemptions: int = 0

    def begin_cycle(self, index, time, pod, profile):
        return _ScoreRecorder(self)

    def pod_event(self, event, pod, time, detail=None):
        if event == "preempted":
            self.preemptions += 1


@dataclass
class VariantResult:
    bindings: dict[str, str | None]
    metrics: dict
    warnings: list[str] = field(default_factory=list)


def run_variant(sources: Frozen, variant: Variant, *, seed: int = 0,
                checked: bool = True, out_of_tree: dict | None = None,
                gates: str = "") -> VariantResult:
    """The variant run to the end as simulate runs it (a timeline too), then measured.
    sources: the [(file, [document, ...])] load_documents takes, frozen once for every
    variant run here; gates: --feature-gates on top of the variant's release (the variant's
    own gates on top of them); kube-scheduler's warnings on setting them are the run's."""
    features = variant_gates(variant, gates)
    cluster = load_documents(sources.thaw(), seed, checked=checked, features=features)
    for note in features.notes:
        cluster.warnings.append(note)
    tally = _Tally()
    scheduler = build_scheduler(cluster, variant.config, seed=seed, observer=tally,
                                out_of_tree=out_of_tree)
    if scheduler.life is not None and scheduler.life.steps:
        scheduler.set_observer(MultiObserver([tally, scheduler.life.recorder]))
    scheduler.run()
    return VariantResult(dict(scheduler.bindings), measure(scheduler, tally),
                         scheduler.warnings.to_list())


def measure(scheduler, tally: _Tally) -> dict:
    scheduler.cache.update_snapshot(scheduler.snapshot)
    nodes = [ni for ni in scheduler.snapshot.list() if ni.node is not None]
    bound = sum(1 for node in scheduler.bindings.values() if node)
    return {"pods": len(scheduler.bindings), "bound": bound,
            "pending": len(scheduler.bindings) - bound,
            "cpuSpread": _spread(nodes, "cpu"), "memorySpread": _spread(nodes, "memory"),
            "fragmentation": fragmentation(nodes, _pending_requests(scheduler)),
            "preemptions": tally.preemptions, "placementScore": tally.score,
            "cycles": scheduler.cycle_count}


def _spread(nodes, resource: str) -> float:
    shares = [ni.requested.get(resource) / ni.allocatable.get(resource)
              for ni in nodes if ni.allocatable.get(resource) > 0]
    return round(statistics.pstdev(shares), 4) if shares else 0.0


def _pending_requests(scheduler) -> list[tuple[int, int]]:
    pending = {key for key, node in scheduler.bindings.items() if not node}
    return [(p.requests.milli_cpu, p.requests.memory) for p in scheduler.pods
            if p.key in pending]


def fragmentation(nodes, pending: list[tuple[int, int]]) -> float:
    """The share of free CPU on nodes the median pending pod does not fit (module doc)."""
    if not pending:
        return 0.0
    cpu, memory = sorted(pending)[(len(pending) - 1) // 2]
    free_total = stranded = 0
    for ni in nodes:
        free_cpu = max(ni.allocatable.milli_cpu - ni.requested.milli_cpu, 0)
        free_memory = ni.allocatable.memory - ni.requested.memory
        free_total += free_cpu
        if free_cpu < cpu or free_memory < memory:
            stranded += free_cpu
    return round(stranded / free_total, 4) if free_total else 0.0
