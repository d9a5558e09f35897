"""python -m scheduler_core bench: scheduling throughput on scheduler_perf's workloads.

The workloads are scheduler_perf's (test/integration/scheduler_perf/{misc,affinity,
topology_spreading,volumes,dra}/performance-config.yaml in kubernetes/kubernetes v1.37.0), with
their templates and pod counts: from 5,000 nodes up those of the variant that carries Go's threshold
(SchedulingBasic's 5000Nodes_10000Pods, TopologySpreading's 5000Nodes_5000Pods...), below it the
500Nodes variant's (scaled down under 500 nodes). The floor is that variant's `threshold`.
Churn is injected as scheduler_perf's `churn` opcode does: one pod every 200 ms of the run
(CPU time here, as everything is), while the measured pods are scheduled.

Each measurement runs in a fresh interpreter, from a JSON file written beforehand (as
`simulate` reads one): it loads the file, builds the scheduler, runs to the end of the queue
and writes the output to /dev/null, `--output summary` with the trace off and the contract's
JSON with it on. It reports the CPU time of the run alone and of the whole process (interpreter
start, imports, load, build, run, output), the measured pods bound per CPU second of each with
their ratio to the Go floor, the process's wall time and peak resident memory. `--repeat N`
prints the medians of N runs.

A workload is a builder registered in WORKLOADS: `builder(nodes, pods) -> Workload`.
"""
from __future__ import annotations

import json
import os
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context

from .errors import InputError
from .features import DEFAULT_RELEASE, feature_gates, parse_release

EXIT_BAD_INPUT = 2
HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
QUEUE_SORT, BINDER = "PrioritySort", "DefaultBinder"
CHURN_INTERVAL = 0.2   # intervalMilliseconds: 200 of the churn opcodes


@dataclass
class Workload:
    nodes: list[dict]
    running: list[dict]          # pods already bound (spec.nodeName set), not measured
    pending: list[dict]          # the measured pods, queued in this order
    plugins: list[str] = field(default_factory=list)  # what --profile minimal enables
    floor: float | None = None   # the threshold of the variant whose counts these are
    objects: list[dict] = field(default_factory=list)  # Services and the like
    churn: Callable[[int], dict] | None = None  # the i-th pod the churn opcode creates
    # Pending pods of this namespace, queued first, are scheduled before the measurement
    # starts (scheduler_perf's initPods of createPods without collectMetrics).
    init_namespace: str | None = None


WORKLOADS: dict[str, Callable[[int, int | None], Workload]] = {}


def workload(name: str):
    def register(builder):
        WORKLOADS[name] = builder
        return builder
    return register


def shape(nodes: int, pods: int | None, counts: dict[int, tuple[int, int]]) -> tuple[int, int]:
    """(initPods, measurePods) of the scheduler_perf variant for this node count.

    counts maps 500 to the 500Nodes variant's params and 5000 to those of the variant with
    the threshold; under 500 nodes the 500Nodes counts shrink in proportion (at least one pod
    each); `pods` overrides measurePods.
    """
    size = 5000 if nodes >= 5000 else 500
    init, measure = counts[size]
    if nodes < 500:
        init, measure = max(1, init * nodes // 500), max(1, measure * nodes // 500)
    return init, pods if pods is not None else measure


# --- templates ---------------------------------------------------------------------------------
def make_node(i: int, zones: tuple[str, ...] = ("zone-0", "zone-1", "zone-2"),
              prefix: str = "node", **extra) -> dict:
    """node-default.yaml: 4 cpu, 32Gi, 110 pods; labelled with hostname and zone (as
    labelNodePrepareStrategy labels the zone). extra: taints, capacity, labels to add."""
    name = f"{prefix}-{i}"
    capacity = {"cpu": "4", "memory": "32Gi", "pods": "110", **extra.get("capacity", {})}
    labels = {HOSTNAME: name, **({ZONE: zones[i % len(zones)]} if zones else {}),
              **extra.get("labels", {})}
    spec = {"taints": extra["taints"]} if "taints" in extra else {}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": labels},
            "spec": spec,
            "status": {"capacity": dict(capacity), "allocatable": dict(capacity)}}


