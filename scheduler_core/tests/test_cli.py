"""`python -m scheduler_core simulate`, run as a user runs it: the simulate contract's face."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from scheduler_core.testing import make_node, make_pod
from scheduler_core.testing.fakes import configuration, profile

ROOT = Path(__file__).resolve().parents[2]
CYCLE_KEYS = ["index", "time", "pod", "profile", "outcome", "node", "message", "queueSort",
              "preEnqueue", "preFilter",
              "filter", "postFilter", "preemption", "preScore", "score", "totalScore", "reserve",
              "permit", "preBind", "bind", "postBind", "unreserve"]


def simulate(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scheduler_core", "simulate", *map(str, args)],
                          cwd=ROOT, capture_output=True, timeout=120)


def write(path: Path, *docs) -> Path:
    path.write_text(yaml.safe_dump_all(docs))
    return path


def zone(i):
    return {"topology.kubernetes.io/zone": f"zone-{i % 3}", "kubernetes.io/hostname": f"n{i}"}


@pytest.fixture
def cluster(tmp_path):
    """Six equal nodes (so ties are broken by the seed), ten pods, one that fits nowhere."""
    nodes = [make_node(f"n{i}", cpu="2", labels=zone(i)) for i in range(6)]
    pods = [make_pod(f"web-{i}", cpu="500m", memory="256Mi", labels={"app": "web"})
            for i in range(9)]
    pods.append(make_pod("big", cpu="64"))
    return write(tmp_path / "cluster.yaml", *nodes, *pods)


def test_json_output_is_byte_identical_for_a_fixed_seed(cluster):
    first = simulate(cluster, "--output", "json", "--seed", "3")
    second = simulate(cluster, "--output", "json", "--seed", "3")
    assert first.returncode == 0, first.stderr.decode()
    assert first.stdout == second.stdout
    assert first.stderr == second.stderr == b""


def test_json_output_has_the_contracts_keys(cluster):
    out = simulate(cluster, "--output", "json", "--seed", "3")
    result = json.loads(out.stdout)
    assert list(result) == ["schemaVersion", "release", "warnings", "bindings", "cycles"]
    assert result["schemaVersion"] == 1
    assert set(result["bindings"]) == {f"default/web-{i}" for i in range(9)} | {"default/big"}
    assert result["bindings"]["default/big"] is None
    assert all(result["bindings"][f"default/web-{i}"] for i in range(9))
    for cycle in result["cycles"]:
        # No `batch`: the default profile signs no pod (OpportunisticBatching's key is for
        # signed pods only).
        assert list(cycle) == CYCLE_KEYS
        assert cycle["outcome"] in {"Bound", "Unschedulable", "Rejected", "Error"}
    big = next(c for c in result["cycles"] if c["pod"] == "default/big")
    assert big["message"].startswith("0/6 nodes are available: 6 Insufficient cpu.")
    bound = next(c for c in result["cycles"] if c["outcome"] == "Bound")
    assert bound["totalScore"] and bound["score"]
    for entry in bound["filter"][bound["node"]]:
        assert list(entry) == ["plugin", "code", "reasons"]
        assert entry["code"] == "Success"


def test_table_output_is_the_default(cluster):
    out = simulate(cluster, "--seed", "3")
    lines = out.stdout.decode().splitlines()
    assert lines[0].split() == ["POD", "NODE", "REASON"]
    assert lines[-1].startswith("9 of 10 pods bound in ")
    big = next(line for line in lines if line.startswith("default/big "))
    assert "Insufficient cpu" in big


def bad_input_run(path: Path, *extra):
    out = simulate(path, *extra)
    assert out.returncode == 2
    assert out.stdout == b""
    lines = out.stderr.decode().splitlines()
    assert len(lines) == 1
    return lines[0]


def test_bad_quantity_exits_2_with_one_line_naming_file_object_and_field(tmp_path):
    path = write(tmp_path / "bad.yaml", make_node("n1"), make_pod("web", cpu="12x"))
    line = bad_input_run(path)
    assert line.startswith(f"error: {path}: document 2: Pod default/web: "
                           "field spec.containers[0].resources.requests.cpu: ")
    assert "'12x'" in line


def test_unparsable_yaml_exits_2(tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("kind: Node\nmetadata: {name: [\n")
    assert bad_input_run(path).startswith(f"error: {path}: cannot parse YAML: line 3, ")


def test_invalid_configuration_exits_2(tmp_path, cluster):
    config = write(tmp_path / "ksc.yaml", configuration(profile(binder=None)))
    line = bad_input_run(cluster, "--config", config)
    assert line == (f"error: {config}: invalid KubeSchedulerConfiguration: "
                    "profiles[0]: at least one bind plugin is needed for profile with scheduler "
                    'name "default-scheduler"')


def test_a_malformed_plugin_flag_exits_2(cluster):
    line = bad_input_run(cluster, "--plugin", "NoEqualsSign")
    assert line == "error: --plugin takes NAME=MODULE[:FACTORY], got 'NoEqualsSign'"


def test_an_unknown_kind_is_skipped_with_one_warning(tmp_path):
    path = write(tmp_path / "in.yaml", make_node("n1"), make_pod("p"),
                 {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "d"}})
    out = simulate(path, "--output", "json")
    assert out.returncode == 0
    line = f"{path}: document 3: skipping unsupported kind 'ConfigMap'"
    assert out.stderr.decode().splitlines() == [f"Warning: {line}"]
    assert json.loads(out.stdout)["bindings"] == {"default/p": "n1"}
    assert json.loads(out.stdout)["warnings"] == [line]


def test_the_configuration_can_come_inside_the_input(tmp_path):
    path = write(tmp_path / "in.yaml", configuration(profile(name="custom")), make_node("n1"),
                 make_pod("a", schedulerName="custom"), make_pod("b"))
    result = json.loads(simulate(path, "--output", "json").stdout)
    assert result["bindings"] == {"default/a": "n1", "default/b": None}
    assert [c["profile"] for c in result["cycles"]] == ["custom"]
