"""/api/runs/{id}/export/?format=json|annotated|simulator: the contract's JSON, the cluster as
kube-scheduler-simulator exports it (its pods with its annotations)."""

import json

import pytest
import yaml

from playground.runs.models import Run
from playground.runs.services import run_create
from scheduler_core import simulator_annotations as annotations
from scheduler_core.features import feature_gates
from scheduler_core.simulate import simulate
from tests.api.conftest import FIXTURES, finish_run, import_fixture
from tests.helpers import new_run


def _get(api, run, fmt=None):
    response = api.get(f"/api/runs/{run.pk}/export/" + (f"?format={fmt}" if fmt else ""))
    assert response.status_code == 200
    return b"".join(response.streaming_content).decode()


@pytest.mark.parametrize("fixture", ["taints-affinity.yaml", "preemption-lesson.yaml",
                                     "gpu-cluster.yaml"])
def test_json_is_what_simulate_prints_for_the_same_input_and_seed(api, alice, fixture):
    run = run_create(cluster=import_fixture(alice, fixture), seed=11, owner=alice)
    finish_run(run)
    expected = json.dumps(simulate([str(FIXTURES / fixture)], seed=11).to_json(), indent=2)
    assert _get(api, run, "json") == expected + "\n"
    assert _get(api, run) == expected + "\n"


def test_json_of_a_run_without_cycles(api, alice, cluster):
    run = run_create(cluster=cluster, seed=0, owner=alice)
    body = json.loads(_get(api, run))
    assert body["schemaVersion"] == 1 and body["cycles"] == []
    assert len(body["bindings"]) == 20 and set(body["bindings"].values()) == {None}


def test_json_names_the_download(api, finished_run):
    response = api.get(f"/api/runs/{finished_run.pk}/export/")
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"] == f'attachment; filename="run-{finished_run.pk}.json"'


def test_annotated_pods_carry_the_simulators_annotations(api, finished_run):
    text = _get(api, finished_run, "annotated")
    listing = yaml.safe_load(text)
    assert (listing["apiVersion"], listing["kind"]) == ("v1", "List")
    pods = {p["metadata"]["name"]: p for p in listing["items"]}
    assert set(pods) == {"web-ssd", "trainer", "nowhere", "likes-b", "anywhere",
                         "tolerates-all"}
    likes_b = pods["likes-b"]
    assert likes_b["spec"]["nodeName"] == "node-b"
    notes = likes_b["metadata"]["annotations"]
    prefix = "kube-scheduler-simulator.sigs.k8s.io/"
    assert set(notes) == {prefix + k for k in (
        "prefilter-result", "prefilter-result-status", "filter-result", "postfilter-result",
        "prescore-result", "score-result", "finalscore-result", "reserve-result",
        "permit-result", "permit-result-timeout", "prebind-result", "bind-result",
        "selected-node", "result-history")}
    assert notes[prefix + "selected-node"] == "node-b"
    filters = json.loads(notes[prefix + "filter-result"])
    assert filters["node-b"]["NodeResourcesFit"] == "passed"
    # A PreFilter Skip is not a success: Go records its (empty) message.
    prefilter = json.loads(notes[prefix + "prefilter-result-status"])
    assert (prefilter["NodeAffinity"], prefilter["NodeResourcesFit"]) == ("", "success")
    assert filters["gpu-1"]["TaintToleration"] == "node(s) had untolerated taint {dedicated: gpu}"
    scores = json.loads(notes[prefix + "score-result"])
    final = json.loads(notes[prefix + "finalscore-result"])
    assert scores["node-b"]["NodeAffinity"] == "80"      # raw: the preference's weight
    assert final["node-b"]["NodeAffinity"] == "200"      # normalized 100 x weight 2
    assert json.loads(notes[prefix + "bind-result"]) == {"DefaultBinder": "success"}
    assert json.loads(notes[prefix + "reserve-result"]) == {"VolumeBinding": "success",
                                                          "DynamicResources": "success"}
    assert json.loads(notes[prefix + "postfilter-result"]) == {}


def test_an_unschedulable_pod_keeps_its_last_attempt(api, finished_run):
    listing = yaml.safe_load(_get(api, finished_run, "annotated"))
    nowhere = next(p for p in listing["items"] if p["metadata"]["name"] == "nowhere")
    notes = nowhere["metadata"]["annotations"]
    prefix = "kube-scheduler-simulator.sigs.k8s.io/"
    assert "nodeName" not in nowhere["spec"]
    assert notes[prefix + "selected-node"] == ""
    assert json.loads(notes[prefix + "postfilter-result"]) == {
        node: {} for node in ("node-a", "node-b", "node-c", "gpu-1", "node-d")}
    assert json.loads(notes[prefix + "score-result"]) == {}


def test_annotations_are_compact_sorted_json_as_go_writes_them():
    cycle = {"preFilter": [{"plugin": "B", "code": "Success", "reasons": []},
                           {"plugin": "A", "code": "Unschedulable", "reasons": ["x<y", "z"]}],
             "permit": [{"plugin": "Gang", "code": "Wait", "reasons": [], "timeout": 90.0}],
             "reserve": [{"plugin": "R", "code": "Success", "reasons": [], "node": "n1"}],
             "preemption": {"nominatedNode": "n1", "victims": ["default/v"]},
             "postFilter": [{"plugin": "DefaultPreemption", "code": "Success", "reasons": []}],
             "filter": {"n1": [{"plugin": "F", "code": "Unschedulable", "reasons": ["no"]}]}}
    notes = annotations.pod_annotations(cycle)
    assert notes[annotations.PREFILTER_STATUS] == '{"A":"x\\u003cy, z","B":"success"}'
    assert notes[annotations.PERMIT] == '{"Gang":"wait"}'
    assert notes[annotations.PERMIT_TIMEOUT] == '{"Gang":"1m30s"}'
    assert notes[annotations.POSTFILTER] == '{"n1":{"DefaultPreemption":"preemption victim"}}'
    assert notes[annotations.SELECTED_NODE] == "n1"


