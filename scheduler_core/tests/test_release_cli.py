"""`simulate --release` and `--feature-gates` as the contract states them, and the warnings
for input the chosen release does not honour (file, object, field)."""
import json

import pytest

from scheduler_core.features import feature_gates
from scheduler_core.testing import make_node, make_pod

from .test_cli import simulate, write


def declared(node: dict, *features: str) -> dict:
    node.setdefault("status", {})["declaredFeatures"] = list(features)
    return node


@pytest.fixture
def cluster(tmp_path):
    return write(tmp_path / "in.yaml", declared(make_node("n1"), "GuaranteedQoSPodCPUResize"),
                 make_pod("p"))


@pytest.mark.parametrize("release", ["1.34", "1.35", "1.36", "1.37"])
def test_the_json_names_the_release_the_run_followed(cluster, release):
    out = simulate(cluster, "--output", "json", "--release", release)
    assert out.returncode == 0, out.stderr.decode()
    assert json.loads(out.stdout)["release"] == release


def test_without_release_the_run_follows_the_newest(cluster):
    assert json.loads(simulate(cluster, "--output", "json").stdout)["release"] == "1.37"


@pytest.mark.parametrize("value", ["1.33", "x"])
def test_another_release_exits_2_naming_the_accepted_ones(cluster, value):
    out = simulate(cluster, "--release", value)
    assert out.returncode == 2 and out.stdout == b""
    assert out.stderr.decode() == (f'error: --release: "{value}" is not a release the engine '
                                   f'follows; accepted: 1.34, 1.35, 1.36, 1.37\n')


@pytest.mark.parametrize("release,gates,message", [
    ("1.37", "NoSuchGate=true", "unrecognized feature gate: NoSuchGate"),
    ("1.34", "NodeDeclaredFeatures=true", "unrecognized feature gate: NodeDeclaredFeatures"),
    ("1.37", "NodeDeclaredFeatures=false",
     "cannot set feature gate NodeDeclaredFeatures to false, feature is locked to true"),
])
def test_a_refused_gate_exits_2_with_kube_schedulers_words(cluster, release, gates, message):
    out = simulate(cluster, "--release", release, "--feature-gates", gates)
    assert out.returncode == 2 and out.stdout == b""
    assert out.stderr.decode() == (f'error: invalid argument "{gates}" for "--feature-gates" '
                                   f'flag: {message}\n')


@pytest.mark.parametrize("release,gates,warned", [
    ("1.34", "", "are not in kube-scheduler v1.34 (feature gate NodeDeclaredFeatures came "
                 "later); ignored"),
    ("1.35", "", "are ignored: the NodeDeclaredFeatures feature gate is off in this run (v1.35; "
                 "--feature-gates NodeDeclaredFeatures=true turns it on)"),
    ("1.35", "NodeDeclaredFeatures=true", None),
    ("1.37", "", None),
])
def test_declared_features_a_release_lacks_are_warned_of(cluster, release, gates, warned):
    out = simulate(cluster, "--output", "json", "--release", release, "--feature-gates", gates)
    result = json.loads(out.stdout)
    want = ([f"{cluster}: document 1: Node n1: field status.declaredFeatures: node declared "
             f"features {warned}"] if warned else [])
    want += list(feature_gates(release, gates).notes)
    assert result["warnings"] == want
    assert out.stderr.decode().splitlines() == [f"Warning: {line}" for line in want]


def test_pod_level_resources_with_the_gate_off_are_warned_of_and_ignored(tmp_path):
    pod = make_pod("p", cpu="500m")
    pod["spec"]["resources"] = {"requests": {"cpu": "1"}}
    path = write(tmp_path / "in.yaml", make_node("n1"), pod)
    out = simulate(path, "--output", "json", "--feature-gates",
                   "PodLevelResources=false,InPlacePodLevelResourcesVerticalScaling=false")
    assert json.loads(out.stdout)["warnings"][0] == (
        f"{path}: document 2: Pod default/p: field spec.resources: pod-level resources are "
        f"ignored: the PodLevelResources feature gate is off in this run (v1.37; "
        f"--feature-gates PodLevelResources=true turns it on)")


def test_a_comparison_toleration_without_its_gate_is_refused_as_the_api_server_does(tmp_path):
    """TaintTolerationComparisonOperators is off by default: Gt and Lt are not valid operators."""
    pod = make_pod("p")
    pod["spec"]["tolerations"] = [{"key": "gpu-mem", "operator": "Gt", "value": "8",
                                   "effect": "NoSchedule"}]
    path = write(tmp_path / "in.yaml", make_node("n1"), pod)
    out = simulate(path, "--output", "json")
    assert out.returncode == 2 and out.stdout == b""
    assert 'spec.tolerations[0].operator: Unsupported value: "Gt"' in out.stderr.decode()


def declared_features_config(tmp_path):
    from scheduler_core.testing.fakes import configuration
    return write(tmp_path / "ksc.yaml", configuration({
        "schedulerName": "default-scheduler",
        "plugins": {"multiPoint": {"enabled": [{"name": "NodeDeclaredFeatures"}]}}}))


def test_v1_34_does_not_know_the_node_declared_features_plugin(cluster, tmp_path):
    """v1.34's NewInTreeRegistry has no NodeDeclaredFeatures: NewFramework refuses it."""
    config = declared_features_config(tmp_path)
    out = simulate(cluster, "--config", config, "--release", "1.34")
    assert out.returncode == 2 and out.stdout == b""
    assert out.stderr.decode().endswith(
        'profiles[0]: PreFilterPlugin "NodeDeclaredFeatures" does not exist\n')


def test_v1_35_builds_the_plugin_disabled_with_its_gate_off_and_says_so(cluster, tmp_path):
    config = declared_features_config(tmp_path)
    out = simulate(cluster, "--config", config, "--release", "1.35", "--output", "json")
    assert out.returncode == 0, out.stderr.decode()
    assert json.loads(out.stdout)["warnings"][-1] == (
        "profile plugin NodeDeclaredFeatures: its feature gate is off in v1.35, so "
        "kube-scheduler builds it disabled and it does nothing (--feature-gates "
        "NodeDeclaredFeatures=true turns it on)")
