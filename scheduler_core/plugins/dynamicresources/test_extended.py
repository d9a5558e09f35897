"""Extended resources backed by DRA (DRAExtendedResource, v1.36 beta, v1.37 GA), after
extendeddynamicresources.go and its tests: the DeviceClass that backs a resource, the claim's
requests and the pod's request mappings per container, and a pod asking `example.com/gpu`
bound through DynamicResources where no node advertises it (no "Insufficient example.com/gpu")."""
from __future__ import annotations

import json

import pytest
import yaml

from .extended import device_class_for, node_needs, requests_and_mappings
from .test_simulate import simulate

GPU = "example.com/gpu"


def klass(name, resource=None, created=None):
    meta = {"name": name, **({"creationTimestamp": created} if created else {})}
    return {"metadata": meta, "spec": {"extendedResourceName": resource} if resource else {}}


def test_the_class_naming_the_resource_backs_it_the_newest_when_several_do():
    classes = {"a": klass("a", GPU, "2025-01-01T00:00:00Z"),
               "b": klass("b", GPU, "2025-06-01T00:00:00Z"), "c": klass("c")}
    assert device_class_for(classes, GPU)["metadata"]["name"] == "b"
    assert device_class_for(classes, "deviceclass.resource.kubernetes.io/c") is classes["c"]
    assert device_class_for(classes, "example.com/fpga") is None


def test_a_resource_the_node_advertises_is_the_device_plugins():
    backed = {GPU: 1}
    assert node_needs(backed, [(GPU, 1)], {}) == ({GPU: 1}, None)
    assert node_needs(backed, [(GPU, 1)], {GPU: 4}) == ({}, None)
    # Neither advertised nor backed: the node cannot serve the pod at all.
    assert node_needs({}, [("example.com/fpga", 1)], {}) == ({}, "example.com/fpga")


def container(name, amount, **extra):
    return {"name": name, "resources": {"requests": {"cpu": "1", GPU: str(amount)}}, **extra}


@pytest.mark.parametrize(("spec", "requests", "mappings"), [
    pytest.param({"containers": [container("a", 1), container("b", 2)]},
                 [("container-0-request-1", 1), ("container-1-request-1", 2)],
                 [("a", "container-0-request-1"), ("b", "container-1-request-1")],
                 id="one request per container, named by container and resource index"),
    pytest.param({"initContainers": [container("init", 1)], "containers": [container("a", 2)]},
                 [("container-1-request-1", 2)],
                 [("a", "container-1-request-1"), ("init", "container-1-request-1")],
                 id="an init container reuses a later container's devices"),
    pytest.param({"initContainers": [container("init", 3)], "containers": [container("a", 2)]},
                 [("container-0-request-1", 1), ("container-1-request-1", 2)],
                 [("a", "container-1-request-1"), ("init", "container-1-request-1"),
                  ("init", "container-0-request-1")],
                 id="an init container asks only for what later containers do not cover"),
    pytest.param({"initContainers": [container("i1", 3), container("i2", 4)],
                  "containers": []},
                 [("container-1-request-1", 4)],
                 [("i1", "container-1-request-1"), ("i2", "container-1-request-1")],
                 id="init containers run one after the other and share the largest request"),
    pytest.param({"initContainers": [container("side", 1, restartPolicy="Always")],
                  "containers": [container("a", 1)]},
                 [("container-0-request-1", 1), ("container-1-request-1", 1)],
                 [("side", "container-0-request-1"), ("a", "container-1-request-1")],
                 id="a sidecar keeps its devices beside the containers"),
])
def test_requests_and_mappings(spec, requests, mappings):
    got_requests, got_mappings = requests_and_mappings(
        {"spec": spec}, {GPU: 1}, {"gpu": klass("gpu", GPU)})
    assert [(r["name"], r["exactly"]["count"]) for r in got_requests] == requests
    assert all(r["exactly"]["deviceClassName"] == "gpu" for r in got_requests)
    assert [(m["containerName"], m["requestName"]) for m in got_mappings] == mappings


NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"}}}
CLASS = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
         "metadata": {"name": "gpu.example.com"},
         "spec": {"extendedResourceName": GPU,
                  "selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}}
SLICE = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
         "metadata": {"name": "node-1-gpus"},
         "spec": {"driver": "gpu.example.com", "nodeName": "node-1",
                  "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
                  "devices": [{"name": "gpu-0"}, {"name": "gpu-1"}]}}


