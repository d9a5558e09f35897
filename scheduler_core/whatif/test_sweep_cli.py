"""python -m scheduler_core sweep: the grid's variants run from the command line."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from scheduler_core.cli import main
from scheduler_core.errors import InputError
from scheduler_core.testing import make_node, make_pod
from scheduler_core.whatif import sweep_command

ROOT = Path(__file__).resolve().parents[2]
GRID = {"strategies": ["LeastAllocated", "MostAllocated"],
        "weights": {"NodeResourcesFit": [1, 5]}}


def run_sweep(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scheduler_core", "sweep", *map(str, args)],
                          cwd=ROOT, capture_output=True, timeout=120, text=True)


@pytest.fixture
def files(tmp_path):
    """Four nodes of 4 CPUs, ten pods of 1 CPU, then one of 3: spreading them leaves no node
    with 3 CPUs free, packing them does (as test_sweep's spread_out)."""
    nodes = [make_node(f"n{i}", cpu="4", memory="8Gi") for i in range(4)]
    pods = [make_pod(f"p{i}", cpu="1", memory="1Gi") for i in range(10)]
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(yaml.safe_dump_all([*nodes, *pods, make_pod("big", cpu="3")]))
    grid = tmp_path / "grid.yaml"
    grid.write_text(yaml.safe_dump(GRID))
    return cluster, grid


def test_a_2x2_grid_gives_4_variants_in_order_and_packing_binds_the_big_pod(files):
    cluster, grid = files
    done = run_sweep(cluster, "--grid", grid, "-o", "json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["schemaVersion"] == 1 and out["release"] and out["warnings"] == []
    rows = out["variants"]
    assert [r["label"] for r in rows] == [
        "NodeResourcesFit=1, strategy=LeastAllocated", "NodeResourcesFit=1, strategy=MostAllocated",
        "NodeResourcesFit=5, strategy=LeastAllocated", "NodeResourcesFit=5, strategy=MostAllocated"]
    assert rows[1]["params"] == {"weights": {"NodeResourcesFit": 1}, "strategy": "MostAllocated"}
    assert [(r["bound"], r["pending"]) for r in rows] == [(10, 1), (11, 0)] * 2
    assert [r["fragmentation"] for r in rows] == [1.0, 0.0] * 2
    assert rows[2]["placementScore"] > rows[0]["placementScore"] > 0
    assert "sweep: 4/4 done: variant 3 (NodeResourcesFit=5, strategy=MostAllocated)" \
        in done.stderr


def test_two_workers_give_the_results_of_one_in_the_same_order(files):
    cluster, grid = files
    one = run_sweep(cluster, "--grid", grid, "-o", "json")
    two = run_sweep(cluster, "--grid", grid, "-o", "json", "--workers", "2")
    assert one.returncode == two.returncode == 0, two.stderr
    assert json.loads(two.stdout) == json.loads(one.stdout)
    assert two.stderr.count("sweep: ") == 4


def test_the_table_has_one_row_per_variant_with_its_measures(files):
    cluster, grid = files
    done = run_sweep(cluster, "--grid", grid)
    assert done.returncode == 0, done.stderr
    head, *rows = done.stdout.splitlines()
    assert head.split()[:3] == ["VARIANT", "BOUND", "PENDING"] and "SCORE" in head
    assert len(rows) == 4
    assert rows[1].startswith("NodeResourcesFit=1, strategy=MostAllocated")
    assert rows[1].split()[2:4] == ["11", "0"]


@pytest.mark.parametrize("grid, flags, message", [
    ({"colours": [1]}, [], "grid.yaml: grid.colours: unknown axis"),
    ({"weights": {"Nope": [2]}}, [], "grid.yaml: grid.weights.Nope: no such plugin"),
    (GRID, ["--max-variants", "3"], "grid.yaml: grid: 4 variants is more than --max-variants "
                                    "of 3"),
    ([1, 2], [], "grid.yaml: grid: give one object with at least one axis"),
    (GRID, ["--workers", "0"], "--workers must be 1 or more, got 0"),
])
def test_a_bad_grid_exits_2_with_one_line_naming_the_file_and_the_field_or_limit(
        files, grid, flags, message):
    cluster, path = files
    path.write_text(yaml.safe_dump(grid))
    done = run_sweep(cluster, "--grid", path, *flags)
    assert done.returncode == 2
    assert done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith("error: ") and message in line


def test_a_failed_variant_is_reported_and_the_others_go_on(files, monkeypatch, capsys):
    cluster, grid = files
    real = sweep_command.run_variant

    def run_variant(sources, variant, **kw):
        if variant.index == 1:
            raise InputError("refused here", file="cluster.yaml")
        return real(sources, variant, **kw)

    monkeypatch.setattr(sweep_command, "run_variant", run_variant)
    assert main(["sweep", str(cluster), "--grid", str(grid), "-o", "json"]) == 0
    captured = capsys.readouterr()
    rows = json.loads(captured.out)["variants"]
    assert rows[1] == {"index": 1, "label": "NodeResourcesFit=1, strategy=MostAllocated",
                       "params": {"weights": {"NodeResourcesFit": 1},
                                  "strategy": "MostAllocated"},
                       "error": "cluster.yaml: refused here"}
    assert [r["bound"] for r in rows if "error" not in r] == [10, 10, 11]
    assert "variant 1 (NodeResourcesFit=1, strategy=MostAllocated) failed: cluster.yaml: " \
        "refused here" in captured.err


def test_each_variant_starts_from_the_config_file_given(files, tmp_path):
    cluster, grid = files
    config = tmp_path / "ksc.yaml"
    config.write_text(yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler", "pluginConfig": [
            {"name": "NodeResourcesFit",
             "args": {"scoringStrategy": {"type": "MostAllocated"}}}]}]}))
    grid.write_text(yaml.safe_dump({"percentageOfNodesToScore": [0, 100]}))
    packed = run_sweep(cluster, "--grid", grid, "--config", config, "-o", "json")
    spread = run_sweep(cluster, "--grid", grid, "-o", "json")
    assert packed.returncode == spread.returncode == 0, packed.stderr
    assert [r["bound"] for r in json.loads(packed.stdout)["variants"]] == [11, 11]
    assert [r["bound"] for r in json.loads(spread.stdout)["variants"]] == [10, 10]


