"""python -m scheduler_core bench: scheduling throughput on scheduler_perf's workloads.

The workloads are scheduler_perf's (test/integration/scheduler_perf/{misc,affinity}/
performance-config.yaml in kubernetes/kubernetes), with its templates and pod counts: nodes of
4 cpu, 32Gi and 110 pods (node-default.yaml) labelled with hostname and zone; `initPods` already
running; then `measurePods` pending, measured. The counts are those of the workload's 500Nodes
variant below 5,000 nodes (scaled down with the node count under 500) and of its 5000Nodes
variant from 5,000 nodes up, so a 15,000-node run measures as many pods as a 5,000-node one.
Objects are built in memory, never through YAML.

Each measurement runs in a fresh interpreter (so one run's memory does not count in the next) and
reports the CPU time of the run to the end of the queue, the measured pods bound per second of
it, the Go floor (scheduler_perf's threshold for the workload) with the ratio to it, and the
process's peak resident memory. Every size runs twice: without per-node detail (the
`--output summary` path) and with the trace in its compact in-memory form; a traced run also
reports the trace's size per cycle and, apart, the CPU time of rendering it as the contract's
JSON.

A workload is a builder registered in WORKLOADS: `builder(nodes, pods) -> Workload`.
"""
from __future__ import annotations

import resource
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context

EXIT_BAD_INPUT = 2
HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
QUEUE_SORT, BINDER = "PrioritySort", "DefaultBinder"
SHAPE_SIZES = (500, 5000)


@dataclass
class Workload:
    nodes: list[dict]
    running: list[dict]          # pods already bound (spec.nodeName set), not measured
    pending: list[dict]          # the measured pods, queued in this order
    plugins: list[str] = field(default_factory=list)  # what --profile minimal enables
    floor: float | None = None   # scheduler_perf's threshold (pods/s) at 5,000 nodes
    unmeasured: list[dict] = field(default_factory=list)  # pending too, never counted


WORKLOADS: dict[str, Callable[[int, int | None], Workload]] = {}


def workload(name: str):
    def register(builder):
        WORKLOADS[name] = builder
        return builder
    return register


def shape(nodes: int, pods: int | None, counts: dict[int, tuple[int, int]]) -> tuple[int, int]:
    """(initPods, measurePods) of the scheduler_perf variant for this node count.

    counts maps 500 and 5000 to the variants' params; under 500 nodes the 500Nodes counts
    shrink in proportion (at least one pod each); `pods` overrides measurePods.
    """
    size = 5000 if nodes >= 5000 else 500
    init, measure = counts[size]
    if nodes < 500:
        init, measure = max(1, init * nodes // 500), max(1, measure * nodes // 500)
    return init, pods if pods is not None else measure


# --- templates ---------------------------------------------------------------------------------
def make_node(i: int, zones: tuple[str, ...] = ("zone-0", "zone-1", "zone-2")) -> dict:
    """node-default.yaml: 4 cpu, 32Gi, 110 pods; labelled with hostname and zone (as
    labelNodePrepareStrategy labels the zone)."""
    name = f"node-{i}"
    capacity = {"cpu": "4", "memory": "32Gi", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {HOSTNAME: name, ZONE: zones[i % len(zones)]}},
            "spec": {},
            "status": {"capacity": dict(capacity), "allocatable": dict(capacity)}}


def make_pod(name: str, namespace: str = "default", cpu: str = "100m", memory: str = "500Mi",
             node: str | None = None, labels: dict | None = None, limits: bool = True,
             **spec) -> dict:
    """pod-default.yaml: a pause container on port 80 with requests equal to limits."""
    resources = {"cpu": cpu, "memory": memory}
    pod_spec = {"containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10",
                                "ports": [{"containerPort": 80}],
                                "resources": {"requests": dict(resources),
                                              **({"limits": dict(resources)} if limits else {})}}],
                **spec}
    if node is not None:
        pod_spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace, "uid": f"{namespace}/{name}",
                         "labels": dict(labels or {})},
            "spec": pod_spec}


def _running(count: int, nodes: int, prefix: str = "init", **kwargs) -> list[dict]:
    """Pods already placed, spread round-robin over the nodes."""
    return [make_pod(f"{prefix}-{i}", node=f"node-{i % nodes}", **kwargs) for i in range(count)]


def _nodes(count: int, zones: tuple[str, ...] = ("zone-0", "zone-1", "zone-2")) -> list[dict]:
    return [make_node(i, zones) for i in range(count)]


SCHED_NAMESPACES = ["sched-1", "sched-0"]