def gpu_pod(name, amount):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "main", "image": "x", "resources": {
                "requests": {GPU: str(amount)}, "limits": {GPU: str(amount)}}}]}}


def run(tmp_path, *docs, args=()):
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all(docs), encoding="utf-8")
    done = simulate(path, "--output", "json", "--seed", "1", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_pod_asking_an_extended_resource_a_device_class_backs_gets_devices(tmp_path):
    out = run(tmp_path, NODE, CLASS, SLICE, gpu_pod("a", 2), gpu_pod("b", 1))
    first, second = out["cycles"]
    assert (first["outcome"], first["node"]) == ("Bound", "node-1")
    (created,) = next(e for e in first["preBind"] if e["plugin"] == "DynamicResources")[
        "detail"]["claims"]
    assert created["claim"].startswith("default/a-extended-resources-") and created["created"]
    assert [r["device"] for r in created["allocation"]["devices"]["results"]] == ["gpu-0",
                                                                                  "gpu-1"]
    # Both GPUs are taken: the next pod waits for devices, not for "Insufficient".
    assert second["message"].startswith("0/1 nodes are available: 1 cannot allocate all claims.")


def test_without_a_backing_class_the_resource_is_insufficient(tmp_path):
    out = run(tmp_path, NODE, SLICE, gpu_pod("a", 1))
    assert out["cycles"][0]["message"].startswith(
        "0/1 nodes are available: 1 Insufficient example.com/gpu.")


def test_a_node_that_advertises_the_resource_serves_it_by_device_plugin(tmp_path):
    plugin_node = {**NODE, "metadata": {"name": "node-2"},
                   "status": {"allocatable": {**NODE["status"]["allocatable"], GPU: "1"}}}
    out = run(tmp_path, plugin_node, CLASS, gpu_pod("a", 1))
    (cycle,) = out["cycles"]
    assert (cycle["outcome"], cycle["node"]) == ("Bound", "node-2")
    assert not [e for e in cycle["preBind"] if e["plugin"] == "DynamicResources"
                and e.get("detail")]


# Ported from dynamicresources/extendeddynamicresources_test.go: Test_createRequestsAndMappings
# (the requests) and Test_createRequestsAndMappings_mappings. st.MakePod's Res adds container
# con<i>, InitReq init container init-con<i>, SidecarReq an init container sidecar-con<i> with
# restartPolicy Always (i counting the init containers).
ERN = "example.com/gpu"
IMPLICIT_INIT = "deviceclass.resource.kubernetes.io/classInit"
GO_CLASSES = {"class": klass("class", ERN), "class1": klass("class1", ERN + "1"),
              "classInit": klass("classInit", ERN + "init")}


def make_pod(*parts):
    spec = {"containers": [], "initContainers": []}
    for kind, requests in parts:
        inits = spec["initContainers"]
        name = {"res": f"con{len(spec['containers'])}", "init": f"init-con{len(inits)}",
                "sidecar": f"sidecar-con{len(inits)}"}[kind]
        container = {"name": name, "resources": {"requests": dict(requests)}}
        if kind == "sidecar":
            container["restartPolicy"] = "Always"
        (spec["containers"] if kind == "res" else inits).append(container)
    return {"spec": spec}


POD1 = make_pod(("res", {ERN: "1", ERN + "1": "2"}))
POD2 = make_pod(("res", {ERN: "1"}), ("res", {ERN + "1": "2"}))
POD_INIT = make_pod(("res", {ERN: "1"}), ("init", {ERN + "init": "2"}))
POD_INIT2 = make_pod(("res", {ERN: "1"}), ("init", {ERN + "init": "1"}),
                     ("init", {ERN + "init": "2"}))
POD_INIT3 = make_pod(("res", {ERN: "1"}), ("init", {ERN + "init": "1"}),
                     ("sidecar", {ERN + "init": "1"}), ("init", {ERN + "init": "2"}))
POD1_INIT_IMPLICIT = make_pod(("init", {ERN + "init": "1", IMPLICIT_INIT: "2"}))
POD_INIT_IMPLICIT = make_pod(("res", {ERN: "1"}), ("init", {ERN + "init": "1"}),
                             ("init", {IMPLICIT_INIT: "2"}))
RES = {ERN: 1, ERN + "1": 2}
RES_INIT = {ERN: 1, ERN + "init": 2}
RES_INIT_IMPLICIT = {ERN: 1, ERN + "init": 2, IMPLICIT_INIT: 2}


@pytest.mark.parametrize(("pod", "needs", "classes", "want"), [
    pytest.param(POD1, {}, GO_CLASSES, [], id="nil"),
    pytest.param(POD1, {ERN: 1}, GO_CLASSES, [("container-0-request-0", "class", 1)],
                 id="one resource match"),
    pytest.param(POD1, RES, {"class": GO_CLASSES["class"]},
                 [("container-0-request-0", "class", 1)],
                 id="one resource match, one resource not match"),
    pytest.param(POD1, RES, GO_CLASSES, [("container-0-request-0", "class", 1),
                                         ("container-0-request-1", "class1", 2)],
                 id="two resources match"),
    pytest.param(POD2, RES, GO_CLASSES, [("container-0-request-0", "class", 1),
                                         ("container-1-request-0", "class1", 2)],
                 id="two containers match"),
    pytest.param(POD_INIT, RES_INIT, GO_CLASSES, [("container-0-request-0", "classInit", 2),
                                                  ("container-1-request-0", "class", 1)],
                 id="one init container, one regular container"),
    pytest.param(POD_INIT2, RES_INIT, GO_CLASSES, [("container-1-request-0", "classInit", 2),
                                                   ("container-2-request-0", "class", 1)],
                 id="two init containers, one regular container"),
    pytest.param(POD_INIT3, RES_INIT, GO_CLASSES, [("container-1-request-0", "classInit", 1),
                                                   ("container-2-request-0", "classInit", 2),
                                                   ("container-3-request-0", "class", 1)],
                 id="three init containers, one sidecar, one regular container"),
])
def test_create_requests(pod, needs, classes, want):
    known = {r: n for r, n in needs.items() if device_class_for(classes, r) is not None}
    requests, _ = requests_and_mappings(pod, known, classes)
    assert [(r["name"], r["exactly"]["deviceClassName"], r["exactly"]["count"])
            for r in requests] == want


@pytest.mark.parametrize(("pod", "needs", "want"), [
    pytest.param(POD1, RES, [("container-0-request-0", "con0", ERN),
                             ("container-0-request-1", "con0", ERN + "1")],
                 id="one container, two requests"),
    pytest.param(POD1_INIT_IMPLICIT, RES_INIT_IMPLICIT,
                 [("container-0-request-0", "init-con0", IMPLICIT_INIT),
                  ("container-0-request-1", "init-con0", ERN + "init")],
                 id="one container, one explicit and one implicit request"),
    pytest.param(POD2, RES, [("container-0-request-0", "con0", ERN),
                             ("container-1-request-0", "con1", ERN + "1")],
                 id="two containers, two requests"),
    pytest.param(POD_INIT, RES_INIT, [("container-0-request-0", "init-con0", ERN + "init"),
                                      ("container-1-request-0", "con0", ERN)],
                 id="one init container, one regular container, one request"),
    pytest.param(POD_INIT2, RES_INIT, [("container-1-request-0", "init-con0", ERN + "init"),
                                       ("container-1-request-0", "init-con1", ERN + "init"),
                                       ("container-2-request-0", "con0", ERN)],
                 id="three containers (two are init container), two requests"),
    pytest.param(POD_INIT_IMPLICIT, RES_INIT_IMPLICIT,
                 [("container-0-request-0", "init-con0", ERN + "init"),
                  ("container-1-request-0", "init-con1", IMPLICIT_INIT),
                  ("container-2-request-0", "con0", ERN)],
                 id="three containers (two are init container), both explicit and implicit "
                    "resources"),
    pytest.param(POD_INIT3, RES_INIT, [("container-1-request-0", "init-con0", ERN + "init"),
                                       ("container-1-request-0", "sidecar-con1", ERN + "init"),
                                       ("container-2-request-0", "init-con2", ERN + "init"),
                                       ("container-3-request-0", "con0", ERN)],
                 id="four containers (two are init container, one sidecar), three requests"),
])
def test_create_mappings(pod, needs, want):
    _, mappings = requests_and_mappings(pod, needs, GO_CLASSES)
    got = sorted((m["requestName"], m["containerName"], m["resourceName"]) for m in mappings)
    assert got == want