def test_feature_gates_are_set_on_each_release_of_the_grid_and_refused_where_unknown(files):
    cluster, grid = files
    grid.write_text(yaml.safe_dump({"releases": ["1.37", "1.36"]}))
    done = run_sweep(cluster, "--grid", grid, "--release", "1.37",
                     "--feature-gates", "DRADerivedAttributes=true")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines()[-1].endswith(
        'grid.yaml: grid: release 1.36: invalid argument "DRADerivedAttributes=true" for '
        '"--feature-gates" flag: unrecognized feature gate: DRADerivedAttributes')


def test_a_feature_gates_axis_sets_each_variant_gates_shown_in_the_json_and_the_table(
        tmp_path):
    """PodLevelResources off drops the pod's spec.resources (3 CPUs at pod level), so the pod
    fits the 2-CPU node in that variant only, which warns of the field it dropped."""
    pod = make_pod("big", cpu="1")
    pod["spec"]["resources"] = {"requests": {"cpu": "3"}}
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(yaml.safe_dump_all([make_node("n0", cpu="2"), pod]))
    grid = tmp_path / "grid.yaml"
    grid.write_text("featureGates:\n- ''\n- PodLevelResources=false,"
                    "InPlacePodLevelResourcesVerticalScaling=false\n")
    done = run_sweep(cluster, "--grid", grid, "-o", "json",
                     "--feature-gates", "OpportunisticBatching=false")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["featureGates"] == "OpportunisticBatching=false"
    defaults, off = out["variants"]
    assert defaults["params"] == {"featureGates": ""} and defaults["label"] == \
        "featureGates=defaults"
    assert off["params"]["featureGates"] == \
        "PodLevelResources=false,InPlacePodLevelResourcesVerticalScaling=false"
    assert (defaults["bound"], off["bound"]) == (0, 1)
    assert defaults["warnings"] == []
    assert any("spec.resources" in w and "PodLevelResources feature gate is off" in w
               for w in off["warnings"])
    table = run_sweep(cluster, "--grid", grid)
    assert table.stdout.splitlines()[2].startswith(
        "featureGates=PodLevelResources=false,InPlacePodLevelResourcesVerticalScaling=false")


def test_a_grid_gate_a_release_refuses_exits_2_naming_the_file_the_variant_and_the_field(
        files):
    cluster, grid = files
    grid.write_text(yaml.safe_dump({"releases": ["1.37", "1.34"],
                                    "featureGates": [{"OpportunisticBatching": False}]}))
    done = run_sweep(cluster, "--grid", grid)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines()[-1].endswith(
        'grid.yaml: grid: variant 1 (release=1.34, featureGates=OpportunisticBatching=false): '
        'grid.featureGates[0]: kube-scheduler v1.34 refuses "OpportunisticBatching=false": '
        'unrecognized feature gate: OpportunisticBatching')
