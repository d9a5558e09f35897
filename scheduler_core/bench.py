"""python -m scheduler_core bench: scheduling throughput on synthetic clusters.

The workloads are shaped like scheduler_perf's (test/integration/scheduler_perf/config/
performance-config.yaml in kubernetes/kubernetes): nodes of 4 cpu, 32Gi and 110 pods with
hostname and zone labels; some pods already running; then the measured pods, pending, made from
the same templates (pod-default.yaml: one pause container asking 100m cpu and 500Mi). Objects are
built in memory, never through YAML.

Each measurement runs in a fresh interpreter (so one run's memory does not count in the next) and
reports the wall time of the whole run to the end of the queue, the pods bound per second, and
the process's peak resident memory. Every size runs twice: without an observer, and with the JSON
trace observer (whose time includes encoding the trace to JSON).

A workload is a builder registered in WORKLOADS: `builder(nodes, pods) -> Workload`.
"""
from __future__ import annotations

import io
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


@dataclass
class Workload:
    nodes: list[dict]
    running: list[dict]          # pods already bound (spec.nodeName set), not measured
    pending: list[dict]          # the measured pods, queued in this order
    plugins: list[str] = field(default_factory=list)  # what --profile minimal enables


WORKLOADS: dict[str, Callable[[int, int | None], Workload]] = {}


def workload(name: str):
    def register(builder):
        WORKLOADS[name] = builder
        return builder
    return register


# --- templates ---------------------------------------------------------------------------------
def make_node(i: int, zones: tuple[str, ...] = ("zone-0", "zone-1", "zone-2")) -> dict:
    """scheduler_perf's default node: 4 cpu, 32Gi, 110 pods; labelled with hostname and zone."""
    name = f"node-{i}"
    capacity = {"cpu": "4", "memory": "32Gi", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {HOSTNAME: name, ZONE: zones[i % len(zones)]}},
            "spec": {},
            "status": {"capacity": dict(capacity), "allocatable": dict(capacity)}}


def make_pod(name: str, namespace: str = "default", cpu: str = "100m", memory: str = "500Mi",
             node: str | None = None, labels: dict | None = None, **spec) -> dict:
    """pod-default.yaml: a pause container on port 80 with requests equal to limits."""
    resources = {"cpu": cpu, "memory": memory}
    pod_spec = {"containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10",
                                "ports": [{"containerPort": 80}],
                                "resources": {"requests": dict(resources),
                                              "limits": dict(resources)}}],
                **spec}
    if node is not None:
        pod_spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace, "uid": f"{namespace}/{name}",
                         "labels": dict(labels or {})},
            "spec": pod_spec}


def _running(count: int, nodes: int, **kwargs) -> list[dict]:
    """Pods already placed, spread round-robin over the nodes."""
    return [make_pod(f"init-{i}", node=f"node-{i % nodes}", **kwargs) for i in range(count)]


# --- workloads ---------------------------------------------------------------------------------
@workload("SchedulingBasic")
def scheduling_basic(nodes: int, pods: int | None) -> Workload:
    """createNodes, createPods (initPods), createPods (measurePods), all from pod-default."""
    return Workload([make_node(i) for i in range(nodes)], _running(min(nodes, 1000), nodes),
                    [make_pod(f"pod-{i}") for i in range(pods or 1000)],
                    ["NodeResourcesFit"])