def make_pod(name: str, namespace: str = "default", cpu: str | None = "100m",
             memory: str | None = "500Mi", node: str | None = None, labels: dict | None = None,
             limits: bool = True, ports: bool = True, extended: dict | None = None,
             **spec) -> dict:
    """pod-default.yaml: a pause container on port 80 with requests equal to limits."""
    resources = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v is not None}
    resources.update(extended or {})
    container = {"name": "pause", "image": "registry.k8s.io/pause:3.10"}
    if ports:
        container["ports"] = [{"containerPort": 80}]
    if resources:
        container["resources"] = {"requests": dict(resources),
                                  **({"limits": dict(resources)} if limits else {})}
    pod_spec = {"containers": [container], **spec}
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
@workload("SchedulingBasic")
def scheduling_basic(nodes: int, pods: int | None) -> Workload:
    """createNodes, createPods (initPods), createPods (measurePods), all from pod-default.
    5000Nodes_10000Pods: 1000 init, 10000 measured, threshold 680."""
    init, measure = shape(nodes, pods, {500: (500, 1000), 5000: (1000, 10000)})
    return Workload(_nodes(nodes), _running(init, nodes),
                    [make_pod(f"pod-{i}") for i in range(measure)], ["NodeResourcesFit"], 680)


@workload("SchedulingDaemonset")
def scheduling_daemonset(nodes: int, pods: int | None) -> Workload:
    """node-with-name (scheduler-perf-node, 90000 pods) and initNodes of node-default;
    daemonset-pod requires metadata.name In [scheduler-perf-node] by matchFields, so
    NodeAffinity's PreFilterResult names one node. 15000Nodes: 30000 measured, threshold 1100
    (twice the nodes at other sizes)."""
    measure = pods if pods is not None else 2 * nodes
    named = make_node(0, (), capacity={"pods": "90000"})
    named["metadata"] = {"name": "scheduler-perf-node",
                         "labels": {HOSTNAME: "scheduler-perf-node"}}
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": ["scheduler-perf-node"]}]}]}}}
    pending = [make_pod(f"daemonset-{i}", cpu=None, memory=None, ports=False, affinity=affinity)
               for i in range(measure)]
    return Workload([named, *_nodes(nodes)], [], pending, ["NodeResourcesFit", "NodeAffinity"],
                    1100)


@workload("SchedulingWithExtendedResource")
def scheduling_with_extended_resource(nodes: int, pods: int | None) -> Workload:
    """node-with-extended-resource: node i has one foo.com/bar-i; pod-with-extended-resource i
    (namespace test) requests and limits it. 5000pods_5000nodes: threshold 180."""
    measure = pods if pods is not None else nodes
    node_list = [make_node(i, (), labels={"node-with-extended-resource": "true"},
                           capacity={f"foo.com/bar-{i}": "1"}) for i in range(nodes)]
    pending = [make_pod(f"test-extended-resource-{i}", "test", cpu=None, memory=None,
                        ports=False, extended={f"foo.com/bar-{i % nodes}": "1"})
               for i in range(measure)]
    return Workload(node_list, [], pending, ["NodeResourcesFit"], 180)


@workload("PreemptionBasic")
def preemption_basic(nodes: int, pods: int | None) -> Workload:
    """pod-low-priority (900m, grace 0) fills every node four deep; then pod-high-priority
    (3000m, priority 10) pods each need three low-priority victims. scheduler_perf runs the
    500Nodes and 1000Nodes variants (its 5000Nodes one is disabled as always failing) and none
    carries a threshold, so there is no floor; larger clusters keep the shape: every node four
    deep, 500 measured."""
    init, measure = shape(nodes, pods, {500: (2000, 500), 5000: (4 * nodes, 500)})
    running = _running(init, nodes, cpu="900m", terminationGracePeriodSeconds=0)
    pending = [make_pod(f"high-{i}", cpu="3000m", priority=10) for i in range(measure)]
    return Workload(_nodes(nodes), running, pending, ["NodeResourcesFit", "DefaultPreemption"])


@workload("PreemptionAsync")
def preemption_async(nodes: int, pods: int | None) -> Workload:
    """Nodes four deep in pod-low-priority; a churn of pod-high-priority (3000m, priority 10:
    three victims each) every 200 ms while measurePods from pod-default are scheduled.
    5000Nodes: 20000 init, 5000 measured, threshold 570."""
    init, measure = shape(nodes, pods, {500: (2000, 500), 5000: (20000, 5000)})
    running = _running(init, nodes, cpu="900m", terminationGracePeriodSeconds=0)
    return Workload(_nodes(nodes), running, [make_pod(f"pod-{i}") for i in range(measure)],
                    ["NodeResourcesFit", "DefaultPreemption"], 570,
                    churn=lambda i: make_pod(f"high-{i}", cpu="3000m", priority=10))


