"""optimize: the global placement is checked by the engine's own Filter plugins."""
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from scheduler_core.errors import InputError
from scheduler_core.testing import make_node, make_pod
from scheduler_core.whatif.commands import format_optimize
from scheduler_core.whatif.optimize import Limits, optimize
from scheduler_core.whatif.probe import refusals
from scheduler_core.whatif.scenario import Scenario

ROOT = Path(__file__).resolve().parents[2]
HOST, ZONE = "kubernetes.io/hostname", "topology.kubernetes.io/zone"


def scenario(*docs) -> Scenario:
    return Scenario.from_files(["cluster.yaml"], texts={"cluster.yaml": yaml.safe_dump_all(docs)})


def violations(sc: Scenario, placement: dict[str, str | None]) -> list[str]:
    """Every placed pod, with all the others placed, run through the engine's PreFilter and
    every enabled Filter plugin on its node; what any plugin refuses."""
    return [f"{r['pod']} on {r['node']}: {r['plugin']}: {r['message']}"
            for r in refusals(sc.scheduler(), placement)]


def test_an_early_pod_that_took_the_only_node_of_a_later_one_is_placed_elsewhere():
    nodes = [make_node("small", cpu="2", labels={HOST: "small"}),
             make_node("large", cpu="4", labels={HOST: "large"})]
    pods = [make_pod("early", cpu="2"), make_pod("late", cpu="4")]
    out = optimize(scenario(*nodes, *pods), workers=1)
    assert out["scheduler"] == {"bound": 1, "violations": [], "preempted": [],
                                "bindings": {"default/early": "large", "default/late": None}}
    assert out["optimal"] == {"bound": 2, "status": "OPTIMAL",
                              "bindings": {"default/early": "small", "default/late": "large"}}
    assert out["gained"] == [{"pod": "default/late", "optimalNode": "large", "blockedBy": {
        "pod": "default/early", "cycle": 0, "schedulerNode": "large", "optimalNode": "small"}}]
    assert out["unmodelled"] == ["VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding",
                                 "DynamicResources"]


def anti(app: str, key: str) -> dict:
    return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": key}]}}


def together(app: str, key: str) -> dict:
    return {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": key}]}}


def spread(app: str, key: str, skew: int) -> list[dict]:
    return [{"maxSkew": skew, "topologyKey": key, "whenUnsatisfiable": "DoNotSchedule",
             "labelSelector": {"matchLabels": {"app": app}}}]


def test_anti_affinity_and_affinity_between_pending_pods_hold():
    nodes = [make_node(f"n{i}", cpu="4", labels={HOST: f"n{i}", ZONE: f"z{i % 2}"})
             for i in range(4)]
    pods = [make_pod(f"db-{i}", cpu="1", labels={"app": "db"}, affinity=anti("db", ZONE))
            for i in range(3)]
    pods += [make_pod(f"cache-{i}", cpu="1", labels={"app": "cache"},
                      affinity=together("cache", HOST)) for i in range(3)]
    sc = scenario(*nodes, *pods)
    out = optimize(sc, workers=1)
    best = out["optimal"]["bindings"]
    assert out["optimal"]["bound"] == 5      # one db pod per zone: two of three
    assert len({best[f"default/cache-{i}"] for i in range(3)}) == 1
    assert violations(sc, best) == []


def test_topology_spread_do_not_schedule_holds_in_the_placement():
    nodes = [make_node(f"n{i}", cpu="2", labels={HOST: f"n{i}", ZONE: f"z{i % 3}"})
             for i in range(3)]
    nodes.append(make_node("n3", cpu="8", labels={HOST: "n3", ZONE: "z0"}))
    pods = [make_pod(f"web-{i}", cpu="1", labels={"app": "web"},
                     topologySpreadConstraints=spread("web", ZONE, 1)) for i in range(8)]
    sc = scenario(*nodes, *pods)
    out = optimize(sc, workers=1)
    assert out["optimal"]["bound"] == 7      # zones z1 and z2 hold 2 each: z0 at most 3
    assert violations(sc, out["optimal"]["bindings"]) == []


# --- the scheduler's placement need not hold as a whole ------------------------------------------
# Found by the property test below (one cluster in a few hundred, both engine paths): the
# scheduler bound 2 pods, the solver 1. kube-scheduler checks a pod's required pod affinity and
# DoNotSchedule spread in that pod's cycle only; a pod bound later without the constraint
# breaks it, and the global placement, which holds as a whole, cannot repeat that.
def one_pod_nodes(*zones: str) -> list[dict]:
    return [make_node(f"n{i}", cpu="1", labels={HOST: f"n{i}", ZONE: z})
            for i, z in enumerate(zones)]


def test_a_pod_bound_after_the_first_of_an_affinity_group_elsewhere_breaks_its_affinity():
    pods = [make_pod("first", cpu="1", labels={"app": "a"}, affinity=together("a", HOST)),
            make_pod("later", cpu="1", labels={"app": "a"})]
    sc = scenario(*one_pod_nodes("z0", "z1"), *pods)
    out = optimize(sc, workers=1)
    assert out["scheduler"]["bindings"] == {"default/first": "n0", "default/later": "n1"}
    assert out["scheduler"]["violations"] == [{
        "pod": "default/first", "node": "n0", "plugin": "InterPodAffinity",
        "message": "node(s) didn't match pod affinity rules"}]
    assert out["optimal"]["bound"] == 1 and out["optimal"]["status"] == "OPTIMAL"
    assert violations(sc, out["optimal"]["bindings"]) == []
    assert format_optimize(out).splitlines()[4:6] == [
        "bound by the scheduler, broken by a pod bound later (affinity and spread are checked "
        "in the pod's own cycle only):",
        "  default/first on n0: InterPodAffinity: node(s) didn't match pod affinity rules"]


def test_a_pod_bound_after_a_spread_pod_in_its_zone_breaks_its_skew():
    pods = [make_pod("spread", cpu="1", labels={"app": "a"},
                     topologySpreadConstraints=spread("a", ZONE, 1)),
            make_pod("later", cpu="1", labels={"app": "a"}, nodeSelector={ZONE: "z0"})]
    nodes = [make_node("n0", cpu="2", labels={HOST: "n0", ZONE: "z0"}),
             make_node("n1", cpu="0", labels={HOST: "n1", ZONE: "z1"})]
    sc = scenario(*nodes, *pods)
    out = optimize(sc, workers=1)
    assert out["scheduler"]["bindings"] == {"default/spread": "n0", "default/later": "n0"}
    assert out["scheduler"]["violations"] == [{
        "pod": "default/spread", "node": "n0", "plugin": "PodTopologySpread",
        "message": "node(s) didn't match pod topology spread constraints"}]
    assert out["optimal"]["bound"] == 1 and out["optimal"]["status"] == "OPTIMAL"
    assert violations(sc, out["optimal"]["bindings"]) == []


HIGH = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
        "metadata": {"name": "high"}, "value": 1000}