@workload("SchedulingPodAntiAffinity")
def scheduling_pod_anti_affinity(nodes: int, pods: int | None) -> Workload:
    """pod-with-pod-anti-affinity: at most one "color: green" pod per hostname, across both
    namespaces; so only nodes that run none can take a measured pod."""
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
        "labelSelector": {"matchLabels": {"color": "green"}}, "topologyKey": HOSTNAME,
        "namespaces": ["sched-0", "sched-1"]}]}}
    init = max(nodes // 5, 1)
    running = [make_pod(f"init-{i}", "sched-0", node=f"node-{i}", labels={"color": "green"},
                        affinity=anti) for i in range(init)]
    count = min(pods or 1000, nodes - init)
    pending = [make_pod(f"anti-{i}", "sched-1", labels={"color": "green"}, affinity=anti)
               for i in range(count)]
    return Workload([make_node(i) for i in range(nodes)], running, pending,
                    ["NodeResourcesFit", "InterPodAffinity"])


@workload("TopologySpreading")
def topology_spreading(nodes: int, pods: int | None) -> Workload:
    """pod-with-topology-spreading over zones moon-1..3, here with maxSkew 1."""
    spread = [{"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
               "labelSelector": {"matchLabels": {"color": "blue"}}}]
    zones = ("moon-1", "moon-2", "moon-3")
    pending = [make_pod(f"spread-{i}", labels={"color": "blue"},
                        topologySpreadConstraints=spread) for i in range(pods or 1000)]
    return Workload([make_node(i, zones) for i in range(nodes)],
                    _running(min(nodes, 1000), nodes), pending,
                    ["NodeResourcesFit", "PodTopologySpread"])


@workload("PreemptionBasic")
def preemption_basic(nodes: int, pods: int | None) -> Workload:
    """pod-low-priority (900m, grace 0) fills every node four deep; then pod-high-priority
    (3000m, priority 10) pods each need three low-priority victims."""
    running = _running(4 * nodes, nodes, cpu="900m", terminationGracePeriodSeconds=0)
    pending = [make_pod(f"high-{i}", cpu="3000m", priority=10)
               for i in range(min(pods or 500, nodes))]
    return Workload([make_node(i) for i in range(nodes)], running, pending,
                    ["NodeResourcesFit", "DefaultPreemption"])


# --- one measurement ---------------------------------------------------------------------------
def _configuration(profile: str, wl: Workload) -> dict | None:
    if profile == "default":
        return None
    enabled = [QUEUE_SORT, *wl.plugins, BINDER]
    return {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
            "profiles": [{"schedulerName": "default-scheduler", "plugins": {"multiPoint": {
                "enabled": [{"name": n} for n in enabled], "disabled": [{"name": "*"}]}}}]}


def measure(name: str, nodes: int, pods: int | None, profile: str, observe: bool) -> dict:
    """Build the workload and schedule it to the end; run in a fresh interpreter."""
    from .config import parse_configuration
    from .framework.registry import default_registry
    from .loader import Cluster
    from .observe import TraceObserver
    from .scheduler import Scheduler

    wl = WORKLOADS[name](nodes, pods)
    registry = default_registry()
    config = parse_configuration(_configuration(profile, wl), registry)
    trace = TraceObserver() if observe else None
    sched = Scheduler(Cluster(nodes=wl.nodes, pods=wl.running + wl.pending), config,
                      observer=trace, registry=registry)
    start = time.perf_counter()
    sched.run()
    if trace is not None:
        trace.write_json(io.StringIO(), {"bindings": sched.bindings})
    seconds = time.perf_counter() - start
    bound = sum(1 for node in sched.bindings.values() if node)
    # ru_maxrss is in KiB on Linux.
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"workload": name, "profile": profile, "nodes": nodes, "pods": len(wl.pending),
            "bound": bound, "trace": "json" if observe else "off", "seconds": seconds,
            "pods_per_second": bound / seconds if seconds else 0.0, "peak_mib": peak_mib}


def _measure_isolated(*args) -> dict:
    with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
        return pool.submit(measure, *args).result()


# --- the command -------------------------------------------------------------------------------
COLUMNS = [("workload", "<26", "{}"), ("profile", "<8", "{}"), ("nodes", ">6", "{}"),
           ("pods", ">6", "{}"), ("bound", ">6", "{}"), ("trace", "<5", "{}"),
           ("seconds", ">8", "{:.2f}"), ("pods/s", ">8", "{:.1f}"), ("peak MiB", ">8", "{:.1f}")]
KEYS = ["workload", "profile", "nodes", "pods", "bound", "trace", "seconds", "pods_per_second",
        "peak_mib"]


def format_row(values: list) -> str:
    return "  ".join(f"{text:{align}}" for (_, align, _), text in zip(COLUMNS, values)).rstrip()


def header() -> str:
    return format_row([title for title, _, _ in COLUMNS])


def row(result: dict) -> str:
    return format_row([fmt.format(result[key]) for (_, _, fmt), key in zip(COLUMNS, KEYS)])


def missing_default_plugins() -> list[str]:
    """Default-profile plugins that cannot be imported yet, with the reason."""
    from .config import DEFAULT_MULTI_POINT
    from .framework.registry import RegistryError, default_registry

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
    print(header(), file=out, flush=True)
    for name in names:
        for nodes in sizes:
            for observe in (False, True):
                print(row(run(name, nodes, args.pods, profile, observe)), file=out, flush=True)
    return 0
