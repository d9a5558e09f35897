"""import-cluster against a local HTTP server that answers the client's list calls with
recorded API responses (the JSON a v1.3x API server returns, written by hand in its shape:
kind `*List`, list metadata with resourceVersion and continue, items without kind)."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest

from scheduler_core.cli import main
from scheduler_core.errors import InputError
from scheduler_core.live_import import import_cluster
from scheduler_core.simulate import simulate


def node(name, cpu="4"):
    return {"metadata": {"name": name, "uid": f"uid-{name}", "resourceVersion": "101",
                         "labels": {"kubernetes.io/hostname": name},
                         "managedFields": [{"manager": "kubelet", "operation": "Update"}]},
            "spec": {"podCIDR": "10.244.0.0/24"},
            "status": {"capacity": {"cpu": cpu, "memory": "8Gi", "pods": "110"},
                       "allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "110"},
                       "conditions": [{"type": "Ready", "status": "True"}]}}


def pod(name, namespace, labels, node_name=None, cpu="1"):
    spec = {"containers": [{"name": "c", "image": "nginx",
                            "resources": {"requests": {"cpu": cpu}}}],
            "schedulerName": "default-scheduler", "restartPolicy": "Always",
            "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists",
                             "effect": "NoExecute", "tolerationSeconds": 300},
                            {"key": "node.kubernetes.io/unreachable", "operator": "Exists",
                             "effect": "NoExecute", "tolerationSeconds": 300}],
            "priority": 0, "preemptionPolicy": "PreemptLowerPriority"}
    status = {"phase": "Pending", "qosClass": "Burstable"}
    if node_name:
        spec["nodeName"] = node_name
        status = {"phase": "Running", "startTime": "2026-11-27T09:00:00Z",
                  "qosClass": "Burstable"}
    return {"metadata": {"name": name, "namespace": namespace, "uid": f"uid-{name}",
                         "resourceVersion": "202", "labels": labels,
                         "creationTimestamp": "2026-11-27T09:00:00Z"},
            "spec": spec, "status": status}


def listing(kind, items, cont=""):
    meta = {"resourceVersion": "300"}
    if cont:
        meta["continue"] = cont
    version = {"StorageClassList": "storage.k8s.io/v1", "CSINodeList": "storage.k8s.io/v1",
               "PriorityClassList": "scheduling.k8s.io/v1",
               "PodDisruptionBudgetList": "policy/v1"}.get(kind, "v1")
    return {"kind": kind, "apiVersion": version, "metadata": meta, "items": items}


PODS = [pod("web-1", "shop", {"app": "web"}, "node-a"),
        pod("web-2", "shop", {"app": "web"}),
        pod("db-1", "shop", {"app": "db"}, "node-b"),
        pod("coredns-1", "kube-system", {"k8s-app": "kube-dns"}, "node-a")]
RECORDED = {
    "/api/v1/namespaces": listing("NamespaceList", [
        {"metadata": {"name": n, "labels": {"kubernetes.io/metadata.name": n}},
         "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}}
        for n in ("default", "kube-system", "shop")]),
    "/apis/scheduling.k8s.io/v1/priorityclasses": listing("PriorityClassList", [
        {"metadata": {"name": "high"}, "value": 1000, "preemptionPolicy": "PreemptLowerPriority"}
    ]),
    "/apis/storage.k8s.io/v1/storageclasses": listing("StorageClassList", [
        {"metadata": {"name": "standard", "annotations": {
            "storageclass.kubernetes.io/is-default-class": "true"}},
         "provisioner": "rancher.io/local-path", "reclaimPolicy": "Delete",
         "volumeBindingMode": "WaitForFirstConsumer"}]),
    "/apis/storage.k8s.io/v1/csinodes": listing("CSINodeList", []),
    "/api/v1/persistentvolumes": listing("PersistentVolumeList", []),
    "/apis/policy/v1/poddisruptionbudgets": listing("PodDisruptionBudgetList", []),
    "/api/v1/persistentvolumeclaims": listing("PersistentVolumeClaimList", []),
}


class Recorded(BaseHTTPRequestHandler):
    """Answers GETs from RECORDED; nodes in two pages; pods filtered by namespace and
    labelSelector as the API server would; resource.k8s.io is not served (404)."""
    calls: list = []
    token = "test-token"

    def log_message(self, *args):
        pass

    def do_GET(self):
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        self.calls.append((url.path, query))
        if self.headers.get("Authorization") != f"Bearer {self.token}":
            return self._send(401, {"kind": "Status", "status": "Failure",
                                    "message": "Unauthorized", "code": 401})
        body = self._answer(url.path, query)
        if body is None:
            return self._send(404, {"kind": "Status", "status": "Failure",
                                    "message": "the server could not find the requested "
                                               "resource", "reason": "NotFound", "code": 404})
        if isinstance(body, int):
            return self._send(body, {"kind": "Status", "status": "Failure", "code": body,
                                     "message": 'pods is forbidden: User "viewer" cannot list '
                                                'resource "pods" in API group "" at the '
                                                "cluster scope"})
        self._send(200, body)

    def _answer(self, path, query):
        if path == "/api/v1/nodes":
            if query.get("continue") == "page-2":
                return listing("NodeList", [node("node-b")])
            return listing("NodeList", [node("node-a")], cont="page-2")
        if path.endswith("/pods"):
            if getattr(self.server, "forbid_pods", False):
                return 403
            namespace = path.split("/")[4] if path.startswith("/api/v1/namespaces/") else None
            items = [p for p in PODS if namespace in (None, p["metadata"]["namespace"])]
            selector = query.get("labelSelector")
            if selector:
                key, value = selector.split("=")
                items = [p for p in items if p["metadata"]["labels"].get(key) == value]
            return listing("PodList", items)
        if path.startswith("/api/v1/namespaces/") and path.endswith("/persistentvolumeclaims"):
            return listing("PersistentVolumeClaimList", [])
        if "/namespaces/" in path and path.endswith("/poddisruptionbudgets"):
            return listing("PodDisruptionBudgetList", [])
        return RECORDED.get(path)

    def _send(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def api_server():
    Recorded.calls = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorded)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def kubeconfig(api_server, tmp_path):
    port = api_server.server_address[1]
    path = tmp_path / "kubeconfig"
    path.write_text(f"""apiVersion: v1
