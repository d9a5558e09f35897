"""LimitRanger admission: Go's admission_test.go cases (defaults, merge, the pod and claim
checks) and what a loaded cluster gets from it."""
from __future__ import annotations

import pytest
import yaml

from scheduler_core import limit_ranger as lr
from scheduler_core.errors import InputError
from scheduler_core.loader import load_documents
from scheduler_core.quantity import canonical


def limit_range(*items, namespace="default"):
    return {"apiVersion": "v1", "kind": "LimitRange",
            "metadata": {"name": "lr", "namespace": namespace},
            "spec": {"limits": list(items)}}


def item(kind, **lists):
    return {"type": kind, **lists}


def container(name="c", requests=None, limits=None):
    resources = {}
    if requests is not None:
        resources["requests"] = dict(requests)
    if limits is not None:
        resources["limits"] = dict(limits)
    return {"name": name, "image": "i", "resources": resources}


def pod(*containers, init=(), name="p"):
    spec = {"containers": list(containers)}
    if init:
        spec["initContainers"] = list(init)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": spec}


# --- SetDefaults_LimitRangeItem (pkg/apis/core/v1/defaults_test.go) ----------------------------


def test_a_container_items_default_limit_falls_back_to_its_max_and_its_request_to_the_limit():
    out = lr.defaulted(limit_range(item("Container", max={"cpu": "2"})))
    (got,) = out["spec"]["limits"]
    assert got["default"] == {"cpu": "2"} and got["defaultRequest"] == {"cpu": "2"}


def test_a_container_items_default_request_falls_back_to_its_min_when_no_limit_is_set():
    out = lr.defaulted(limit_range(item("Container", min={"memory": "1Gi"})))
    (got,) = out["spec"]["limits"]
    assert got["defaultRequest"] == {"memory": "1Gi"} and got["default"] == {}


def test_a_pod_item_is_not_defaulted():
    out = lr.defaulted(limit_range(item("Pod", max={"cpu": "2"})))
    assert "default" not in out["spec"]["limits"][0]


# --- mergePodResourceRequirements (TestMergePodResourceRequirements) -------------------------


def test_empty_defaults_leave_the_pod_and_its_annotations_alone():
    p = pod(container())
    lr.admit_pod(p, [limit_range(item("Container"))])
    assert "annotations" not in p["metadata"]
    assert p["spec"]["containers"][0]["resources"] == {"limits": {}, "requests": {}}


def test_defaults_fill_every_container_and_are_annotated_sorted_by_resource():
    defaults = item("Container", default={"memory": "512Mi", "cpu": "1"},
                    defaultRequest={"memory": "256Mi", "cpu": "500m"})
    p = pod(container("a"), init=[container("i", requests={"cpu": "1"})])
    lr.admit_pod(p, [lr.defaulted(limit_range(defaults))])
    a = p["spec"]["containers"][0]["resources"]
    assert a == {"limits": {"memory": "512Mi", "cpu": "1"},
                 "requests": {"memory": "256Mi", "cpu": "500m"}}
    assert p["spec"]["initContainers"][0]["resources"]["requests"] == {"cpu": "1",
                                                                       "memory": "256Mi"}
    assert p["metadata"]["annotations"][lr.ANNOTATION] == (
        "LimitRanger plugin set: cpu, memory request for container a; cpu, memory limit for "
        "container a; memory request for init container i; cpu, memory limit for init "
        "container i")


def test_a_container_that_sets_a_resource_keeps_it():
    p = pod(container(requests={"memory": "100Mi"}, limits={"memory": "200Mi"}))
    lr.admit_pod(p, [limit_range(item("Container", default={"memory": "512Mi"},
                                      defaultRequest={"memory": "256Mi"}))])
    assert p["spec"]["containers"][0]["resources"] == {"requests": {"memory": "100Mi"},
                                                       "limits": {"memory": "200Mi"}}
    assert "annotations" not in p["metadata"]


# --- PodValidateLimitFunc (TestPodLimitFunc) ---------------------------------------------------


