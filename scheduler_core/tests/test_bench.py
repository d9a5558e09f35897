"""The benchmark's workloads and table, at a tiny size (no timing is asserted)."""
import io
from types import SimpleNamespace

import pytest

from scheduler_core.bench import WORKLOADS, bench_command, measure, missing_default_plugins
from scheduler_core.framework.types import PodInfo


def args(**overrides):
    base = dict(nodes="4,6", pods=3, workloads="SchedulingBasic", profile="minimal")
    return SimpleNamespace(**(base | overrides))


def run_bench(isolate=False, **overrides):
    out, err = io.StringIO(), io.StringIO()
    status = bench_command(args(**overrides), out=out, err=err, isolate=isolate)
    return status, out.getvalue().splitlines(), err.getvalue()


def test_the_table_has_a_row_per_size_and_observer():
    status, lines, err = run_bench(isolate=True)
    assert (status, err) == (0, "")
    assert lines[0].split() == ["workload", "profile", "nodes", "pods", "bound", "trace",
                                "seconds", "pods/s", "peak", "MiB", "Go", "floor", "ratio",
                                "KiB/cycle", "max", "KiB", "JSON", "s"]
    rows = [line.split() for line in lines[1:]]
    assert [(r[0], r[1], r[2], r[3], r[4], r[5]) for r in rows] == [
        ("SchedulingBasic", "minimal", "4", "3", "3", "off"),
        ("SchedulingBasic", "minimal", "4", "3", "3", "on"),
        ("SchedulingBasic", "minimal", "6", "3", "3", "off"),
        ("SchedulingBasic", "minimal", "6", "3", "3", "on"),
    ]
    for r in rows:
        assert float(r[6]) >= 0 and float(r[7]) >= 0 and float(r[8]) > 0
        # The ratio comes from the unrounded rate, the printed rate is rounded to 0.1.
        assert r[9] == "680" and r[10].endswith("x")
        assert abs(float(r[10][:-1]) - float(r[7]) / 680) <= 0.006
        if r[5] == "off":
            assert r[11] == r[12] == r[13] == "-"
        else:
            assert 0 < float(r[11]) <= float(r[12]) and float(r[13]) >= 0


@pytest.mark.parametrize("name", list(WORKLOADS))
def test_every_workload_schedules_its_pods(name):
    result = measure(name, 6, 4, "minimal", observe=False)
    assert result["workload"] == name
    assert result["bound"] == result["pods"] > 0


def test_scheduling_basic_is_shaped_like_scheduler_perf():
    wl = WORKLOADS["SchedulingBasic"](3, 2)
    node = wl.nodes[0]
    assert node["status"]["allocatable"] == {"cpu": "4", "memory": "32Gi", "pods": "110"}
    assert set(node["metadata"]["labels"]) == {"kubernetes.io/hostname",
                                               "topology.kubernetes.io/zone"}
    pending = PodInfo(wl.pending[0])
    assert (pending.requests.milli_cpu, pending.requests.memory) == (100, 500 * 2**20)
    assert [p["spec"]["nodeName"] for p in wl.running] == ["node-0", "node-1", "node-2"]


def test_the_workload_registry_is_extensible():
    assert {"SchedulingBasic", "SchedulingPodAntiAffinity", "TopologySpreading",
            "PreemptionBasic"} <= set(WORKLOADS)


SCHEDULER_PERF_COUNTS = [  # (workload, nodes, initPods, measurePods) from performance-config
    ("SchedulingBasic", 500, 500, 1000), ("SchedulingBasic", 5000, 1000, 1000),
    ("SchedulingPodAntiAffinity", 500, 100, 400), ("SchedulingPodAntiAffinity", 5000, 1000, 2000),
    ("SchedulingPodAffinity", 5000, 5000, 1000), ("SchedulingNodeAffinity", 5000, 5000, 1000),
    ("SchedulingPreferredPodAffinity", 5000, 5000, 1000),
    ("SchedulingPreferredPodAntiAffinity", 5000, 5000, 1000),
    ("TopologySpreading", 500, 1000, 1000), ("TopologySpreading", 5000, 5000, 2000),
    ("PreferredTopologySpreading", 5000, 5000, 2000), ("PreemptionBasic", 500, 2000, 500),
    ("PreemptionBasic", 5000, 20000, 500),
    ("Unschedulable", 5000, 100, 1000),
]


@pytest.mark.parametrize("name,nodes,init,measure", SCHEDULER_PERF_COUNTS)
def test_pod_counts_are_scheduler_perfs(name, nodes, init, measure):
    wl = WORKLOADS[name](nodes, None)
    assert (len(wl.running), len(wl.pending), len(wl.nodes)) == (init, measure, nodes)


def test_fifteen_thousand_nodes_measure_the_5000_node_counts():
    wl = WORKLOADS["SchedulingBasic"](15000, None)
    assert (len(wl.nodes), len(wl.running), len(wl.pending)) == (15000, 1000, 1000)


def test_topology_spreading_uses_the_templates_max_skew():
    pod = WORKLOADS["TopologySpreading"](6, 1).pending[0]
    (constraint,) = pod["spec"]["topologySpreadConstraints"]
    assert (constraint["maxSkew"], constraint["whenUnsatisfiable"]) == (5, "DoNotSchedule")


def test_unschedulable_pods_are_pending_but_not_measured():
    result = measure("Unschedulable", 6, 4, "minimal", observe=False)
    assert (result["pods"], result["bound"]) == (4, 4)
    wl = WORKLOADS["Unschedulable"](6, 4)
    assert [p["spec"]["containers"][0]["resources"]["requests"]["cpu"] for p in wl.unmeasured] \
        == ["9"]


def test_timings_report_each_point_and_plugin():
    result = measure("SchedulingBasic", 6, 4, "minimal", observe=False, timings=True)
    lines = result["timings"].splitlines()
    assert lines[1].split()[0] == "preFilter"
    filter_row = lines.index(next(x for x in lines if x.split()[0] == "filter"))
    plugin, calls, _ = lines[filter_row + 1].split()
    # Once a cycle on the columns path, once a node on the per-node path.
    assert plugin == "NodeResourcesFit" and int(calls) in (4, 4 * 6)


def test_default_profile_runs_when_its_plugins_import():
    status, lines, err = run_bench(profile="default", nodes="4")
    assert status == 0
    expected = "minimal" if missing_default_plugins() else "default"
    assert all(line.split()[1] == expected for line in lines[1:])
    assert ("warning: default profile plugins not importable" in err) == (expected == "minimal")


@pytest.mark.parametrize("overrides,message", [
    pytest.param({"nodes": "10,abc"}, "error: --nodes takes positive integers", id="bad sizes"),
    pytest.param({"workloads": "Nope"}, "error: unknown workload Nope; known: SchedulingBasic",
                 id="unknown workload"),
])
def test_bad_arguments(overrides, message):
    status, lines, err = run_bench(**overrides)
    assert status == 2
    assert lines == []
    assert err.startswith(message)

