"""/api/clusters/import/ (new cluster) and /api/clusters/{id}/import/ (replace contents)."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from playground.clusters.models import Cluster, ExtraObject, Node, Pod, PriorityClass
from playground.profiles.models import SchedulerProfile
from tests.api.conftest import FIXTURES, fixture_text

NODE = """apiVersion: v1
kind: Node
metadata:
  name: {name}
status:
  allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}
"""
POD = """apiVersion: v1
kind: Pod
metadata:
  name: {name}
spec:
  containers:
  - name: c
    image: x
    resources:
      requests: {{cpu: {cpu}, memory: 1Gi}}
"""
CONFIG = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      disabled:
      - name: ImageLocality
"""


def _counts():
    return (Cluster.objects.count(), Node.objects.count(), Pod.objects.count(),
            SchedulerProfile.objects.count())


def _post(api, files, name="imported", **extra):
    body = {"name": name, "files": [{"name": n, "text": t} for n, t in files], **extra}
    return api.post("/api/clusters/import/", body, format="json")


def test_it_imports_json_text_files(api):
    response = _post(api, [("gpu.yaml", fixture_text("gpu-cluster.yaml"))], shared=True)
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["cluster"]["node_count"] == 15 and body["cluster"]["pod_count"] == 20
    assert body["cluster"]["shared"] is True
    assert body["warnings"] == []
    # The fixture's `# description:` header becomes the description when none is given.
    assert body["cluster"]["description"].startswith("9 CPU nodes")


def test_it_imports_multipart_files(api):
    upload = SimpleUploadedFile("taints.yaml", fixture_text("taints-affinity.yaml").encode())
    config = SimpleUploadedFile("config.yaml", CONFIG.encode())
    response = api.post("/api/clusters/import/", {"name": "mp", "files": [upload, config],
                                                  "description": "from files"},
                        format="multipart")
    assert response.status_code == 201, response.json()
    cluster = Cluster.objects.get(name="mp")
    assert cluster.description == "from files"
    assert cluster.node_set.count() == 5
    assert cluster.profile.config["profiles"][0]["plugins"]["score"]["disabled"] == [
        {"name": "ImageLocality"}]


def test_it_reads_kubectl_list_kinds_and_json(api):
    node_list = {"apiVersion": "v1", "kind": "NodeList", "items": [
        {"metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "2"}}},
        {"metadata": {"name": "n2"}, "status": {"allocatable": {"cpu": "2"}}}]}
    generic = {"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "team"},
         "spec": {"containers": [{"name": "c"}]}},
        {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": "n1"},
         "spec": {"drivers": []}}]}
    response = _post(api, [("nodes.json", json.dumps(node_list)),
                           ("mixed.json", json.dumps(generic))])
    assert response.status_code == 201, response.json()
    cluster = Cluster.objects.get(name="imported")
    assert [n.manifest["kind"] for n in cluster.node_set.all()] == ["Node", "Node"]
    pod = cluster.pod_set.get()
    assert (pod.namespace, pod.name) == ("team", "p")
    csinode = ExtraObject.objects.get(cluster=cluster)
    assert (csinode.kind, csinode.namespace, csinode.name) == ("CSINode", "", "n1")


def test_it_warns_about_and_skips_unsupported_kinds(api):
    text = NODE.format(name="n1") + "---\napiVersion: v1\nkind: ConfigMap\n" \
        "metadata: {name: d}\n"
    response = _post(api, [("c.yaml", text)])
    assert response.status_code == 201
    assert "ConfigMap" in response.json()["warnings"][0]


def test_a_deployment_is_kept_and_its_timeline_becomes_the_clusters(api):
    deployment = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n"
                  "spec:\n  replicas: 2\n  selector: {matchLabels: {app: d}}\n"
                  "  template:\n    metadata: {labels: {app: d}}\n"
                  "    spec: {containers: [{name: c, image: i}]}\n")
    timeline = ("apiVersion: playground.k8s.local/v1\nkind: Timeline\nmetadata: {name: t}\n"
                "spec: {steps: [{at: 5, action: Scale, kind: Deployment, name: d, "
                "replicas: 3}]}\n")
    text = NODE.format(name="n1") + "---\n" + deployment + "---\n" + timeline
    response = _post(api, [("c.yaml", text)])
    assert response.status_code == 201, response.json()
    assert response.json()["warnings"] == []
    cluster = response.json()["cluster"]["id"]
    kinds = [o["kind"] for o in api.get(f"/api/clusters/{cluster}/objects/").json()["results"]]
    assert kinds == ["Deployment"]
    timelines = api.get(f"/api/clusters/{cluster}/timelines/").json()
    assert [t["name"] for t in timelines] == ["t"]


