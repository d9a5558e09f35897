"""kube-scheduler-simulator in and out: its documented export and import samples
(tests/public_files/kube-scheduler-simulator, see SOURCES.md) load; `--output simulator`
writes its /api/v1/export shape with every annotation it writes; export, import, same
bindings."""
from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from scheduler_core import simulator_annotations as notes
from scheduler_core.cli import main
from scheduler_core.extenders.sample import ExtenderServer, Rules
from scheduler_core.features import feature_gates
from scheduler_core.loader import load_files
from scheduler_core.simulate import simulate
from scheduler_core.simulator_snap import export_resources

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "tests" / "public_files" / "kube-scheduler-simulator"
FIXTURES = REPO / "fixtures"


# --- in ---------------------------------------------------------------------------------------


SYSTEM = ["system-cluster-critical", "system-node-critical"]


@pytest.mark.parametrize("name, pvs, pvcs, classes", [
    ("export-case1.json", [], [], SYSTEM),
    ("export-case2.json", ["pv1", "pv2"], ["default/pvc1"], SYSTEM),
    ("import-case1.json", ["pv1"], ["default/pvc1"], []),
])
def test_the_documented_samples_load_as_their_objects_and_configuration(name, pvs, pvcs,
                                                                        classes):
    cluster = load_files([str(SAMPLES / name)])
    assert sorted(cluster.objects.pvs) == pvs and sorted(cluster.objects.pvcs) == pvcs
    assert sorted(cluster.objects.priority_classes) == classes
    assert (cluster.config["apiVersion"], cluster.config["kind"]) == (
        "kubescheduler.config.k8s.io/v1", "KubeSchedulerConfiguration")
    assert "healthzBindAddress" not in cluster.config
    assert [line.split(": ", 3)[-1] for line in cluster.warnings] == [
        f"field {f}: not a field of kubescheduler.config.k8s.io/v1; left out, as "
        "kube-scheduler-simulator's import leaves it out"
        for f in ("healthzBindAddress", "metricsBindAddress")]


def test_the_bound_claim_of_the_sample_stays_bound_to_its_volume():
    cluster = load_files([str(SAMPLES / "export-case2.json")])
    assert cluster.objects.pvcs["default/pvc1"]["spec"]["volumeName"] == "pv1"
    assert cluster.objects.pvs["pv2"]["status"]["phase"] == "Available"


@pytest.mark.parametrize("name", ["export-case1.json", "export-case2.json",
                                  "import-case1.json"])
def test_the_documented_samples_run_with_the_removed_plugins_left_out(name, capsys):
    path = str(SAMPLES / name)
    assert main(["simulate", path, "--drop-removed-plugins", "-o", "json"]) == 0
    out, err = capsys.readouterr()
    warnings = json.loads(out)["warnings"]
    assert [w for w in warnings if "was removed in kube-scheduler v1.32" in w] and \
        len([w for w in warnings if "Limits was removed" in w]) == 3
    assert all(f"Warning: {w}" in err for w in warnings)


def test_the_samples_configuration_names_the_removed_volume_limit_plugins(capsys):
    # Their profile lists EBSLimits, GCEPDLimits and AzureDiskLimits (removed in v1.32).
    assert main(["simulate", str(SAMPLES / "export-case1.json")]) == 2
    err = capsys.readouterr().err
    assert all(f'"{name}"' in err for name in ("EBSLimits", "GCEPDLimits", "AzureDiskLimits"))


# --- out --------------------------------------------------------------------------------------

CLUSTER = """
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx, resources: {requests: {cpu: 500m}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: gated}
spec:
  schedulingGates: [{name: example.com/wait}]
  containers: [{name: c, image: nginx}]
---
apiVersion: v1
kind: Pod
metadata: {name: huge}
spec: {containers: [{name: c, image: nginx, resources: {requests: {cpu: "8"}}}]}
---
apiVersion: playground.k8s.local/v1
kind: Timeline
metadata: {name: open-the-gate}
spec:
  steps:
  - {at: 10, action: RemoveSchedulingGate, pod: gated}
"""


