"""Binding conditions (DRADeviceBindingConditions): PreBind binds only once the driver reported
every binding condition True in the claim's status.devices, fails on a True failure condition
(isClaimReadyForBinding in dynamicresources.go) and otherwise times out."""
from __future__ import annotations

import json

import pytest
import yaml

from .binding import BindingFailed, ready, timeout_seconds
from .test_simulate import simulate

RESULT = {"request": "r", "driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0",
          "bindingConditions": ["attached"], "bindingFailureConditions": ["failed"]}


def claim_with(*conditions, results=(RESULT,)):
    status = {"allocation": {"devices": {"results": list(results)}}}
    if conditions:
        status["devices"] = [{"driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0",
                              "conditions": [{"type": t, "status": s, "reason": "R",
                                              "message": "m"} for t, s in conditions]}]
    return {"metadata": {"name": "c", "namespace": "default"}, "status": status}


@pytest.mark.parametrize(("claim", "want"), [
    pytest.param(claim_with(), False, id="no device status yet is not ready"),
    pytest.param(claim_with(("attached", "False")), False, id="a False condition is not ready"),
    pytest.param(claim_with(("attached", "True")), True, id="every condition True is ready"),
    pytest.param(claim_with(results=({**RESULT, "bindingConditions": []},)), True,
                 id="a device without binding conditions is ready"),
])
def test_ready(claim, want):
    assert ready(claim) is want


def test_a_true_failure_condition_fails_the_binding():
    with pytest.raises(BindingFailed, match='claim c binding failed: reason=R, message="m"'):
        ready(claim_with(("attached", "False"), ("failed", "True")))


@pytest.mark.parametrize(("text", "seconds"), [(None, 600), ("10m", 600)])
def test_binding_timeout(text, seconds):
    assert timeout_seconds({"bindingTimeout": text} if text else {}) == seconds


DOCS = [
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"},
     "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"}}},
    {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
     "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}},
    {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
     "spec": {"driver": "gpu.example.com", "nodeName": "node-1",
              "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
              "devices": [{"name": "gpu-0", "bindingConditions": ["attached"],
                           "bindingFailureConditions": ["failed"], "bindsToNode": True}]}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
     "spec": {"containers": [{"name": "c", "image": "x"}],
              "resourceClaims": [{"name": "g", "resourceClaimName": "c"}]}},
]


def run_with_claim(tmp_path, claim):
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump_all([*DOCS, claim]), encoding="utf-8")
    done = simulate(path, "--output", "json", "--seed", "1", "--max-cycles", "2")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["cycles"][0]


CLAIM = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
         "metadata": {"name": "c", "namespace": "default"},
         "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu"}}]}}}


def test_nobody_reports_the_conditions_so_prebind_times_out(tmp_path):
    cycle = run_with_claim(tmp_path, CLAIM)
    assert (cycle["outcome"], cycle["message"]) == (
        "Error", 'running PreBind plugin "DynamicResources": device binding timeout')
    events = next(e for e in cycle["preBind"] if e["plugin"] == "DynamicResources")[
        "detail"]["claims"]
    assert events[-1] == {"claim": "default/c", "bindingConditionsPending": ["gpu-0"],
                          "timeoutSeconds": 600}


def test_conditions_the_driver_reported_let_the_pod_bind(tmp_path):
    allocated = {**CLAIM, "status": {
        **claim_with(("attached", "True"))["status"],
        "allocation": {"devices": {"results": [RESULT]}, "nodeSelector": {
            "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In",
                                                    "values": ["node-1"]}]}]}}}}
    assert run_with_claim(tmp_path, allocated)["outcome"] == "Bound"


def test_a_failure_condition_fails_prebind_with_its_reason(tmp_path):
    failed = {**CLAIM, "status": {**claim_with(("failed", "True"))["status"]}}
    assert run_with_claim(tmp_path, failed)["message"] == (
        'running PreBind plugin "DynamicResources": claim c binding failed: reason=R, '
        'message="m"')