@pytest.mark.parametrize(("spec", "expected"), [
    ("5", "field spec: must be a mapping"),
    ("{steps: [{at: 1, action: [Cordon], node: n1}]}", "field spec.steps[0].action"),
])
def test_a_wrongly_typed_timeline_is_a_400_and_nothing_is_stored(api, spec, expected):
    timeline = ("apiVersion: playground.k8s.local/v1\nkind: Timeline\nmetadata: {name: t}\n"
                f"spec: {spec}\n")
    response = _post(api, [("c.yaml", NODE.format(name="n1") + "---\n" + timeline)])
    assert response.status_code == 400
    assert expected in response.json()["files"][0]
    assert not Cluster.objects.exists()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("kind: [unclosed", "bad.yaml: cannot parse"),
        (POD.format(name="p", cpu="12x"),
         "bad.yaml: document 1: Pod default/p: field spec.containers[0].resources.requests.cpu"),
        ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {}\n",
         "bad.yaml: document 1: Pod default/p: field spec.containers: Required value"),
        ("apiVersion: v1\nkind: Node\nmetadata: {labels: {}}\n", "field metadata.name"),
        (NODE.format(name="n") + "---\n" + NODE.format(name="n"), "duplicate Node 'n'"),
        ("- 1\n- 2\n", "a document must be a mapping"),
        (CONFIG.replace("ImageLocality", "NoSuchPlugin").replace("disabled", "enabled"),
         "NoSuchPlugin"),
    ],
    ids=["unparsable YAML", "bad quantity", "pod without containers", "nameless node",
         "duplicate node", "not a mapping", "unknown plugin in the configuration"],
)
def test_a_malformed_upload_leaves_the_database_unchanged(api, cluster, text, expected):
    before = _counts()
    good = NODE.format(name="fine")
    response = _post(api, [("good.yaml", good), ("bad.yaml", text)])
    assert response.status_code == 400
    message = response.json()["files"][0]
    assert expected in message
    assert _counts() == before


def test_an_error_names_the_document_inside_a_list(api):
    text = json.dumps({"kind": "PodList", "items": [
        {"metadata": {"name": "ok"}, "spec": {"containers": [{"name": "c"}]}},
        {"metadata": {"name": "bad"}, "spec": {"containers": [
            {"name": "c", "resources": {"limits": {"memory": "lots"}}}]}}]})
    response = _post(api, [("pods.json", text)])
    assert response.status_code == 400
    assert response.json()["files"][0].startswith(
        "pods.json: document 1 item 1: Pod default/bad: "
        "field spec.containers[0].resources.limits.memory: ")


def test_it_requires_a_name_and_files(api):
    assert "name" in api.post("/api/clusters/import/", {"files": [{"name": "a", "text": ""}]},
                              format="json").json()
    assert "files" in _post(api, []).json()


def test_it_rejects_a_name_already_taken(api, cluster):
    response = _post(api, [("n.yaml", NODE.format(name="n"))], name="gpu")
    assert response.status_code == 400
    assert "name" in response.json()


def test_it_rejects_a_file_that_is_not_utf8(api):
    upload = SimpleUploadedFile("bin.yaml", b"\xff\xfe\x00bad")
    response = api.post("/api/clusters/import/", {"name": "x", "files": [upload]},
                        format="multipart")
    assert response.status_code == 400
    assert "UTF-8" in response.json()["files"][0]


def test_an_upload_over_the_size_limit_is_413(api, settings):
    settings.PLAYGROUND_MAX_UPLOAD_BYTES = 1000
    before = _counts()
    text = "\n".join(["# padding"] * 200) + "\n" + NODE.format(name="n")
    response = _post(api, [("big.yaml", text)])
    assert response.status_code == 413
    assert "PLAYGROUND_MAX_UPLOAD_BYTES" in response.json()["files"][0]
    assert _counts() == before


def test_a_request_body_over_the_size_limit_is_413_before_parsing(api, settings):
    settings.PLAYGROUND_MAX_UPLOAD_BYTES = 10
    text = "x" * (2 << 20)
    response = _post(api, [("big.yaml", text)])
    assert response.status_code == 413


def test_too_many_nodes_or_pods_is_413(api, settings):
    settings.PLAYGROUND_MAX_NODES = 2
    settings.PLAYGROUND_MAX_PODS = 1
    nodes = "---\n".join(NODE.format(name=f"n{i}") for i in range(3))
    response = _post(api, [("nodes.yaml", nodes)])
    assert response.status_code == 413
    assert "PLAYGROUND_MAX_NODES" in response.json()["files"][0]
    pods = "---\n".join(POD.format(name=f"p{i}", cpu=1) for i in range(2))
    response = _post(api, [("pods.yaml", pods)])
    assert response.status_code == 413
    assert "PLAYGROUND_MAX_PODS" in response.json()["files"][0]
    assert Cluster.objects.count() == 0


def test_it_computes_pod_priority_from_classes_in_the_same_import(api):
    text = fixture_text("preemption-lesson.yaml")
    assert _post(api, [("p.yaml", text)]).status_code == 201
    urgent = Pod.objects.get(name="urgent")
    assert urgent.priority == PriorityClass.objects.get(name="high").value == 1000


def test_it_rejects_anonymous_users(anon):
    assert _post(anon, [("n.yaml", NODE.format(name="n"))]).status_code in (401, 403)