@workload("Unschedulable")
def unschedulable(nodes: int, pods: int | None) -> Workload:
    """initPods from pod-default; a churn of pod-high-priority-large-cpu (9 cpu, priority 10:
    fits nowhere) every 200 ms while measurePods from pod-default are scheduled.
    5kNodes/100Init/10kPods: threshold 590."""
    init, measure = shape(nodes, pods, {500: (10, 1000), 5000: (100, 10000)})
    return Workload(_nodes(nodes), _running(init, nodes),
                    [make_pod(f"pod-{i}") for i in range(measure)], ["NodeResourcesFit"], 590,
                    churn=lambda i: make_pod(f"large-{i}", cpu="9", priority=10, limits=False))


# --- workloads (topology_spreading/performance-config.yaml) ------------------------------------
MOONS = ("moon-1", "moon-2", "moon-3")


def _spreading(nodes, pods, when: str, floor: float) -> Workload:
    """pod-with-(preferred-)topology-spreading: maxSkew 5 over zones moon-1..3; initPods from
    pod-default. 5000Nodes_5000Pods: 5000 init, 5000 measured."""
    init, measure = shape(nodes, pods, {500: (1000, 1000), 5000: (5000, 5000)})
    spread = [{"maxSkew": 5, "topologyKey": ZONE, "whenUnsatisfiable": when,
               "labelSelector": {"matchLabels": {"color": "blue"}}}]
    pending = [make_pod(f"spread-{i}", labels={"color": "blue"},
                        topologySpreadConstraints=spread) for i in range(measure)]
    return Workload(_nodes(nodes, MOONS), _running(init, nodes),
                    pending, ["NodeResourcesFit", "PodTopologySpread"], floor)


@workload("TopologySpreading")
def topology_spreading(nodes: int, pods: int | None) -> Workload:
    return _spreading(nodes, pods, "DoNotSchedule", 460)


@workload("PreferredTopologySpreading")
def preferred_topology_spreading(nodes: int, pods: int | None) -> Workload:
    return _spreading(nodes, pods, "ScheduleAnyway", 340)


@workload("DefaultTopologySpreading")
def default_topology_spreading(nodes: int, pods: int | None) -> Workload:
    """A Service (app: scheduler-perf) in service-ns; pod-with-label pods there get the
    default constraints with the Service's selector. 5000Nodes_50000Pods: 5000 init, 50000
    measured, threshold 160."""
    init, measure = shape(nodes, pods, {500: (1000, 1000), 5000: (5000, 50000)})
    service = {"apiVersion": "v1", "kind": "Service",
               "metadata": {"name": "service-0", "namespace": "service-ns"},
               "spec": {"selector": {"app": "scheduler-perf"},
                        "ports": [{"protocol": "TCP", "port": 80, "targetPort": 8000}]}}
    pending = [make_pod(f"pod-{i}", "service-ns", cpu=None, memory=None, ports=False,
                        labels={"app": "scheduler-perf"}) for i in range(measure)]
    return Workload(_nodes(nodes, MOONS), _running(init, nodes), pending,
                    ["NodeResourcesFit", "PodTopologySpread"], 160, objects=[service])


@workload("SchedulingWithNodeInclusionPolicy")
def scheduling_with_node_inclusion_policy(nodes: int, pods: int | None) -> Workload:
    """normalNodes of node-default and taintNodes of node-with-taint (foo:NoSchedule), one in
    five; pod-with-node-inclusion-policy spreads "foo: bar" pods by hostname (maxSkew 1)
    honouring node affinity and taints. 5000Nodes: 4000 + 1000, 4000 measured, threshold
    270."""
    tainted = nodes // 5
    normal = nodes - tainted
    measure = pods if pods is not None else normal
    taint = [{"key": "foo", "effect": "NoSchedule"}]
    node_list = _nodes(normal, ()) + [make_node(i, (), prefix="taint-node", taints=taint)
                                      for i in range(tainted)]
    spread = [{"maxSkew": 1, "topologyKey": HOSTNAME, "whenUnsatisfiable": "DoNotSchedule",
               "nodeAffinityPolicy": "Honor", "nodeTaintsPolicy": "Honor",
               "labelSelector": {"matchLabels": {"foo": "bar"}}}]
    pending = [make_pod(f"spreading-pod-{i}", labels={"foo": "bar"},
                        topologySpreadConstraints=spread) for i in range(measure)]
    return Workload(node_list, [], pending,
                    ["NodeResourcesFit", "PodTopologySpread", "TaintToleration"], 270)


