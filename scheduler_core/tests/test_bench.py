"""The benchmark's workloads and table, at a tiny size (no timing is asserted)."""
import io
import json
import os
import tempfile
from types import SimpleNamespace

import pytest

from scheduler_core.bench import (
    WORKLOADS,
    bench_command,
    measure,
    missing_default_plugins,
    write_input,
)
from scheduler_core.columns import PATH_ENV
from scheduler_core.framework.types import PodInfo
from scheduler_core.observe import TraceObserver
from scheduler_core.simulate import load_scheduler


def args(**overrides):
    base = dict(nodes="4,6", pods=3, workloads="SchedulingBasic", profile="minimal")
    return SimpleNamespace(**(base | overrides))


def run_bench(isolate=False, **overrides):
    out, err = io.StringIO(), io.StringIO()
    status = bench_command(args(**overrides), out=out, err=err, isolate=isolate)
    return status, out.getvalue().splitlines(), err.getvalue()


HEADER = ["workload", "profile", "nodes", "pods", "bound", "trace", "load s", "run s",
          "output s", "whole s", "wall s", "Go floor", "run pods/s", "run ratio",
          "whole pods/s", "whole ratio", "peak MiB", "KiB/cycle"]


def test_the_table_has_a_row_per_size_and_trace_mode():
    status, lines, err = run_bench(isolate=True)
    assert (status, err) == (0, "")
    assert [t.strip() for t in lines[0].split("  ") if t.strip()] == HEADER
    rows = [line.split() for line in lines[1:]]
    assert [tuple(r[:6]) for r in rows] == [
        ("SchedulingBasic", "minimal", "4", "3", "3", "off"),
        ("SchedulingBasic", "minimal", "4", "3", "3", "on"),
        ("SchedulingBasic", "minimal", "6", "3", "3", "off"),
        ("SchedulingBasic", "minimal", "6", "3", "3", "on"),
    ]
    for r in rows:
        load, run, output, whole, wall = map(float, r[6:11])
        # The whole process holds its parts (and the interpreter's start besides).
        assert 0 <= load + run + output <= whole
        assert wall > 0
        assert r[11] == "680"
        # The ratios come from the unrounded rates, the printed rates are rounded to 0.1.
        assert abs(float(r[13][:-1]) - float(r[12]) / 680) <= 0.006
        assert abs(float(r[15][:-1]) - float(r[14]) / 680) <= 0.006
        assert float(r[14]) <= float(r[12])
        assert float(r[16]) > 0
        assert (r[17] == "-") == (r[5] == "off")


@pytest.mark.parametrize("name", list(WORKLOADS))
def test_every_workload_schedules_its_pods(name):
    result = measure(name, 6, 4, "minimal", observe=False)
    assert result["workload"] == name
    assert result["bound"] == result["pods"] > 0


def _outcome(name: str, path: str, monkeypatch) -> tuple[dict, str]:
    """Bindings and JSON trace of a workload (its churn pods queued from the start)."""
    monkeypatch.setenv(PATH_ENV, path)
    wl = WORKLOADS[name](12, 30)
    if wl.churn is not None:
        wl.pending += [wl.churn(i) for i in range(3)]
    with tempfile.TemporaryDirectory() as directory:
        trace = TraceObserver()
        sched = load_scheduler([write_input(wl, "default", directory)], observer=trace)
    sched.run()
    out = io.StringIO()
    trace.write_json(out, {"bindings": sched.bindings})
    return dict(sched.bindings), out.getvalue()


@pytest.mark.parametrize("name", list(WORKLOADS))
def test_the_vectorized_and_reference_paths_agree_on_every_workload(name, monkeypatch):
    vector = _outcome(name, "vector", monkeypatch)
    reference = _outcome(name, "reference", monkeypatch)
    assert vector[0] == reference[0]
    assert vector[1] == reference[1]


def test_scheduling_basic_is_shaped_like_scheduler_perf():
    wl = WORKLOADS["SchedulingBasic"](3, 2)
    node = wl.nodes[0]
    assert node["status"]["allocatable"] == {"cpu": "4", "memory": "32Gi", "pods": "110"}
    assert set(node["metadata"]["labels"]) == {"kubernetes.io/hostname",
                                               "topology.kubernetes.io/zone"}
    pending = PodInfo(wl.pending[0])
    assert (pending.requests.milli_cpu, pending.requests.memory) == (100, 500 * 2**20)
    assert [p["spec"]["nodeName"] for p in wl.running] == ["node-0", "node-1", "node-2"]


