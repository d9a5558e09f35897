"""The columns path against the per-node reference path, on random clusters.

Per plugin: every node's Filter code and reasons, and every node's raw score, are the same from
filter_vector/score_vector as from filter/score. Per run: a whole simulation gives the same
bindings, outcomes, FailedScheduling messages and (with the JSON trace) the same scores on
either path. The rest of the suite runs on either path with SCHEDULER_CORE_PATH.
"""
from __future__ import annotations

import copy
import io

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduler_core.build import build_scheduler
from scheduler_core.columns import PATH_ENV
from scheduler_core.columns._compare import check_filter_vector
from scheduler_core.columns.store import columns_of
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.handle import FakeHandle
from scheduler_core.framework.interfaces import PreFilterPlugin, PreScorePlugin
from scheduler_core.framework.snapshot import Snapshot
from scheduler_core.loader import Cluster
from scheduler_core.observe import OutcomeObserver, TraceObserver
from scheduler_core.plugins.registry import default_registry
from scheduler_core.testing import make_node, make_pod, pod_info

GPU = "example.com/gpu"
ZONES = ("a", "b", "c")
TAINT_KEYS = ("dedicated", "gpu", "spot")
IMAGES = ("pause", "nginx:1", "big:2")
SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

taints = st.lists(st.fixed_dictionaries({
    "key": st.sampled_from(TAINT_KEYS), "value": st.sampled_from(("", "x", "y")),
    "effect": st.sampled_from(("NoSchedule", "PreferNoSchedule", "NoExecute"))}), max_size=3)
tolerations = st.lists(st.fixed_dictionaries({
    "key": st.sampled_from(TAINT_KEYS + ("",)),
    "operator": st.sampled_from(("Equal", "Exists")),
    "value": st.sampled_from(("", "x")),
    "effect": st.sampled_from(("", "NoSchedule", "PreferNoSchedule"))}), max_size=2)


@st.composite
def nodes(draw, count=None):
    n = count or draw(st.integers(1, 12))
    out = []
    for i in range(n):
        alloc = {}
        if draw(st.booleans()):
            alloc["ephemeral-storage"] = str(draw(st.integers(0, 10**11)))
        if draw(st.booleans()):
            alloc[GPU] = str(draw(st.integers(0, 4)))
        images = [((name,), draw(st.integers(0, 3 * 10**9)))
                  for name in IMAGES if draw(st.booleans())]
        out.append(make_node(
            f"n{i}", cpu=f"{draw(st.integers(0, 8000))}m",
            memory=str(draw(st.integers(0, 64 * 2**30))), pods=str(draw(st.integers(0, 6))),
            # Some nodes have no zone: spreading by zone leaves them out or ignores them.
            labels={**({"zone": draw(st.sampled_from(ZONES))} if draw(st.integers(0, 5))
                       else {}), "kubernetes.io/hostname": f"n{i}",
                    **({"disk": "ssd"} if draw(st.booleans()) else {})},
            taints=draw(taints), unschedulable=draw(st.integers(0, 5)) == 0,
            allocatable=alloc, images=[((f"docker.io/library/{n[0]}",), s) for n, s in images]
            + [((n[0] if ":" in n[0] else n[0] + ":latest",), s) for n, s in images]))
    return out


@st.composite
def pods(draw, prefix="p", count=None):
    n = count or draw(st.integers(1, 10))
    out = []
    for i in range(n):
        requests = {}
        if draw(st.booleans()):
            requests["cpu"] = f"{draw(st.integers(0, 3000))}m"
        if draw(st.booleans()):
            requests["memory"] = str(draw(st.integers(0, 8 * 2**30)))
        if draw(st.integers(0, 3)) == 0:
            requests["ephemeral-storage"] = str(draw(st.integers(0, 10**10)))
        if draw(st.integers(0, 3)) == 0:
            requests[GPU] = str(draw(st.integers(1, 2)))
        spec = {"tolerations": draw(tolerations)}
        if draw(st.integers(0, 3)) == 0:
            spec["nodeSelector"] = {"zone": draw(st.sampled_from(ZONES))}
        if draw(st.integers(0, 2)) == 0:
            spec["affinity"] = {"nodeAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": draw(st.integers(1, 100)), "preference": {"matchExpressions": [
                        {"key": "disk", "operator": "In", "values": ["ssd"]}]}}]}}
        if draw(st.integers(0, 6)) == 0:
            spec["nodeName"] = f"n{draw(st.integers(0, 12))}"
        labels = {"app": draw(st.sampled_from(("web", "db")))}
        selector = {"matchLabels": dict(labels)}
        if draw(st.integers(0, 3)) == 0:
            # By zone or by hostname, honouring the node inclusion policies or not.
            spec["topologySpreadConstraints"] = [{
                "maxSkew": draw(st.integers(1, 2)), "labelSelector": selector,
                "topologyKey": draw(st.sampled_from(("zone", "kubernetes.io/hostname"))),
                "nodeTaintsPolicy": draw(st.sampled_from(("Honor", "Ignore"))),
                "nodeAffinityPolicy": draw(st.sampled_from(("Honor", "Ignore"))),
                "whenUnsatisfiable": draw(st.sampled_from(("DoNotSchedule", "ScheduleAnyway")))}]
        if draw(st.integers(0, 3)) == 0:
            spec.setdefault("affinity", {})["podAntiAffinity"] = {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": selector, "topologyKey": "kubernetes.io/hostname"}]}
        image = draw(st.sampled_from(IMAGES + ("absent:1",)))
        containers = [{"name": "c", "image": image, "resources": {"requests": requests}}]
        out.append(make_pod(f"{prefix}{i}", containers=containers, labels=labels, **spec))
    return out


STRATEGIES = [
    {"type": "LeastAllocated"},
    {"type": "MostAllocated", "resources": [{"name": "cpu", "weight": 3},
                                            {"name": "memory", "weight": 1},
                                            {"name": GPU, "weight": 2}]},
    {"type": "RequestedToCapacityRatio",
     "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 2},
                   {"name": "ephemeral-storage", "weight": 1}],
     "requestedToCapacityRatio": {"shape": [{"utilization": 0, "score": 0},
                                            {"utilization": 40, "score": 7},
                                            {"utilization": 100, "score": 10}]}},
]