# --- workloads (affinity/performance-config.yaml) ----------------------------------------------
@workload("SchedulingNodeAffinity")
def scheduling_node_affinity(nodes: int, pods: int | None) -> Workload:
    """Every node in zone1; pod-with-node-affinity requires zone In [zone1, zone2].
    5000Nodes_10000Pods: 5000 init, 10000 measured, threshold 220."""
    init, measure = shape(nodes, pods, {500: (500, 1000), 5000: (5000, 10000)})
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [
            {"key": ZONE, "operator": "In", "values": ["zone1", "zone2"]}]}]}}}
    pending = [make_pod(f"pod-{i}", affinity=affinity) for i in range(measure)]
    return Workload(_nodes(nodes, ("zone1",)), _running(init, nodes), pending,
                    ["NodeResourcesFit", "NodeAffinity"], 220)


@workload("SchedulingPodAntiAffinity")
def scheduling_pod_anti_affinity(nodes: int, pods: int | None) -> Workload:
    """pod-with-pod-anti-affinity: at most one "color: green" pod per hostname across both
    namespaces. 5000Nodes_2000Pods: 1000 init, 2000 measured, threshold 60."""
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        _pod_affinity_term("green", HOSTNAME)]}}
    return _two_namespaces(nodes, pods, {500: (100, 400), 5000: (1000, 2000)}, "green", anti,
                           ["NodeResourcesFit", "InterPodAffinity"], 60)


@workload("SchedulingPodAffinity")
def scheduling_pod_affinity(nodes: int, pods: int | None) -> Workload:
    """Every node in zone1; pod-with-pod-affinity requires a "color: blue" pod in its zone.
    5000Nodes_5000Pods: threshold 35."""
    affinity = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        _pod_affinity_term("blue", ZONE)]}}
    return _two_namespaces(nodes, pods, {500: (500, 1000), 5000: (5000, 5000)}, "blue",
                           affinity, ["NodeResourcesFit", "InterPodAffinity"], 35, ("zone1",))


@workload("SchedulingPreferredPodAffinity")
def scheduling_preferred_pod_affinity(nodes: int, pods: int | None) -> Workload:
    """pod-with-preferred-pod-affinity: weight 1 towards "color: red" pods on the hostname.
    5000Nodes_5000Pods: threshold 90."""
    affinity = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 1, "podAffinityTerm": _pod_affinity_term("red", HOSTNAME)}]}}
    return _two_namespaces(nodes, pods, {500: (500, 1000), 5000: (5000, 5000)}, "red",
                           affinity, ["NodeResourcesFit", "InterPodAffinity"], 90)


@workload("SchedulingPreferredPodAntiAffinity")
def scheduling_preferred_pod_anti_affinity(nodes: int, pods: int | None) -> Workload:
    """pod-with-preferred-pod-anti-affinity: weight 1 away from "color: yellow" pods on the
    hostname. 5000Nodes_5000Pods: threshold 90."""
    affinity = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 1, "podAffinityTerm": _pod_affinity_term("yellow", HOSTNAME)}]}}
    return _two_namespaces(nodes, pods, {500: (500, 1000), 5000: (5000, 5000)}, "yellow",
                           affinity, ["NodeResourcesFit", "InterPodAffinity"], 90)


# --- workloads (volumes/performance-config.yaml) -----------------------------------------------
EBS_CSI = "ebs.csi.aws.com"
MIGRATED_PLUGINS = "storage.alpha.kubernetes.io/migrated-plugins"


@workload("SchedulingSecrets")
def scheduling_secrets(nodes: int, pods: int | None) -> Workload:
    """pod-with-secret-volume: pod-default with a secret volume (a volume the scheduler does
    not look into). 5000Nodes_10000Pods: 1000 init, 10000 measured, threshold 790."""
    init, measure = shape(nodes, pods, {500: (500, 1000), 5000: (1000, 10000)})
    secret = {"volumes": [{"name": "secret", "secret": {"secretName": "secret"}}]}
    return Workload(_nodes(nodes), _running(init, nodes, **secret),
                    [make_pod(f"pod-{i}", **secret) for i in range(measure)],
                    ["NodeResourcesFit", "VolumeBinding", "VolumeRestrictions"], 790)