@pytest.mark.parametrize("lim, p, errors", [
    pytest.param(item("Container", min={"cpu": "100m"}), pod(container()),
                 ["minimum cpu usage per Container is 100m.  No request is specified"],
                 id="a container without a request is under the minimum"),
    pytest.param(item("Container", min={"cpu": "100m"}),
                 pod(container(requests={"cpu": "50m"}, limits={"cpu": "200m"})),
                 ["minimum cpu usage per Container is 100m, but request is 50m"],
                 id="a request under the minimum"),
    pytest.param(item("Container", min={"cpu": "100m"}),
                 pod(container(requests={"cpu": "100m"}, limits={"cpu": "50m"})),
                 ["minimum cpu usage per Container is 100m, but limit is 50m"],
                 id="a limit under the minimum"),
    pytest.param(item("Container", max={"memory": "1Gi"}),
                 pod(container(requests={"memory": "800Mi"})),
                 ["maximum memory usage per Container is 1Gi.  No limit is specified"],
                 id="a container without a limit is over the maximum"),
    pytest.param(item("Container", max={"memory": "1Gi"}),
                 pod(container(requests={"memory": "800Mi"}, limits={"memory": "1.5Gi"})),
                 ["maximum memory usage per Container is 1Gi, but limit is 1536Mi"],
                 id="a limit over the maximum is printed in canonical form"),
    pytest.param(item("Container", maxLimitRequestRatio={"cpu": "2"}),
                 pod(container(requests={"cpu": "100m"}, limits={"cpu": "300m"})),
                 ["cpu max limit to request ratio per Container is 2, but provided ratio is "
                  "3.000000"], id="a limit three times the request over a ratio of two"),
    pytest.param(item("Container", maxLimitRequestRatio={"cpu": "2"}),
                 pod(container(limits={"cpu": "300m"})),
                 ["cpu max limit to request ratio per Container is 2, but no request is "
                  "specified or request is 0"], id="a ratio needs a request"),
    pytest.param(item("Pod", max={"cpu": "1"}),
                 pod(container("a", requests={"cpu": "600m"}, limits={"cpu": "600m"}),
                     container("b", requests={"cpu": "600m"}, limits={"cpu": "600m"})),
                 ["maximum cpu usage per Pod is 1, but limit is 1200m"],
                 id="a pod item checks the sum of the containers"),
    pytest.param(item("Container", min={"cpu": "100m"}, max={"cpu": "1"}),
                 pod(container(requests={"cpu": "200m"}, limits={"cpu": "500m"})), [],
                 id="a container within min and max passes"),
])
def test_pod_validate_limit_func(lim, p, errors):
    assert lr.validate_pod(p, limit_range(lim)) == errors


def test_a_forbidden_pod_is_worded_as_the_api_server_words_it():
    p = pod(container(requests={"cpu": "2"}, limits={"cpu": "2"}), name="web")
    with pytest.raises(lr.Forbidden) as caught:
        lr.admit_pod(p, [limit_range(item("Container", max={"cpu": "1", "memory": "1Gi"}))])
    assert str(caught.value) == (
        'pods "web" is forbidden: [maximum cpu usage per Container is 1, but limit is 2, '
        "maximum memory usage per Container is 1Gi.  No limit is specified]")


@pytest.mark.parametrize("requests, errors", [
    pytest.param({"storage": "500Mi"},
                 ["minimum storage usage per PersistentVolumeClaim is 1Gi, but request is "
                  "500Mi"], id="a claim under the minimum"),
    pytest.param({"storage": "20Gi"},
                 ["maximum storage usage per PersistentVolumeClaim is 10Gi, but request is "
                  "20Gi"], id="a claim over the maximum"),
    pytest.param({"storage": "5Gi"}, [], id="a claim within the range"),
])
def test_claim_validate_limit_func(requests, errors):
    pvc = {"metadata": {"name": "c"}, "spec": {"resources": {"requests": requests}}}
    lim = item("PersistentVolumeClaim", min={"storage": "1Gi"}, max={"storage": "10Gi"})
    assert lr.validate_claim(pvc, limit_range(lim)) == errors