# (workload, nodes, initPods, measurePods, threshold) of the variant carrying the threshold in
# performance-config.yaml at v1.37.0, and of the 500Nodes variants.
SCHEDULER_PERF_COUNTS = [
    ("SchedulingBasic", 500, 500, 1000, 680), ("SchedulingBasic", 5000, 1000, 10000, 680),
    ("SchedulingPodAntiAffinity", 500, 100, 400, 60),
    ("SchedulingPodAntiAffinity", 5000, 1000, 2000, 60),
    ("SchedulingPodAffinity", 5000, 5000, 5000, 35),
    ("SchedulingNodeAffinity", 5000, 5000, 10000, 220),
    ("SchedulingPreferredPodAffinity", 5000, 5000, 5000, 90),
    ("SchedulingPreferredPodAntiAffinity", 5000, 5000, 5000, 90),
    ("TopologySpreading", 500, 1000, 1000, 460), ("TopologySpreading", 5000, 5000, 5000, 460),
    ("PreferredTopologySpreading", 5000, 5000, 5000, 340),
    ("DefaultTopologySpreading", 5000, 5000, 50000, 160),
    ("SchedulingWithNodeInclusionPolicy", 5000, 0, 4000, 270),
    ("SchedulingWithExtendedResource", 5000, 0, 5000, 180),
    ("SchedulingDaemonset", 15000, 0, 30000, 1100),
    ("PreemptionBasic", 500, 2000, 500, None), ("PreemptionAsync", 5000, 20000, 5000, 570),
    ("Unschedulable", 5000, 100, 10000, 590),
    # volumes/performance-config.yaml
    ("SchedulingSecrets", 500, 500, 1000, 790), ("SchedulingSecrets", 5000, 1000, 10000, 790),
    ("SchedulingInTreePVs", 5000, 1000, 2000, 290),
    ("SchedulingMigratedInTreePVs", 5000, 5000, 5000, 100),
    ("SchedulingCSIPVs", 500, 500, 1000, 100), ("SchedulingCSIPVs", 5000, 5000, 5000, 100),
]


@pytest.mark.parametrize("name,bound", [
    # One node: 4 cpu holds 40 pods of 100m; a CSINode counting 39 EBS volumes holds 39
    # pods with a volume each (the running one among them); without a CSINode, no limit.
    ("SchedulingInTreePVs", 39), ("SchedulingMigratedInTreePVs", 38), ("SchedulingCSIPVs", 38),
])
def test_the_volume_workloads_attach_at_most_the_csinodes_count(name, bound):
    result = measure(name, 1, 45, "default", observe=False)
    assert (result["pods"], result["bound"]) == (45, bound)


@pytest.mark.parametrize("name,nodes,init,measure,floor", SCHEDULER_PERF_COUNTS)
def test_pod_counts_and_floors_are_scheduler_perfs(name, nodes, init, measure, floor):
    wl = WORKLOADS[name](nodes, None)
    extra = 1 if name == "SchedulingDaemonset" else 0   # scheduler-perf-node
    assert (len(wl.running), len(wl.pending), len(wl.nodes)) == (init, measure, nodes + extra)
    assert wl.floor == floor


def test_node_inclusion_policy_taints_one_node_in_five():
    wl = WORKLOADS["SchedulingWithNodeInclusionPolicy"](10, None)
    tainted = [n["metadata"]["name"] for n in wl.nodes if n["spec"].get("taints")]
    assert tainted == ["taint-node-0", "taint-node-1"] and len(wl.pending) == 8
    (constraint,) = wl.pending[0]["spec"]["topologySpreadConstraints"]
    assert (constraint["nodeTaintsPolicy"], constraint["topologyKey"]) == (
        "Honor", "kubernetes.io/hostname")


def test_churn_pods_are_created_while_the_measured_pods_are_scheduled():
    wl = WORKLOADS["Unschedulable"](6, 4)
    pod = wl.churn(0)
    assert pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "9"
    assert all(p["metadata"]["name"] != pod["metadata"]["name"] for p in wl.pending)
    result = measure("Unschedulable", 6, 4, "minimal", observe=False)
    assert (result["pods"], result["bound"]) == (4, 4)


def test_the_input_file_is_a_list_simulate_reads():
    wl = WORKLOADS["DefaultTopologySpreading"](3, 2)
    with tempfile.TemporaryDirectory() as directory:
        path = write_input(wl, "minimal", directory)
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        assert os.path.basename(path) == "cluster.json"
    kinds = [item["kind"] for item in doc["items"]]
    assert kinds[:3] == ["Node"] * 3 and "Service" in kinds
    assert kinds[-1] == "KubeSchedulerConfiguration"


def test_default_profile_runs_when_its_plugins_import():
    status, lines, err = run_bench(profile="default", nodes="4")
    assert status == 0
    expected = "minimal" if missing_default_plugins() else "default"
    assert all(line.split()[1] == expected for line in lines[1:])
    assert ("warning: default profile plugins not importable" in err) == (expected == "minimal")


def test_repeat_prints_one_row_of_medians():
    status, lines, _ = run_bench(nodes="4", trace="off", repeat=3)
    assert status == 0 and len(lines) == 2


@pytest.mark.parametrize("overrides,message", [
    pytest.param({"nodes": "10,abc"}, "error: --nodes takes positive integers", id="bad sizes"),
    pytest.param({"workloads": "Nope"}, "error: unknown workload Nope; known: SchedulingBasic",
                 id="unknown workload"),
    pytest.param({"repeat": 0}, "error: --repeat takes a positive integer", id="bad repeat"),
])
def test_bad_arguments(overrides, message):
    status, lines, err = run_bench(**overrides)
    assert status == 2
    assert lines == []
    assert err.startswith(message)
