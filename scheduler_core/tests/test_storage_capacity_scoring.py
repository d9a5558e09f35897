"""VolumeBinding's Score through the real scheduler, per release: the StorageCapacityScoring
gate (pkg/features/kube_features.go: alpha and off from v1.33, beta and on in v1.37) builds the
scorer in New (volumebinding/volume_binding.go) with the shape SetDefaults_VolumeBindingArgs
gives (apis/config/v1/defaults.go: utilization 0 scores 10, 100 scores 0), so from v1.37 a pod
whose claim is provisioned dynamically prefers the node with the most CSIStorageCapacity left;
ValidateVolumeBindingArgsWithOptions refuses a shape while the gate is off."""
import pytest
import yaml

from scheduler_core.errors import ConfigError
from scheduler_core.features import feature_gates
from scheduler_core.simulate import simulate
from scheduler_core.testing import make_node, make_pod

HOSTNAME = "kubernetes.io/hostname"
DRIVER = "csi.example.com"


def capacity(name: str, node: str, size: str) -> dict:
    return {"apiVersion": "storage.k8s.io/v1", "kind": "CSIStorageCapacity",
            "metadata": {"name": name, "namespace": "kube-system"},
            "storageClassName": "csi-sc", "capacity": size,
            "nodeTopology": {"matchLabels": {HOSTNAME: node}}}


def cluster() -> list[dict]:
    """node-a is busier (the resource scores prefer node-b) but has ten times the storage."""
    nodes = [make_node(n, cpu="8", memory="16Gi", labels={HOSTNAME: n})
             for n in ("node-a", "node-b")]
    busy = make_pod("busy", cpu="1", memory="1Gi", node_name="node-a")
    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
             "metadata": {"name": "data", "namespace": "default"},
             "spec": {"storageClassName": "csi-sc", "accessModes": ["ReadWriteOnce"],
                      "resources": {"requests": {"storage": "50Gi"}}}}
    app = make_pod("app", cpu="100m", memory="128Mi",
                   volumes=[{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}])
    return nodes + [
        busy,
        {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
         "metadata": {"name": "csi-sc"}, "provisioner": DRIVER,
         "volumeBindingMode": "WaitForFirstConsumer"},
        {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": DRIVER},
         "spec": {"storageCapacity": True}},
        capacity("cap-a", "node-a", "1000Gi"), capacity("cap-b", "node-b", "100Gi"),
        claim, app]


def run(tmp_path, release: str, gates: str = "", shape=None):
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all(cluster()), encoding="utf-8")
    config_file = None
    if shape is not None:
        config = {"apiVersion": "kubescheduler.config.k8s.io/v1",
                  "kind": "KubeSchedulerConfiguration",
                  "profiles": [{"schedulerName": "default-scheduler", "pluginConfig": [
                      {"name": "VolumeBinding", "args": {"shape": shape}}]}]}
        config_file = tmp_path / "config.yaml"
        config_file.write_text(yaml.safe_dump(config), encoding="utf-8")
        config_file = str(config_file)
    result = simulate([str(path)], seed=1, config_file=config_file,
                      features=feature_gates(release, gates))
    return next(c for c in result.trace.to_list() if c["pod"] == "default/app")


@pytest.mark.parametrize("release", ["1.34", "1.35", "1.36"])
def test_before_v1_37_volume_binding_does_not_score_and_resources_decide(tmp_path, release):
    cycle = run(tmp_path, release)
    assert "VolumeBinding" not in cycle["score"]
    assert {"plugin": "VolumeBinding", "code": "Skip", "reasons": []} in cycle["preScore"]
    assert cycle["node"] == "node-b"


def test_in_v1_37_the_default_shape_prefers_the_node_with_the_most_storage_left(tmp_path):
    cycle = run(tmp_path, "1.37")
    # 50Gi of 1000Gi is 5% used (score 95); of 100Gi, 50% (score 50).
    assert cycle["score"]["VolumeBinding"] == {
        "node-a": {"raw": 95, "normalized": 95, "weighted": 95},
        "node-b": {"raw": 50, "normalized": 50, "weighted": 50}}
    assert cycle["node"] == "node-a"


def test_the_gate_turned_on_in_v1_36_scores_as_v1_37_does(tmp_path):
    cycle = run(tmp_path, "1.36", "StorageCapacityScoring=true")
    assert cycle["score"]["VolumeBinding"]["node-a"]["raw"] == 95
    assert cycle["node"] == "node-a"


def test_the_gate_turned_off_in_v1_37_leaves_the_score_out(tmp_path):
    cycle = run(tmp_path, "1.37", "StorageCapacityScoring=false")
    assert "VolumeBinding" not in cycle["score"]
    assert cycle["node"] == "node-b"


def test_a_configured_shape_is_honoured_in_v1_37(tmp_path):
    fullest = [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]
    cycle = run(tmp_path, "1.37", shape=fullest)
    assert cycle["score"]["VolumeBinding"]["node-a"]["raw"] == 5
    assert cycle["score"]["VolumeBinding"]["node-b"]["raw"] == 50
    assert cycle["node"] == "node-b"


def test_a_configured_shape_is_refused_while_the_gate_is_off(tmp_path):
    with pytest.raises(ConfigError) as err:
        run(tmp_path, "1.36", shape=[{"utilization": 0, "score": 10}])
    assert ("unexpected field `shape`, remove it or turn on the feature gate "
            "StorageCapacityScoring") in str(err.value)