@pytest.mark.parametrize("value, text", [("1.5Gi", "1536Mi"), ("0.5", "500m"), ("2000", "2k"),
                                         ("1500", "1500"), ("100m", "100m"), ("1e3", "1e3"),
                                         ("512", "512"), ("1024Mi", "1Gi")])
def test_quantities_print_as_quantity_string_does(value, text):
    assert canonical(value) == text


# --- in a loaded cluster -------------------------------------------------------------------------

CLUSTER = """
apiVersion: v1
kind: LimitRange
metadata: {name: defaults, namespace: team}
spec:
  limits:
  - type: Container
    default: {cpu: 500m}
    defaultRequest: {cpu: 250m}
---
apiVersion: v1
kind: Pod
metadata: {name: in-team, namespace: team}
spec: {containers: [{name: c, image: i}]}
---
apiVersion: v1
kind: Pod
metadata: {name: limited, namespace: team}
spec: {containers: [{name: c, image: i, resources: {limits: {cpu: "2"}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: elsewhere}
spec: {containers: [{name: c, image: i}]}
"""


def _load(text):
    return load_documents([("c.yaml", list(yaml.safe_load_all(text)))])


def test_the_namespaces_defaults_reach_its_pods_only():
    pods = {p["metadata"]["name"]: p for p in _load(CLUSTER).pods}
    assert pods["in-team"]["spec"]["containers"][0]["resources"] == {
        "limits": {"cpu": "500m"}, "requests": {"cpu": "250m"}}
    assert pods["elsewhere"]["spec"]["containers"][0].get("resources") is None


def test_a_limit_without_a_request_is_requested_at_the_limit_before_the_defaults_apply():
    pods = {p["metadata"]["name"]: p for p in _load(CLUSTER).pods}
    assert pods["limited"]["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "2"}


def test_a_forbidden_input_pod_is_bad_input_naming_it():
    text = CLUSTER.replace("default: {cpu: 500m}", "default: {cpu: 500m}\n    max: {cpu: 1}")
    with pytest.raises(InputError, match=r'c.yaml: document 3: Pod team/limited: pods "limited" is '
                                         r"forbidden: maximum cpu usage per Container is 1, "
                                         r"but limit is 2"):
        _load(text)


def test_a_controller_whose_pods_are_forbidden_makes_none_and_says_so():
    text = CLUSTER.replace("default: {cpu: 500m}", "default: {cpu: 500m}\n    max: {cpu: 1}")
    text = text.split("---\napiVersion: v1\nkind: Pod\nmetadata: {name: limited")[0] + """---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: big, namespace: team}
spec:
  replicas: 2
  selector: {matchLabels: {app: big}}
  template:
    metadata: {labels: {app: big}}
    spec: {containers: [{name: c, image: i, resources: {limits: {cpu: "2"}}}]}
"""
    cluster = _load(text)
    assert not [p for p in cluster.pods if p["metadata"]["name"].startswith("big-")]
    (line,) = [w for w in cluster.warnings if "FailedCreate" in w]
    assert line.startswith('c.yaml: document 3: ReplicaSet team/big: FailedCreate: Error '
                           'creating: pods "big-')
    assert line.endswith("is forbidden: maximum cpu usage per Container is 1, but limit is 2")


def test_a_pod_the_api_server_already_holds_is_not_admitted_again():
    # A `kubectl get -o yaml` dump: the pod predates the range, which it exceeds.
    text = CLUSTER.replace("default: {cpu: 500m}", "default: {cpu: 500m}\n    max: {cpu: 1}")
    text = text.replace("metadata: {name: limited, namespace: team}",
                        "metadata: {name: limited, namespace: team, "
                        'creationTimestamp: "2026-11-01T10:00:00Z"}')
    pods = {p["metadata"]["name"]: p for p in _load(text).pods}
    assert pods["limited"]["spec"]["containers"][0]["resources"] == {
        "limits": {"cpu": "2"}, "requests": {"cpu": "2"}}
    assert "annotations" not in pods["limited"]["metadata"]