def _volume(kind: str, name: str, claim: str, namespace: str = "default") -> tuple[dict, dict]:
    """A PersistentVolume from pv-aws.yaml (kind "aws": in-tree awsElasticBlockStore) or
    pv-csi.yaml (kind "csi": ebs.csi.aws.com) and a claim from pvc.yaml, bound to each other
    as scheduler_perf creates them (CreatePodWithPersistentVolume with bindVolume: the
    volume's claimRef and phase Bound, the claim's volumeName and phase Bound)."""
    source = ({"awsElasticBlockStore": {"volumeID": name}} if kind == "aws"
              else {"csi": {"driver": EBS_CSI, "volumeHandle": name}})
    pv = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
          "spec": {"accessModes": ["ReadOnlyMany"], "capacity": {"storage": "1Gi"},
                   "persistentVolumeReclaimPolicy": "Retain", **source,
                   "claimRef": {"kind": "PersistentVolumeClaim", "apiVersion": "v1",
                                "namespace": namespace, "name": claim}},
          "status": {"phase": "Bound"}}
    pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
           "metadata": {"name": claim, "namespace": namespace,
                        "annotations": {"pv.kubernetes.io/bind-completed": "true"}},
           "spec": {"accessModes": ["ReadOnlyMany"], "resources": {"requests": {
               "storage": "1Gi"}}, "volumeName": name},
           "status": {"phase": "Bound"}}
    return pv, pvc


def _with_volume(pod: dict, claim: str) -> dict:
    pod["spec"]["volumes"] = [{"name": "vol", "persistentVolumeClaim": {"claimName": claim}}]
    return pod


def _volumes_workload(nodes: int, pods: int | None, counts, kind: str, floor: float,
                      csi_nodes: bool, migrated: bool = False) -> Workload:
    """createNodes (with nodeAllocatableStrategy when csi_nodes: 39 attachable EBS volumes in
    the node's allocatable and its CSINode, migrated listing kubernetes.io/aws-ebs as
    migrated), then initPods and measurePods from pod-default, each with its own bound
    volume and claim."""
    init, measure = shape(nodes, pods, counts)
    node_list, objects = _nodes(nodes), []
    if csi_nodes:
        for node in node_list:
            node["status"]["allocatable"][f"attachable-volumes-csi-{EBS_CSI}"] = "39"
            name = node["metadata"]["name"]
            csi_node = {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
                        "metadata": {"name": name},
                        "spec": {"drivers": [{"name": EBS_CSI, "nodeID": name,
                                              "allocatable": {"count": 39}}]}}
            if migrated:
                csi_node["metadata"]["annotations"] = {MIGRATED_PLUGINS: "kubernetes.io/aws-ebs"}
            objects.append(csi_node)
    running = [_with_volume(pod, f"pvc-init-{i}") for i, pod in enumerate(_running(init, nodes))]
    pending = [_with_volume(make_pod(f"pod-{i}"), f"pvc-{i}") for i in range(measure)]
    for claim in [f"pvc-init-{i}" for i in range(init)] + [f"pvc-{i}" for i in range(measure)]:
        objects += _volume(kind, f"vol-{claim}", claim)
    return Workload(node_list, running, pending,
                    ["NodeResourcesFit", "VolumeBinding", "VolumeRestrictions", "VolumeZone",
                     "NodeVolumeLimits"], floor, objects=objects)


@workload("SchedulingInTreePVs")
def scheduling_in_tree_pvs(nodes: int, pods: int | None) -> Workload:
    """pv-aws.yaml volumes (in-tree awsElasticBlockStore) on node-default nodes.
    5000Nodes_2000Pods: 1000 init, 2000 measured, threshold 290."""
    return _volumes_workload(nodes, pods, {500: (500, 1000), 5000: (1000, 2000)}, "aws", 290,
                             csi_nodes=False)


@workload("SchedulingMigratedInTreePVs")
def scheduling_migrated_in_tree_pvs(nodes: int, pods: int | None) -> Workload:
    """pv-aws.yaml volumes on nodes whose CSINode counts 39 EBS volumes and lists
    kubernetes.io/aws-ebs as migrated. 5000Nodes_5000Pods: 5000 init, 5000 measured,
    threshold 100."""
    return _volumes_workload(nodes, pods, {500: (500, 1000), 5000: (5000, 5000)}, "aws", 100,
                             csi_nodes=True, migrated=True)