def test_a_running_pod_the_scheduler_preempted_stays_in_the_global_placement():
    docs = [HIGH, make_node("n0", cpu="2", labels={HOST: "n0"}),
            make_pod("low", cpu="2", node_name="n0"),
            make_pod("high", cpu="2", priorityClassName="high")]
    out = optimize(scenario(*docs), workers=1)
    assert out["scheduler"] == {"bound": 1, "bindings": {"default/high": "n0"},
                                "violations": [], "preempted": ["default/low"]}
    assert out["optimal"] == {"bound": 0, "bindings": {"default/high": None},
                              "status": "OPTIMAL"}
    assert format_optimize(out).splitlines()[-2] == (
        "preempted by the scheduler (the global placement keeps running pods where they are): "
        "default/low")


def test_a_cluster_beyond_the_limit_is_refused_naming_it():
    nodes = [make_node(f"n{i}", labels={HOST: f"n{i}"}) for i in range(3)]
    with pytest.raises(InputError, match="the cluster has 3 nodes, more than the solver's "
                                         r"limit of 2 \(--max-solver-nodes\)"):
        optimize(scenario(*nodes, make_pod("p")), limits=Limits(nodes=2))
    with pytest.raises(InputError, match="the cluster has 2 pending pods, more than the "
                                         r"solver's limit of 1 \(--max-solver-pods\)"):
        optimize(scenario(*nodes, make_pod("p"), make_pod("q")), limits=Limits(pods=1))


# --- random small clusters, checked by every enabled Filter plugin -------------------------------
@st.composite
def clusters(draw):
    count = draw(st.integers(2, 5))
    nodes = []
    for i in range(count):
        labels = {HOST: f"n{i}", ZONE: f"z{i % 2}"}
        if draw(st.booleans()):
            labels["disk"] = "ssd"
        taints = [{"key": "gpu", "value": "yes", "effect": "NoSchedule"}] \
            if draw(st.integers(0, 4)) == 0 else None
        nodes.append(make_node(f"n{i}", cpu=str(draw(st.integers(1, 4))), pods="4",
                               labels=labels, taints=taints,
                               unschedulable=draw(st.integers(0, 6)) == 0))
    pods = []
    apps = ("a", "b")
    for i in range(draw(st.integers(1, 8))):
        app = draw(st.sampled_from(apps))
        spec = {}
        kind = draw(st.sampled_from(["plain", "anti", "affinity", "spread", "ports", "selector",
                                     "toleration"]))
        if kind == "anti":
            spec["affinity"] = anti(app, draw(st.sampled_from([HOST, ZONE])))
        elif kind == "affinity":
            spec["affinity"] = together(draw(st.sampled_from(apps)),
                                        draw(st.sampled_from([HOST, ZONE])))
        elif kind == "spread":
            spec["topologySpreadConstraints"] = spread(app, draw(st.sampled_from([HOST, ZONE])),
                                                       draw(st.integers(1, 2)))
        elif kind == "selector":
            spec["nodeSelector"] = {"disk": "ssd"}
        elif kind == "toleration":
            spec["tolerations"] = [{"key": "gpu", "operator": "Exists"}]
        containers = None
        if kind == "ports":
            containers = [{"name": "c", "image": "pause", "ports": [
                {"containerPort": 80, "hostPort": 8080}],
                "resources": {"requests": {"cpu": "500m"}}}]
        node = f"n{draw(st.integers(0, count - 1))}" if draw(st.integers(0, 3)) == 0 else None
        if node is None and draw(st.integers(0, 5)) == 0:
            spec["priorityClassName"] = "high"      # may preempt a running pod
        pods.append(make_pod(f"p{i}", cpu=f"{draw(st.integers(1, 6)) * 500}m", labels={"app": app},
                             node_name=node, containers=containers, **spec))
    return [HIGH, *nodes, *pods]