@pytest.fixture
def exported(tmp_path):
    source = tmp_path / "cluster.yaml"
    source.write_text(CLUSTER)
    result = simulate([str(source)], seed=3)
    return result, export_resources(result.scheduler, result.to_json()["cycles"])


def _pods(resources) -> dict[str, dict]:
    return {p["metadata"]["name"]: p for p in resources["pods"]}


def test_the_export_has_the_simulators_lists_without_kinds(exported):
    _, resources = exported
    assert list(resources) == ["pods", "nodes", "pvs", "pvcs", "storageClasses",
                               "priorityClasses", "schedulerConfig", "namespaces"]
    assert all("kind" not in item and "apiVersion" not in item
               for key in ("pods", "nodes") for item in resources[key])
    assert resources["namespaces"] == [{"metadata": {"name": "default"}}]


def test_every_pod_is_exported_with_the_ones_the_controllers_made(exported):
    result, resources = exported
    pods = _pods(resources)
    web = [n for n in pods if n.startswith("web-")]
    assert len(web) == 2 and {"gated", "huge"} <= set(pods)
    for name in web:
        assert pods[name]["metadata"]["ownerReferences"][0]["kind"] == "ReplicaSet"
        assert pods[name]["spec"]["nodeName"] == result.scheduler.bindings[f"default/{name}"]


def test_a_bound_pod_keeps_no_scheduling_gates(exported):
    gated = _pods(exported[1])["gated"]
    assert gated["spec"]["nodeName"] == "n1"
    assert "schedulingGates" not in gated["spec"]
    assert gated["status"]["conditions"] == [{"type": "PodScheduled", "status": "True"}]


def test_a_pending_pod_has_the_unschedulable_condition_and_its_last_attempt(exported):
    huge = _pods(exported[1])["huge"]
    assert "nodeName" not in huge["spec"]
    (condition,) = huge["status"]["conditions"]
    assert condition["reason"] == "Unschedulable" and condition["status"] == "False"
    assert condition["message"].startswith("0/1 nodes are available: 1 Insufficient cpu.")
    annotations = huge["metadata"]["annotations"]
    filters = json.loads(annotations[notes.FILTER])
    assert filters["n1"]["NodeResourcesFit"] == "Insufficient cpu"
    assert annotations[notes.SELECTED_NODE] == ""


def test_the_result_history_lists_every_attempt_with_all_its_annotations(exported):
    result, resources = exported
    for pod in resources["pods"]:
        key = f"default/{pod['metadata']['name']}"
        attempts = [c for c in result.to_json()["cycles"] if c["pod"] == key]
        annotations = pod["metadata"]["annotations"]
        history = json.loads(annotations[notes.RESULT_HISTORY])
        assert len(history) == len(attempts) >= 1
        assert history[-1] == {k: v for k, v in annotations.items()
                               if k.startswith(notes.PREFIX) and k != notes.RESULT_HISTORY}


def test_the_history_drops_the_oldest_attempts_beyond_the_annotation_limit():
    big = {notes.FILTER: "x" * 100_000}
    text = notes.result_history([{"n": "first"}, big, big, big])
    assert json.loads(text) == [big, big]


