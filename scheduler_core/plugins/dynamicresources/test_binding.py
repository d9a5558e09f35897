"""Binding conditions (DRADeviceBindingConditions): PreBind binds only once the driver reported
every binding condition True in the claim's status.devices, fails on a True failure condition
(isClaimReadyForBinding in dynamicresources.go) and otherwise times out."""
from __future__ import annotations

import json

import pytest
import yaml

from scheduler_core.scheduler import RUN_EPOCH
from scheduler_core.simulate import load_scheduler
from scheduler_core.simulate import simulate as simulate_in_process

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


def test_a_claim_whose_binding_failed_is_deallocated_by_postfilter(tmp_path):
    """Go's Filter finds the failed binding (isClaimReadyForBinding's error): the claim is not
    available on the node, and PostFilter deallocates it so that other devices can be tried
    (TestPlugin's bound-claim-with-failed-binding)."""
    failed = {**CLAIM, "status": {**claim_with(("failed", "True"))["status"]}}
    assert run_with_claim(tmp_path, failed)["message"] == (
        "0/1 nodes are available: 1 resourceclaim not available on the node. deallocation of "
        "ResourceClaim completed, preemption: 0/1 nodes are available: 1 Preemption is not "
        "helpful for scheduling.")


# --- the wait in virtual time: PreBind polls every 5 s until bindingTimeout (dynamicresources.go
# PreBind's wait.PollUntilContextTimeout), while the scheduling cycles of other pods go on.
CONFIG = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
          "profiles": [{"schedulerName": "default-scheduler", "pluginConfig": [
              {"name": "DynamicResources", "args": {"bindingTimeout": "20s"}}]}]}
LATER_POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "q", "namespace": "default"},
             "spec": {"containers": [{"name": "c", "image": "x"}]}}


def timeline(*steps) -> dict:
    return {"apiVersion": "playground.k8s.local/v1", "kind": "Timeline",
            "metadata": {"name": "t"}, "spec": {"steps": list(steps)}}


def run_waiting(tmp_path, *extra, max_cycles=3):
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump_all([*DOCS, CLAIM, CONFIG, *extra]), encoding="utf-8")
    return simulate_in_process([str(path)], seed=1, max_cycles=max_cycles)


def test_the_wait_takes_binding_timeout_of_virtual_time_while_other_pods_are_scheduled(
        tmp_path):
    created = timeline({"at": 3, "action": "Create", "object": LATER_POD})
    result = run_waiting(tmp_path, created)
    cycles = result.trace.to_list()
    assert [(c["pod"], c["time"], c["outcome"]) for c in cycles[:2]] == [
        ("default/p", 0.0, "Error"), ("default/q", 3.0, "Bound")]
    # The binding failed at 20 s; the retry comes after its backoff.
    assert cycles[2]["pod"] == "default/p" and 20.0 < cycles[2]["time"] <= 22.0


def test_conditions_reported_during_the_wait_bind_the_pod_at_the_next_poll(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump_all([*DOCS, CLAIM, CONFIG]), encoding="utf-8")
    sched = load_scheduler([str(path)], seed=1)

    def driver_reports():   # what a DRA driver would write into the claim's status
        claim = sched.cluster.objects.resource_claims["default/c"]
        claim["status"]["devices"] = claim_with(("attached", "True"))["status"]["devices"]
    sched.at(12.0, driver_reports)
    sched.run(3)
    assert sched.bindings["default/p"] == "node-1"
    # Polls at 0, 5 and 10 saw nothing; the one at 15 saw the conditions.
    pod = next(p for p in sched.pods if p.key == "default/p")
    assert pod.start_time - RUN_EPOCH == 15.0