def test_a_preemption_is_annotated_on_the_nominated_node(api, alice):
    run = run_create(cluster=import_fixture(alice, "preemption-lesson.yaml"), seed=0,
                              owner=alice)
    finish_run(run)
    listing = yaml.safe_load(_get(api, run, "annotated"))
    urgent = next(p for p in listing["items"] if p["metadata"]["name"] == "urgent")
    notes = urgent["metadata"]["annotations"]
    assert notes[annotations.SELECTED_NODE] == "node-1"
    assert urgent["spec"]["nodeName"] == "node-1"


def test_an_unknown_format_is_400(api, finished_run):
    response = api.get(f"/api/runs/{finished_run.pk}/export/?format=xml")
    assert response.status_code == 400
    assert response.json()["format"] == ['Unsupported value: "xml": supported values: '
                                         '"annotated", "json", "simulator"']


def test_it_rejects_other_users_run(bob_api, finished_run):
    assert bob_api.get(f"/api/runs/{finished_run.pk}/export/").status_code == 404


def test_it_rejects_anonymous_users(anon, finished_run):
    assert anon.get(f"/api/runs/{finished_run.pk}/export/").status_code in (401, 403)


def test_a_shared_clusters_run_can_be_exported_by_others(api, bob, shared_cluster):
    run = run_create(cluster=shared_cluster, seed=0, owner=bob)
    finish_run(run)
    assert Run.objects.get(pk=run.pk).status == "finished"
    assert json.loads(_get(api, run))["bindings"]["default/web-ssd"] == "node-a"


WORKLOADS = """
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
---
apiVersion: v1
kind: ReplicationController
metadata: {name: web}
spec:
  replicas: 2
  selector: {app: web}
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
apiVersion: playground.k8s.local/v1
kind: Timeline
metadata: {name: open}
spec:
  steps:
  - {at: 5, action: RemoveSchedulingGate, pod: gated}
"""


@pytest.fixture
def workload_run(alice):
    run = new_run(alice, "workloads.yaml", text=WORKLOADS, seed=2)
    finish_run(run)
    return Run.objects.get(pk=run.pk)


def test_the_annotated_pods_include_the_controllers_and_no_gates_on_bound_pods(
        api, workload_run):
    listing = yaml.safe_load(_get(api, workload_run, "annotated"))
    pods = {p["metadata"]["name"]: p for p in listing["items"]}
    made = [n for n in pods if n.startswith("web-")]
    assert len(made) == 2
    assert all(pods[n]["metadata"]["ownerReferences"][0]["kind"] == "ReplicationController"
               for n in made)
    assert pods["gated"]["spec"]["nodeName"] == "n1"
    assert "schedulingGates" not in pods["gated"]["spec"]
    history = json.loads(pods["gated"]["metadata"]["annotations"][annotations.RESULT_HISTORY])
    assert len(history) == 1


def test_the_simulator_format_is_its_export_and_loads_back(api, workload_run, tmp_path):
    response = api.get(f"/api/runs/{workload_run.pk}/export/?format=simulator")
    assert response.status_code == 200
    assert response["Content-Disposition"].endswith(f'run-{workload_run.pk}.simulator.json"')
    body = json.loads(b"".join(response.streaming_content))
    assert set(body) == {"pods", "nodes", "pvs", "pvcs", "storageClasses", "priorityClasses",
                         "schedulerConfig", "namespaces"}
    assert len(body["pods"]) == 3
    path = tmp_path / "export.json"
    path.write_text(json.dumps(body))
    again = simulate([str(path)], seed=2)
    placed = {pi.key: pi.node_name for pi in again.scheduler.pods}
    assert all(node == "n1" for node in placed.values()) and len(placed) == 3


GATES = "OpportunisticBatching=false,StorageCapacityScoring=false"


def test_a_run_with_gates_exports_them_and_an_import_of_its_export_warns_of_them(
        api, alice):
    fixture = "taints-affinity.yaml"
    run = run_create(cluster=import_fixture(alice, fixture), seed=11, owner=alice,
                     feature_gates=GATES)
    finish_run(run)
    expected = simulate([str(FIXTURES / fixture)], seed=11,
                        features=feature_gates("1.37", GATES)).to_json()
    assert expected["featureGates"] == GATES
    assert _get(api, run, "json") == json.dumps(expected, indent=2) + "\n"
    body = json.loads(_get(api, run, "simulator"))
    assert body["featureGates"] == GATES
    # A cluster keeps no gates: its import says so, naming the file and the field.
    response = api.post("/api/clusters/import/", {"name": "again", "files": [
        {"name": "export.json", "text": json.dumps(body)}]}, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["warnings"] == [
        f'export.json: document 1: featureGates: the exported run set --feature-gates "{GATES}" '
        "and this run sets none; feature gates are kube-scheduler's flags, not objects, so the "
        f'file\'s are not followed (run with --feature-gates "{GATES}" to schedule as it did)']