@workload("SchedulingCSIPVs")
def scheduling_csi_pvs(nodes: int, pods: int | None) -> Workload:
    """pv-csi.yaml volumes (ebs.csi.aws.com) on nodes whose CSINode counts 39 EBS volumes.
    5000Nodes_5000Pods: 5000 init, 5000 measured, threshold 100."""
    return _volumes_workload(nodes, pods, {500: (500, 1000), 5000: (5000, 5000)}, "csi", 100,
                             csi_nodes=True)


# --- workloads (dra/performance-config.yaml) ---------------------------------------------------
DRA_DRIVER = "test-driver.cdi.k8s.io"


def _dra_node(i: int, max_claims: int) -> tuple[dict, dict]:
    """node-with-dra-test-driver.yaml (no labels) and the ResourceSlice createResourceDriver
    publishes for it: maxClaimsPerNode devices instance-<i>, each with the test driver's
    attributes and 1Gi of memory, in a pool of one slice named after the node."""
    name = f"scheduler-perf-dra-{i}"
    node = make_node(i, (), prefix="scheduler-perf-dra")
    node["metadata"]["labels"] = {}
    devices = [{"name": f"instance-{d}",
                "attributes": {"model": {"string": "A100"}, "family": {"string": "GPU"},
                               "driverVersion": {"version": "1.2.3"},
                               "dra.example.com/numa": {"int": d}},
                "capacity": {"memory": {"value": "1Gi"}}} for d in range(max_claims)]
    slice_ = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
              "metadata": {"name": name},
              "spec": {"driver": DRA_DRIVER, "nodeName": name,
                       "pool": {"name": name, "generation": 0, "resourceSliceCount": 1},
                       "devices": devices}}
    return node, slice_


def _claim_template(namespace: str) -> dict:
    """resourceclaimtemplate.yaml with its defaults: one request req-0 of test-class."""
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": "test-claim-template", "namespace": namespace},
            "spec": {"spec": {"devices": {"requests": [
                {"name": "req-0", "exactly": {"deviceClassName": "test-class"}}]}}}}


def _pod_with_claim_template(name: str, namespace: str) -> dict:
    """pod-with-claim-template.yaml: a pause container using the claim made from
    test-claim-template."""
    pod = make_pod(name, namespace, cpu=None, memory=None, ports=False)
    pod["spec"]["containers"][0]["resources"] = {"claims": [{"name": "resource"}]}
    pod["spec"]["resourceClaims"] = [{"name": "resource",
                                      "resourceClaimTemplateName": "test-claim-template"}]
    return pod


@workload("SchedulingWithResourceClaimTemplate")
def scheduling_with_resource_claim_template(nodes: int, pods: int | None) -> Workload:
    """createNodes of node-with-dra-test-driver, createResourceDriver (maxClaimsPerNode 10),
    deviceclass.yaml (device.driver == the test driver), the claim template in init and test,
    then initPods and measurePods from pod-with-claim-template, each pod getting its own
    claim. 5000pods_500nodes (SchedulerQueueingHints off): 2500 init, 2500 measured,
    threshold 40 (the variant is at 500 nodes: measure it with --nodes 500); the cluster
    fills up exactly. The initPods are scheduled before the
    measurement, as createPods waits for them."""
    # Five pods per node each, so that the cluster fills up at any size as at 500 nodes.
    init = 5 * nodes
    measure = pods if pods is not None else 5 * nodes
    built = [_dra_node(i, 10) for i in range(nodes)]
    device_class = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                    "metadata": {"name": "test-class"},
                    "spec": {"selectors": [{"cel": {
                        "expression": f'device.driver == "{DRA_DRIVER}"'}}]}}
    objects = [s for _, s in built] + [device_class, _claim_template("init"),
                                       _claim_template("test")]
    pending = [_pod_with_claim_template(f"test-dra-init-{i}", "init") for i in range(init)]
    pending += [_pod_with_claim_template(f"test-dra-{i}", "test") for i in range(measure)]
    return Workload([n for n, _ in built], [], pending, ["DynamicResources"], 40,
                    objects=objects, init_namespace="init")


# --- one measurement ---------------------------------------------------------------------------
def _configuration(profile: str, wl: Workload) -> dict | None:
    if profile == "default":
        return None
    enabled = [QUEUE_SORT, *wl.plugins, BINDER]
    return {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
            "profiles": [{"schedulerName": "default-scheduler", "plugins": {"multiPoint": {
                "enabled": [{"name": n} for n in enabled], "disabled": [{"name": "*"}]}}}]}