kind: Config
clusters:
- name: local
  cluster: {{server: "http://127.0.0.1:{port}"}}
users:
- name: viewer
  user: {{token: {Recorded.token}}}
contexts:
- name: local
  context: {{cluster: local, user: viewer}}
current-context: local
""")
    return str(path)


def test_every_kind_is_listed_and_pages_are_followed(kubeconfig):
    seen = []
    result = import_cluster(kubeconfig, progress=lambda kind, n: seen.append((kind, n)))
    counts = result.counts()
    assert counts["Node"] == 2 and counts["Pod"] == 4 and counts["Namespace"] == 3
    assert ("Node", 2) in seen and ("Pod", 4) in seen
    assert [q.get("continue") for p, q in Recorded.calls if p == "/api/v1/nodes"] == [
        None, "page-2"]
    assert all(q["limit"] == "500" for _, q in Recorded.calls)


def test_kinds_the_cluster_does_not_serve_are_left_out_with_a_warning(kubeconfig):
    result = import_cluster(kubeconfig)
    assert "ResourceSlice" not in result.counts()
    assert any("ResourceSlice: the cluster does not serve resource.k8s.io/v1" in w
               for w in result.warnings)


def test_a_namespace_and_a_label_selector_narrow_the_namespaced_kinds(kubeconfig):
    result = import_cluster(kubeconfig, namespaces=["shop"], label_selector="app=web")
    pods = next(d for d in result.documents if d["kind"] == "PodList")["items"]
    assert [p["metadata"]["name"] for p in pods] == ["web-1", "web-2"]
    assert result.counts()["Node"] == 2    # cluster-scoped objects are read whole
    assert [n["metadata"]["name"] for n in
            next(d for d in result.documents if d["kind"] == "NamespaceList")["items"]] == [
        "shop"]
    pod_calls = [(p, q) for p, q in Recorded.calls if p.endswith("/pods")]
    assert pod_calls == [("/api/v1/namespaces/shop/pods",
                          {"limit": "500", "labelSelector": "app=web"})]


def test_the_cli_prints_a_list_that_simulate_schedules(kubeconfig, tmp_path, capsys):
    assert main(["import-cluster", "--kubeconfig", kubeconfig, "-n", "shop"]) == 0
    out, err = capsys.readouterr()
    assert "imported 2 Node object(s)" in err and "imported 3 Pod object(s)" in err
    listing_ = json.loads(out)
    assert listing_["kind"] == "List"
    assert {(i["apiVersion"], i["kind"]) for i in listing_["items"]} >= {
        ("v1", "Node"), ("v1", "Pod"), ("storage.k8s.io/v1", "StorageClass")}
    path = tmp_path / "cluster.json"
    path.write_text(out)
    result = simulate([str(path)], seed=1)
    # The running pods stay on their nodes; the pending one is scheduled.
    assert set(result.scheduler.bindings) == {"shop/web-2"}
    assert result.scheduler.bindings["shop/web-2"] in ("node-a", "node-b")


def test_a_list_the_credentials_may_not_read_is_bad_input_with_the_servers_words(
        api_server, kubeconfig, capsys):
    api_server.forbid_pods = True
    assert main(["import-cluster", "--kubeconfig", kubeconfig]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.strip().splitlines()[-1] == (
        f"error: {kubeconfig}: Pod: listing /api/v1/pods: pods is forbidden: User \"viewer\" "
        'cannot list resource "pods" in API group "" at the cluster scope')


def test_an_unreachable_cluster_is_bad_input(tmp_path):
    path = tmp_path / "kubeconfig"
    path.write_text("""apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "http://127.0.0.1:9"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
""")
    with pytest.raises(InputError, match="cannot reach the cluster"):
        import_cluster(str(path))


def test_a_missing_kubeconfig_is_bad_input(tmp_path, capsys):
    assert main(["import-cluster", "--kubeconfig", str(tmp_path / "nope")]) == 2
    assert "cannot use the kubeconfig" in capsys.readouterr().err