def test_it_replaces_the_contents_of_an_existing_cluster(api, cluster):
    response = api.post(f"/api/clusters/{cluster.pk}/import/",
                        {"files": [{"name": "n.yaml", "text": NODE.format(name="only")},
                                   {"name": "c.yaml", "text": CONFIG}]}, format="json")
    assert response.status_code == 200, response.json()
    assert list(cluster.node_set.values_list("name", flat=True)) == ["only"]
    assert cluster.pod_set.count() == 0
    cluster.profile.refresh_from_db()
    assert "profiles" in cluster.profile.config


def test_a_bad_replacement_keeps_the_old_contents(api, cluster):
    response = api.post(f"/api/clusters/{cluster.pk}/import/",
                        {"files": [{"name": "bad.yaml", "text": POD.format(name="p", cpu="x")}]},
                        format="json")
    assert response.status_code == 400
    assert cluster.node_set.count() == 15


def test_it_refuses_to_replace_a_shared_cluster_of_another_user(api, shared_cluster):
    response = api.post(f"/api/clusters/{shared_cluster.pk}/import/",
                        {"files": [{"name": "n.yaml", "text": NODE.format(name="x")}]},
                        format="json")
    assert response.status_code == 403


def test_it_rejects_replacing_other_users_cluster(api, bobs_cluster):
    response = api.post(f"/api/clusters/{bobs_cluster.pk}/import/",
                        {"files": [{"name": "n.yaml", "text": NODE.format(name="x")}]},
                        format="json")
    assert response.status_code == 404


def test_a_name_that_is_not_a_string_is_refused(api):
    text = "kind: Namespace\nmetadata: {name: 1}\n---\nkind: Namespace\nmetadata: {name: '1'}\n"
    before = _counts()
    response = _post(api, [("ns.yaml", text)])
    assert response.status_code == 400
    assert response.json()["files"][0] == (
        'ns.yaml: document 1: Namespace: field metadata.name: Invalid value: "integer": '
        'metadata.name in body must be of type string: "integer"')
    assert _counts() == before


def test_dynamic_resources_objects_are_stored_unchanged_with_their_scope(api):
    # The GPU DRA lesson: DeviceClass and ResourceSlice are cluster-scoped; claims and
    # templates keep their namespace; the pods are stored as written (no generated claim
    # names in their status: the resourceclaim controller's work happens in the run).
    response = _post(api, [("dra.yaml", fixture_text("gpu-dra-lesson.yaml"))])
    assert response.status_code == 201, response.json()
    cluster = Cluster.objects.get(name="imported")
    stored = sorted((o.kind, o.namespace, o.name) for o in ExtraObject.objects.filter(
        cluster=cluster))
    assert stored == [
        ("DeviceClass", "", "gpu.example.com"),
        ("ResourceClaim", "default", "shared-a100"),
        ("ResourceClaim", "gpu-monitoring", "all-gpus-admin"),
        ("ResourceClaimTemplate", "default", "three-a100-one-root"),
        ("ResourceClaimTemplate", "default", "two-a100"),
        ("ResourceSlice", "", "gpu-node-1-gpu.example.com"),
        ("ResourceSlice", "", "gpu-node-2-gpu.example.com"),
        ("ResourceSlice", "", "gpu-node-3-gpu.example.com")]
    train = cluster.pod_set.get(name="train-1")
    assert "resourceClaimStatuses" not in (train.manifest.get("status") or {})


SIMULATOR_SAMPLES = FIXTURES.parent / "tests" / "public_files" / "kube-scheduler-simulator"


def test_a_simulator_export_imports_as_its_objects_and_configuration(api):
    # kube-scheduler-simulator's documented export (case 2, see tests/public_files/SOURCES.md)
    # with its profile's removed volume-limit plugins left out, as --drop-removed-plugins does.
    export = json.loads((SIMULATOR_SAMPLES / "export-case2.json").read_text())
    enabled = export["schedulerConfig"]["profiles"][0]["plugins"]["filter"]["enabled"]
    enabled[:] = [p for p in enabled if not p["name"].endswith(("EBSLimits", "GCEPDLimits",
                                                                   "AzureDiskLimits"))]
    response = _post(api, [("export.json", json.dumps(export))], name="from-simulator")
    assert response.status_code == 201, response.json()
    assert [w.split(": ", 3)[-1].split(":")[0] for w in response.json()["warnings"]] == [
        "field healthzBindAddress", "field metricsBindAddress"]
    cluster = Cluster.objects.get(name="from-simulator")
    config = cluster.profile.config
    assert config["kind"] == "KubeSchedulerConfiguration" and "healthzBindAddress" not in config
    assert config["podMaxBackoffSeconds"] == 10


def test_a_simulator_export_naming_removed_plugins_is_refused_naming_them(api):
    text = (SIMULATOR_SAMPLES / "export-case1.json").read_text()
    response = _post(api, [("export.json", text)], name="old-simulator")
    assert response.status_code == 400
    assert '"EBSLimits"' in response.json()["files"][0]