def write_input(wl: Workload, profile: str, directory: str) -> str:
    """The workload as one JSON List, the file `simulate` would be given."""
    items = [*wl.nodes, *wl.objects, *wl.running, *wl.pending]
    config = _configuration(profile, wl)
    if config is not None:
        items.append(config)
    path = os.path.join(directory, "cluster.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"apiVersion": "v1", "kind": "List", "items": items}, f)
    return path


def _cpu() -> float:
    """CPU seconds of this process since it started (user and system)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _run_init(sched, namespace: str | None) -> None:
    """Schedule the init namespace's pending pods, queued first, one cycle each."""
    if namespace is None:
        return
    prefix = namespace + "/"
    for _ in range(sum(1 for key in sched.pending_at_start if key.startswith(prefix))):
        if not sched.step():
            break


def _run(sched, churn) -> None:
    """To the end of the queue, one churn pod every CHURN_INTERVAL of CPU time meanwhile."""
    if churn is None:
        sched.run()
        return
    from .timeline.informer import Informer

    informer, made = Informer(sched), 0
    due = time.process_time() + CHURN_INTERVAL
    while sched.step():
        if time.process_time() >= due:
            informer.add_pod(churn(made))
            made += 1
            due += CHURN_INTERVAL


def measure(name: str, nodes: int, pods: int | None, profile: str, observe: bool,
            path: str | None = None, release: str = DEFAULT_RELEASE, gates: str = "") -> dict:
    """Load the workload's file, build, run and write the output, as `simulate` does; run in
    a fresh interpreter (path: the file, written beforehand; else written here, uncounted).
    release, gates: the kube-scheduler release and --feature-gates the scheduler follows."""
    if path is None:
        with tempfile.TemporaryDirectory() as directory:
            return measure(name, nodes, pods, profile, observe,
                           write_input(WORKLOADS[name](nodes, pods), profile, directory),
                           release, gates)
    wall = time.perf_counter()
    from .observe import OutcomeObserver, TraceObserver
    from .simulate import SimulationResult, collector_for_a_run, load_scheduler

    # Only the workload's constants (floor, churn) from a one-node build: the measured pods are
    # the file's pending ones, and the process holds nothing a simulation would not.
    wl = WORKLOADS[name](1, 1)
    trace, outcomes = (TraceObserver(), None) if observe else (None, OutcomeObserver())
    marks = [_cpu()]
    with collector_for_a_run() as loaded:
        sched = load_scheduler([path], observer=trace or outcomes,
                               features=feature_gates(release, gates))
        loaded()
        # Counted with the loading: Go's measurement starts after the initPods.
        _run_init(sched, wl.init_namespace)
        marks.append(_cpu())
        _run(sched, wl.churn)
        marks.append(_cpu())
    result = SimulationResult(sched, trace, outcomes)
    with open(os.devnull, "w", encoding="utf-8") as sink:
        if observe:
            result.write_json(sink)
        else:
            sink.write(json.dumps(result.to_summary(), indent=2) + "\n")
    marks.append(_cpu())
    measured = [key for key in sched.pending_at_start
                if wl.init_namespace is None or not key.startswith(wl.init_namespace + "/")]
    bound = sum(1 for key in measured if sched.bindings.get(key))
    kib = None
    if trace is not None:
        sizes = [c.nbytes() for c in trace.cycles] or [0]
        kib = sum(sizes) / len(sizes) / 1024
    # ru_maxrss is in KiB on Linux.
    return {"workload": name, "profile": profile, "nodes": nodes, "pods": len(measured),
            "bound": bound, "trace": "on" if observe else "off", "floor": wl.floor,
            "load": marks[1] - marks[0], "run": marks[2] - marks[1],
            "output": marks[3] - marks[2], "whole": marks[3],
            "wall": time.perf_counter() - wall,
            "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "trace_kib": kib}


def _measure_isolated(*args) -> dict:
    with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
        return pool.submit(measure, *args).result()


def median_result(results: list[dict]) -> dict:
    """Each figure's median over repeated runs (the counts are the same in each)."""
    out = dict(results[0])
    for key in ("load", "run", "output", "whole", "wall", "peak_mib", "trace_kib"):
        values = [r[key] for r in results if r[key] is not None]
        out[key] = statistics.median(values) if values else None
    return out


def rates(result: dict) -> dict:
    """Pods bound per CPU second of the run alone and of the whole process, and the ratios."""
    out = {}
    for part in ("run", "whole"):
        rate = result["bound"] / result[part] if result[part] else 0.0
        out[part] = (rate, rate / result["floor"] if result["floor"] else None)
    return out


# --- the command -------------------------------------------------------------------------------
# (title, alignment, the figure's text)
COLUMNS = [("workload", "<34", lambda r: r["workload"]),
           ("profile", "<8", lambda r: r["profile"]),
           ("nodes", ">6", lambda r: str(r["nodes"])),
           ("pods", ">6", lambda r: str(r["pods"])),
           ("bound", ">6", lambda r: str(r["bound"])),
           ("trace", "<5", lambda r: r["trace"]),
           ("load s", ">7", lambda r: f"{r['load']:.2f}"),
           ("run s", ">7", lambda r: f"{r['run']:.2f}"),
           ("output s", ">8", lambda r: f"{r['output']:.2f}"),
           ("whole s", ">7", lambda r: f"{r['whole']:.2f}"),
           ("wall s", ">7", lambda r: f"{r['wall']:.2f}"),
           ("Go floor", ">8", lambda r: f"{r['floor']:g}" if r["floor"] else "-"),
           ("run pods/s", ">10", lambda r: f"{rates(r)['run'][0]:.1f}"),
           ("run ratio", ">9", lambda r: _ratio(rates(r)["run"][1])),
           ("whole pods/s", ">12", lambda r: f"{rates(r)['whole'][0]:.1f}"),
           ("whole ratio", ">11", lambda r: _ratio(rates(r)["whole"][1])),
           ("peak MiB", ">8", lambda r: f"{r['peak_mib']:.1f}"),
           ("KiB/cycle", ">9", lambda r: "-" if r["trace_kib"] is None
            else f"{r['trace_kib']:.1f}")]


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


def cells(result: dict) -> list[str]:
    return [text(result) for _, _, text in COLUMNS]


def format_row(values: list[str]) -> str:
    return "  ".join(f"{text:{align}}" for (_, align, _), text in zip(COLUMNS, values)).rstrip()


def header() -> str:
    return format_row([title for title, _, _ in COLUMNS])


def row(result: dict) -> str:
    return format_row(cells(result))


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


def bench_command(args, out=None, err=None, isolate: bool = True, on_result=None) -> int:
    """on_result: told each row's (median) figures, e.g. to write them as a document."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        sizes = _parse_sizes(args.nodes)
    except ValueError:
        print(f"error: --nodes takes positive integers separated by commas, got {args.nodes!r}",
              file=err)
        return EXIT_BAD_INPUT
    names = [n.strip() for n in args.workloads.split(",") if n.strip()]
    if names == ["all"]:
        names = list(WORKLOADS)
    unknown = [n for n in names if n not in WORKLOADS]
    if unknown or not names:
        print(f"error: unknown workload {', '.join(unknown) or '(none)'}; known: "
              f"{', '.join(WORKLOADS)}", file=err)
        return EXIT_BAD_INPUT
    repeat = getattr(args, "repeat", 1)
    if repeat < 1:
        print(f"error: --repeat takes a positive integer, got {repeat}", file=err)
        return EXIT_BAD_INPUT
    try:
        release = parse_release(getattr(args, "release", None))
        gates = getattr(args, "feature_gates", "") or ""
        feature_gates(release, gates)
    except InputError as exc:
        print(f"error: {exc}", file=err)
        return EXIT_BAD_INPUT
    profile = args.profile
    if profile == "default":
        missing = missing_default_plugins()
        if missing:
            print(f"warning: default profile plugins not importable: {'; '.join(missing)}; "
                  "using --profile minimal", file=err)
            profile = "minimal"
    run = _measure_isolated if isolate else measure
    traces = {"off": (False,), "on": (True,), "both": (False, True)}[getattr(args, "trace", "both")]
    print(header(), file=out, flush=True)
    for name in names:
        for nodes in sizes:
            with tempfile.TemporaryDirectory() as directory:
                path = write_input(WORKLOADS[name](nodes, args.pods), profile, directory)
                for observe in traces:
                    result = median_result([run(name, nodes, args.pods, profile, observe, path,
                                                release, gates) for _ in range(repeat)])
                    print(row(result), file=out, flush=True)
                    if on_result is not None:
                        on_result(result)
    return 0