def _pod_affinity_term(color: str, key: str) -> dict:
    return {"labelSelector": {"matchLabels": {"color": color}}, "topologyKey": key,
            "namespaces": list(SCHED_NAMESPACES)}


def _two_namespaces(nodes: int, pods: int | None, counts, color: str, affinity: dict,
                    plugins: list[str], floor: float, zones=("zone-0", "zone-1", "zone-2")):
    """createNamespaces sched-0 and sched-1; initPods in sched-0, measurePods in sched-1, all
    from one template."""
    init, measure = shape(nodes, pods, counts)
    kw = {"labels": {"color": color}, "affinity": affinity}
    running = _running(init, nodes, namespace="sched-0", **kw)
    pending = [make_pod(f"pod-{i}", "sched-1", **kw) for i in range(measure)]
    return Workload(_nodes(nodes, zones), running, pending, plugins, floor)


# --- workloads (misc/performance-config.yaml) --------------------------------------------------
# Floors: the Go figures at 5,000 nodes where it gives them, else the threshold of the
# workload's 5000Nodes variant in performance-config.yaml.
@workload("SchedulingBasic")
def scheduling_basic(nodes: int, pods: int | None) -> Workload:
    """createNodes, createPods (initPods), createPods (measurePods), all from pod-default."""
    init, measure = shape(nodes, pods, {500: (500, 1000), 5000: (1000, 1000)})
    return Workload(_nodes(nodes), _running(init, nodes),
                    [make_pod(f"pod-{i}") for i in range(measure)], ["NodeResourcesFit"], 680)


def _spreading(nodes, pods, when: str, floor: float) -> Workload:
    """pod-with-(preferred-)topology-spreading: maxSkew 5 over zones moon-1..3; initPods from
    pod-default."""
    init, measure = shape(nodes, pods, {500: (1000, 1000), 5000: (5000, 2000)})
    spread = [{"maxSkew": 5, "topologyKey": ZONE, "whenUnsatisfiable": when,
               "labelSelector": {"matchLabels": {"color": "blue"}}}]
    pending = [make_pod(f"spread-{i}", labels={"color": "blue"},
                        topologySpreadConstraints=spread) for i in range(measure)]
    return Workload(_nodes(nodes, ("moon-1", "moon-2", "moon-3")), _running(init, nodes),
                    pending, ["NodeResourcesFit", "PodTopologySpread"], floor)


@workload("TopologySpreading")
def topology_spreading(nodes: int, pods: int | None) -> Workload:
    return _spreading(nodes, pods, "DoNotSchedule", 460)


@workload("PreferredTopologySpreading")
def preferred_topology_spreading(nodes: int, pods: int | None) -> Workload:
    return _spreading(nodes, pods, "ScheduleAnyway", 125)


@workload("PreemptionBasic")
def preemption_basic(nodes: int, pods: int | None) -> Workload:
    """pod-low-priority (900m, grace 0) fills every node four deep; then pod-high-priority
    (3000m, priority 10) pods each need three low-priority victims. scheduler_perf runs only the
    500Nodes variant (2000 init, 500 measured; its 5000Nodes one is disabled as always
    failing), so larger clusters keep its shape: every node four deep, 500 measured."""
    init, measure = shape(nodes, pods, {500: (2000, 500), 5000: (4 * nodes, 500)})
    running = _running(init, nodes, cpu="900m", terminationGracePeriodSeconds=0)
    pending = [make_pod(f"high-{i}", cpu="3000m", priority=10) for i in range(measure)]
    return Workload(_nodes(nodes), running, pending, ["NodeResourcesFit", "DefaultPreemption"],
                    18)


@workload("Unschedulable")
def unschedulable(nodes: int, pods: int | None) -> Workload:
    """initPods from pod-default; a churn of pod-high-priority-large-cpu (9 cpu, priority 10:
    fits nowhere) every 200ms while measurePods from pod-default are scheduled. The churn is
    one large pod per hundred measured pods, queued ahead of them by priority."""
    init, measure = shape(nodes, pods, {500: (10, 1000), 5000: (100, 1000)})
    large = [make_pod(f"large-{i}", cpu="9", priority=10, limits=False)
             for i in range(max(1, measure // 100))]
    return Workload(_nodes(nodes), _running(init, nodes),
                    [make_pod(f"pod-{i}") for i in range(measure)], ["NodeResourcesFit"], 590,
                    unmeasured=large)


# --- workloads (affinity/performance-config.yaml) ----------------------------------------------
@workload("SchedulingNodeAffinity")
def scheduling_node_affinity(nodes: int, pods: int | None) -> Workload:
    """Every node in zone1; pod-with-node-affinity requires zone In [zone1, zone2]."""
    init, measure = shape(nodes, pods, {500: (500, 1000), 5000: (5000, 1000)})
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [
            {"key": ZONE, "operator": "In", "values": ["zone1", "zone2"]}]}]}}}
    pending = [make_pod(f"pod-{i}", affinity=affinity) for i in range(measure)]
    return Workload(_nodes(nodes, ("zone1",)), _running(init, nodes), pending,
                    ["NodeResourcesFit", "NodeAffinity"], 220)