def plugins(snapshot):
    registry, handle = default_registry(), FakeHandle(snapshot)

    def build(name, args=None):
        spec = registry.spec(name)
        return spec.new(spec.default_args(args or {}), handle)

    out = [build("NodeResourcesFit", {"scoringStrategy": s}) for s in STRATEGIES]
    out.append(build("NodeResourcesBalancedAllocation", {"resources": [
        {"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1},
        {"name": "ephemeral-storage", "weight": 1}, {"name": GPU, "weight": 1}]}))
    out += [build(name) for name in ("NodeResourcesBalancedAllocation", "TaintToleration",
                                     "NodeUnschedulable", "NodeName", "ImageLocality",
                                     "NodeAffinity", "PodTopologySpread")]
    return out


def snapshot_with_running(node_list, running):
    placed = [pod_info(p) for p in running]
    for i, pi in enumerate(placed):
        pi.node_name = node_list[i % len(node_list)]["metadata"]["name"]
    return Snapshot.from_objects(node_list, placed)


def prepared(plugin, pod, snapshot):
    state = CycleState()
    if isinstance(plugin, PreFilterPlugin):
        plugin.pre_filter(state, pod, snapshot.list())
    if isinstance(plugin, PreScorePlugin):
        status = plugin.pre_score(state, pod, snapshot.list())
        if status is not None and status.is_skip():
            return None
    return state


@SETTINGS
@given(node_list=nodes(), running=pods("r"), pending=pods())
def test_every_vector_filter_gives_each_nodes_code_and_reasons(node_list, running, pending):
    snapshot = snapshot_with_running(node_list, running)
    cols = columns_of(snapshot)
    for plugin in plugins(snapshot):
        if not hasattr(plugin, "filter_vector"):
            continue
        for manifest in pending:
            # These plugins vectorize every pod drawn here: filter_vector may not decline.
            check_filter_vector(plugin, pod_info(manifest), cols, snapshot.list())


@SETTINGS
@given(node_list=nodes(), running=pods("r"), pending=pods())
def test_every_vector_score_gives_each_nodes_raw_score(node_list, running, pending):
    snapshot = snapshot_with_running(node_list, running)
    cols = columns_of(snapshot)
    rows = np.arange(len(snapshot.list()))
    for plugin in plugins(snapshot):
        if not hasattr(plugin, "score_vector"):
            continue
        for manifest in pending:
            pod = pod_info(manifest)
            state = prepared(plugin, pod, snapshot)
            if state is None:
                continue
            got = plugin.score_vector(state, pod, cols, rows)
            want = [plugin.score(state, pod, ni)[0] for ni in snapshot.list()]
            if got is not None:
                assert got.tolist() == want, plugin.name()


def run(monkeypatch, path, node_list, manifests, trace, config=None, seed=7, cluster=None):
    """One whole run on one path: its bindings and its outcomes (or JSON trace). `cluster`,
    when given, is run instead of the nodes and manifests (a fresh one per run)."""
    monkeypatch.setenv(PATH_ENV, path)
    observer = TraceObserver() if trace else OutcomeObserver()
    # The scheduler writes spec.nodeName into the manifests it binds: each run gets its own.
    if cluster is None:
        cluster = Cluster(nodes=copy.deepcopy(node_list), pods=copy.deepcopy(manifests))
    sched = build_scheduler(cluster, config, observer=observer, seed=seed)
    sched.run()
    if trace:
        out = io.StringIO()
        observer.write_json(out, {})
        return sched.bindings, out.getvalue()
    return sched.bindings, observer.to_list()


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(node_list=nodes(), manifests=pods(), trace=st.booleans())
def test_a_whole_run_is_the_same_on_both_paths(monkeypatch, node_list, manifests, trace):
    reference = run(monkeypatch, "reference", node_list, manifests, trace)
    vector = run(monkeypatch, "vector", node_list, manifests, trace)
    assert vector == reference


def test_columns_follow_assume_bind_and_delete(monkeypatch):
    """After every cycle the columns equal columns built afresh from the snapshot."""
    monkeypatch.setenv(PATH_ENV, "vector")
    node_list = [make_node(f"n{i}", cpu="2", pods="3") for i in range(4)]
    manifests = [make_pod(f"p{i}", cpu="500m", memory="1Gi") for i in range(10)]
    sched = build_scheduler(Cluster(nodes=node_list, pods=manifests))
    while sched.step():
        sched.cache.update_snapshot(sched.snapshot)
        live = columns_of(sched.snapshot)
        fresh = Snapshot([ni.clone() for ni in sched.snapshot.list()])
        built = columns_of(fresh)
        for name in ("allocatable", "requested", "non_zero", "pod_count", "unschedulable"):
            assert np.array_equal(getattr(live, name), getattr(built, name)), name
    assert live.pod_count.sum() == 10 - sum(1 for n in sched.bindings.values() if not n)