def test_the_cli_writes_the_export(tmp_path, capsys):
    source = tmp_path / "cluster.yaml"
    source.write_text(CLUSTER)
    assert main(["simulate", str(source), "--output", "simulator", "--seed", "3"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["pods"]) == 4 and out["nodes"][0]["metadata"]["name"] == "n1"


# --- extenders --------------------------------------------------------------------------------


@pytest.fixture
def extender():
    server = ExtenderServer(Rules(require_label="extender.example.com/approved",
                                  prefer_label="extender.example.com/fast"), port=0, quiet=True)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_pod_an_extender_saw_carries_its_four_answers(tmp_path, extender):
    text = (FIXTURES / "extender-lesson.yaml").read_text().replace(
        "http://127.0.0.1:8888", extender)
    source = tmp_path / "lesson.yaml"
    source.write_text(text)
    result = simulate([str(source)], seed=1)
    resources = export_resources(result.scheduler, result.to_json()["cycles"])
    web1 = _pods(resources)["web-1"]["metadata"]["annotations"]
    url = f"{extender}/scheduler"
    filters = json.loads(web1[notes.EXTENDER_FILTER])[url]
    assert filters["NodeNames"] is None      # nodeCacheCapable: false, the answer is a NodeList
    assert sorted(i["metadata"]["name"] for i in filters["Nodes"]["items"]) == ["node-1",
                                                                               "node-2"]
    assert filters["FailedNodes"] == {
        n: "node(s) didn't have label extender.example.com/approved" for n in ("node-3",
                                                                               "node-4")}
    assert filters["FailedAndUnresolvableNodes"] == {} and filters["Error"] == ""
    scores = {h["Host"]: h["Score"] for h in json.loads(web1[notes.EXTENDER_PRIORITIZE])[url]}
    assert scores["node-2"] == 10 and scores["node-1"] == 0
    assert json.loads(web1[notes.EXTENDER_PREEMPT]) == {}
    assert json.loads(web1[notes.EXTENDER_BIND]) == {}


def test_a_pod_no_extender_saw_has_no_extender_annotations(exported):
    for pod in exported[1]["pods"]:
        assert notes.EXTENDER_FILTER not in pod["metadata"].get("annotations", {})


# --- round trip -------------------------------------------------------------------------------


def test_export_then_import_gives_the_same_bindings(exported, tmp_path):
    result, resources = exported
    path = tmp_path / "export.json"
    path.write_text(json.dumps(resources))
    again = simulate([str(path)], seed=3)
    placed = {pi.key: pi.node_name for pi in again.scheduler.pods}
    bound = {k: v for k, v in result.scheduler.bindings.items() if v}
    assert {k: placed[k] for k in bound} == bound
    # The pod that could not be placed is pending again, for the same reason.
    assert again.scheduler.bindings == {"default/huge": None}
    assert again.to_json()["cycles"][-1]["message"] == \
        result.to_json()["cycles"][-1]["message"]


def test_without_a_configuration_the_export_names_the_default_profile(exported):
    config = exported[1]["schedulerConfig"]
    assert config["profiles"] == [{"schedulerName": "default-scheduler"}]


# --- feature gates ----------------------------------------------------------------------------

GATES = "OpportunisticBatching=false,StorageCapacityScoring=false"


def test_a_run_with_gates_exports_them_and_the_contract_json_carries_them(tmp_path, capsys):
    source = tmp_path / "cluster.yaml"
    source.write_text(CLUSTER)
    assert main(["simulate", str(source), "--seed", "3", "--output", "simulator",
                 "--feature-gates", GATES]) == 0
    assert json.loads(capsys.readouterr().out)["featureGates"] == GATES
    assert main(["simulate", str(source), "--seed", "3", "--output", "json",
                 "--feature-gates", GATES]) == 0
    head = json.loads(capsys.readouterr().out)
    assert (head["release"], head["featureGates"]) == ("1.37", GATES)
    assert list(head)[:3] == ["schemaVersion", "release", "featureGates"]


def test_a_run_without_gates_has_no_gates_key(exported, tmp_path, capsys):
    assert "featureGates" not in exported[1]
    assert "featureGates" not in exported[0].to_json()


@pytest.mark.parametrize("gates, warned", [
    (GATES, False),
    ("StorageCapacityScoring=false,OpportunisticBatching=False", False),   # the same gates
    ("", True),
    ("OpportunisticBatching=false", True),
])
def test_importing_an_export_made_under_other_gates_warns_naming_the_field(
        tmp_path, gates, warned):
    source = tmp_path / "cluster.yaml"
    source.write_text(CLUSTER)
    result = simulate([str(source)], seed=3, features=feature_gates("1.37", GATES))
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export_resources(result.scheduler, result.to_json()["cycles"])))
    again = simulate([str(path)], seed=3, features=feature_gates("1.37", gates))
    lines = [w for w in again.scheduler.warnings.to_list() if "featureGates" in w]
    if not warned:
        assert lines == []
        return
    ours = f'"{gates}"' if gates else "none"
    assert lines == [
        f'{path}: document 1: featureGates: the exported run set --feature-gates "{GATES}" and '
        f"this run sets {ours}; feature gates are kube-scheduler's flags, not objects, so the "
        f'file\'s are not followed (run with --feature-gates "{GATES}" to schedule as it did)']