@workload("SchedulingPodAntiAffinity")
def scheduling_pod_anti_affinity(nodes: int, pods: int | None) -> Workload:
    """pod-with-pod-anti-affinity: at most one "color: green" pod per hostname across both
    namespaces. 5000Nodes_2000Pods: 1000 init, 2000 measured (the variant with a threshold)."""
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        _pod_affinity_term("green", HOSTNAME)]}}
    return _two_namespaces(nodes, pods, {500: (100, 400), 5000: (1000, 2000)}, "green", anti,
                           ["NodeResourcesFit", "InterPodAffinity"], 60)


@workload("SchedulingPodAffinity")
def scheduling_pod_affinity(nodes: int, pods: int | None) -> Workload:
    """Every node in zone1; pod-with-pod-affinity requires a "color: blue" pod in its zone."""
    affinity = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        _pod_affinity_term("blue", ZONE)]}}
    return _two_namespaces(nodes, pods, {500: (500, 1000), 5000: (5000, 1000)}, "blue",
                           affinity, ["NodeResourcesFit", "InterPodAffinity"], 35, ("zone1",))


@workload("SchedulingPreferredPodAffinity")
def scheduling_preferred_pod_affinity(nodes: int, pods: int | None) -> Workload:
    """pod-with-preferred-pod-affinity: weight 1 towards "color: red" pods on the hostname."""
    affinity = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 1, "podAffinityTerm": _pod_affinity_term("red", HOSTNAME)}]}}
    return _two_namespaces(nodes, pods, {500: (500, 1000), 5000: (5000, 1000)}, "red",
                           affinity, ["NodeResourcesFit", "InterPodAffinity"], 90)


@workload("SchedulingPreferredPodAntiAffinity")
def scheduling_preferred_pod_anti_affinity(nodes: int, pods: int | None) -> Workload:
    """pod-with-preferred-pod-anti-affinity: weight 1 away from "color: yellow" pods on the
    hostname."""
    affinity = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 1, "podAffinityTerm": _pod_affinity_term("yellow", HOSTNAME)}]}}
    return _two_namespaces(nodes, pods, {500: (500, 1000), 5000: (5000, 1000)}, "yellow",
                           affinity, ["NodeResourcesFit", "InterPodAffinity"], 90)


# --- one measurement ---------------------------------------------------------------------------
def _configuration(profile: str, wl: Workload) -> dict | None:
    if profile == "default":
        return None
    enabled = [QUEUE_SORT, *wl.plugins, BINDER]
    return {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
            "profiles": [{"schedulerName": "default-scheduler", "plugins": {"multiPoint": {
                "enabled": [{"name": n} for n in enabled], "disabled": [{"name": "*"}]}}}]}


class _Discard:
    """A sink for the rendered JSON: rendering is measured, keeping the text is not."""

    def write(self, text: str) -> None:
        pass


def measure(name: str, nodes: int, pods: int | None, profile: str, observe: bool,
            timings: bool = False) -> dict:
    """Build the workload and schedule it to the end; run in a fresh interpreter."""
    from .build import build_scheduler
    from .columns.store import columns_of
    from .loader import Cluster
    from .observe import OutcomeObserver, TraceObserver
    from .timings import PluginTimer

    wl = WORKLOADS[name](nodes, pods)
    trace = TraceObserver() if observe else None
    sched = build_scheduler(Cluster(nodes=wl.nodes, pods=wl.running + wl.unmeasured + wl.pending),
                            _configuration(profile, wl), observer=trace or OutcomeObserver())
    if sched.vector_path:
        # The cache's columns are built with the cache, as scheduler_perf's informers sync
        # before it measures: the first measured cycle does not pay for them.
        columns_of(sched.snapshot)
    timer = PluginTimer(sched.frameworks.values()) if timings else None
    start = time.process_time()
    sched.run()
    seconds = time.process_time() - start
    trace_kib = max_kib = render_seconds = None
    if trace is not None:
        sizes = [c.nbytes() for c in trace.cycles] or [0]
        trace_kib, max_kib = sum(sizes) / len(sizes) / 1024, max(sizes) / 1024
        start = time.process_time()
        trace.write_json(_Discard(), {"bindings": sched.bindings})
        render_seconds = time.process_time() - start
    measured = {f"{p['metadata']['namespace']}/{p['metadata']['name']}" for p in wl.pending}
    bound = sum(1 for key, node in sched.bindings.items() if node and key in measured)
    # ru_maxrss is in KiB on Linux.
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    rate = bound / seconds if seconds else 0.0
    return {"workload": name, "profile": profile, "nodes": nodes, "pods": len(wl.pending),
            "bound": bound, "trace": "on" if observe else "off", "seconds": seconds,
            "pods_per_second": rate, "peak_mib": peak_mib, "floor": wl.floor,
            "ratio": rate / wl.floor if wl.floor else None, "trace_kib": trace_kib,
            "max_kib": max_kib,
            "render_seconds": render_seconds,
            "timings": timer.table() if timer else None}