# Plugins whose constraint is checked in the constrained pod's cycle only; a pod bound later
# can break it. Every other one holds both ways (resources, ports, anti-affinity).
ONE_WAY = {"InterPodAffinity", "PodTopologySpread"}


def check_global_placement(docs) -> None:
    sc = scenario(*docs)
    out = optimize(sc, workers=1, time_limit=20)
    assert out["optimal"]["status"] == "OPTIMAL"
    assert violations(sc, out["optimal"]["bindings"]) == []
    assert {v["plugin"] for v in out["scheduler"]["violations"]} <= ONE_WAY
    if not out["scheduler"]["violations"] and not out["scheduler"]["preempted"]:
        assert out["optimal"]["bound"] >= out["scheduler"]["bound"]


# The same 40 clusters every run, and a further 15 from a seed drawn per run (named on failure;
# OPTIMIZE_PROPERTY_SEED replays it).
@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(clusters())
def test_the_global_placement_holds_and_binds_at_least_as_many_on_40_fixed_clusters(docs):
    check_global_placement(docs)


RUN_SEED = int(os.environ.get("OPTIMIZE_PROPERTY_SEED") or random.SystemRandom().getrandbits(32))


def test_the_global_placement_holds_and_binds_at_least_as_many_on_clusters_drawn_per_run():
    @seed(RUN_SEED)
    @settings(max_examples=15, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(clusters())
    def check(docs):
        check_global_placement(docs)

    try:
        check()
    except Exception as exc:
        raise AssertionError(f"clusters drawn from seed {RUN_SEED}: replay with "
                             f"OPTIMIZE_PROPERTY_SEED={RUN_SEED}") from exc


# --- the command line ---------------------------------------------------------------------------
def run_optimize(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scheduler_core", "optimize", *map(str, args)],
                          cwd=ROOT, capture_output=True, timeout=120, text=True)


@pytest.mark.parametrize("extra, message", [
    (["--time-limit", "0"], "error: --time-limit must be more than 0, got 0"),
    (["--max-solver-nodes", "1"], "error: the cluster has 3 nodes, more than the solver's "
                                  "limit of 1 (--max-solver-nodes)"),
])
def test_cli_bad_input_exits_2_with_one_line(extra, message):
    done = run_optimize(ROOT / "fixtures/locally-optimal.yaml", *extra)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == message + "\n"


def test_a_cluster_whose_model_aborted_or_tools_presolve_is_solved(tmp_path):
    """Found by the property test's generator: with the scheduler's count as a constraint on
    the count objective, OR-Tools 9.15's presolve aborted the process (a failed CHECK, no
    Python exception). Run as a subprocess, so a return of it fails this test alone."""
    ssd = {"disk": "ssd"}
    nodes = [make_node(f"n{i}", cpu=cpu, labels={**ssd, HOST: f"n{i}", ZONE: f"z{i % 2}"},
                       pods="4", taints=[{"key": "gpu", "value": "yes", "effect": "NoSchedule"}]
                       if i == 1 else None)
             for i, cpu in enumerate(["2", "1", "4", "2", "2"])]
    a, b = {"app": "a"}, {"app": "b"}
    pods = [make_pod("p0", cpu="1500m", labels=a, topologySpreadConstraints=spread("a", ZONE, 1)),
            make_pod("p1", cpu="1", labels=a, containers=[{
                "name": "c", "image": "pause", "ports": [{"containerPort": 80, "hostPort": 8080}],
                "resources": {"requests": {"cpu": "500m"}}}]),
            make_pod("p2", cpu="500m", labels=a, affinity=together("b", ZONE)),
            make_pod("p3", cpu="2500m", labels=a),
            make_pod("p4", cpu="1500m", labels=b, affinity=anti("b", HOST), node_name="n3"),
            make_pod("p5", cpu="3", labels=a, node_name="n4",
                     topologySpreadConstraints=spread("a", HOST, 1))]
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(yaml.safe_dump_all(nodes + pods))
    done = run_optimize(cluster, "--output", "json", "--workers", "1")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert (out["scheduler"]["bound"], out["optimal"]["bound"]) == (3, 3)
    assert out["optimal"]["status"] == "OPTIMAL"