def _measure_isolated(*args) -> dict:
    with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
        return pool.submit(measure, *args).result()


# --- the command -------------------------------------------------------------------------------
COLUMNS = [("workload", "<34", "{}"), ("profile", "<8", "{}"), ("nodes", ">6", "{}"),
           ("pods", ">6", "{}"), ("bound", ">6", "{}"), ("trace", "<5", "{}"),
           ("seconds", ">8", "{:.2f}"), ("pods/s", ">8", "{:.1f}"), ("peak MiB", ">8", "{:.1f}"),
           ("Go floor", ">8", "{}"), ("ratio", ">6", "{}"), ("KiB/cycle", ">9", "{}"),
           ("max KiB", ">7", "{}"), ("JSON s", ">7", "{}")]
KEYS = ["workload", "profile", "nodes", "pods", "bound", "trace", "seconds", "pods_per_second",
        "peak_mib", "floor", "ratio", "trace_kib", "max_kib", "render_seconds"]


def format_row(values: list) -> str:
    return "  ".join(f"{text:{align}}" for (_, align, _), text in zip(COLUMNS, values)).rstrip()


def header() -> str:
    return format_row([title for title, _, _ in COLUMNS])


def row(result: dict) -> str:
    values = dict(result)
    values["floor"] = f"{result['floor']:g}" if result.get("floor") else "-"
    values["ratio"] = f"{result['ratio']:.2f}x" if result.get("ratio") else "-"
    for key in ("trace_kib", "max_kib"):
        values[key] = "-" if result.get(key) is None else f"{result[key]:.1f}"
    values["render_seconds"] = ("-" if result.get("render_seconds") is None
                                else f"{result['render_seconds']:.2f}")
    return format_row([fmt.format(values[key]) for (_, _, fmt), key in zip(COLUMNS, KEYS)])


def missing_default_plugins() -> list[str]:
    """Default-profile plugins that cannot be imported yet, with the reason."""
    from .config import DEFAULT_MULTI_POINT
    from .framework.registry import RegistryError
    from .plugins.registry import default_registry

    registry, missing = default_registry(), []
    for name, _ in DEFAULT_MULTI_POINT:
        try:
            registry.spec(name)
        except RegistryError as exc:
            missing.append(f"{name} ({exc})")
    return missing


def _parse_sizes(text: str) -> list[int]:
    sizes = [int(part) for part in text.split(",") if part.strip()]
    if not sizes or min(sizes) <= 0:
        raise ValueError(text)
    return sizes


def bench_command(args, out=None, err=None, isolate: bool = True) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        sizes = _parse_sizes(args.nodes)
    except ValueError:
        print(f"error: --nodes takes positive integers separated by commas, got {args.nodes!r}",
              file=err)
        return EXIT_BAD_INPUT
    names = [n.strip() for n in args.workloads.split(",") if n.strip()]
    unknown = [n for n in names if n not in WORKLOADS]
    if unknown or not names:
        print(f"error: unknown workload {', '.join(unknown) or '(none)'}; known: "
              f"{', '.join(WORKLOADS)}", file=err)
        return EXIT_BAD_INPUT
    profile = args.profile
    if profile == "default":
        missing = missing_default_plugins()
        if missing:
            print(f"warning: default profile plugins not importable: {'; '.join(missing)}; "
                  "using --profile minimal", file=err)
            profile = "minimal"
    run = _measure_isolated if isolate else measure
    timings = getattr(args, "timings", False)
    traces = {"off": (False,), "on": (True,), "both": (False, True)}[getattr(args, "trace", "both")]
    print(header(), file=out, flush=True)
    for name in names:
        for nodes in sizes:
            for observe in traces:
                result = run(name, nodes, args.pods, profile, observe, timings)
                print(row(result), file=out, flush=True)
                if result["timings"]:
                    print(result["timings"], file=out, flush=True)
    return 0
