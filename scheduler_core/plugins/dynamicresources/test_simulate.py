"""DynamicResources through the `simulate` path: loading, the default profile, the trace."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml

from .builders import device, device_class, request, resource_slice
from .builders import node as make_node

REPO = Path(__file__).resolve().parents[3]
LESSON = REPO / "fixtures" / "gpu-dra-lesson.yaml"


def simulate(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scheduler_core", "simulate", *map(str, args)],
                          cwd=REPO, capture_output=True, text=True, check=False)


def lesson_run() -> dict:
    done = simulate(LESSON, "--output", "json", "--seed", "1")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def cycle_of(out: dict, pod: str) -> dict:
    return next(c for c in out["cycles"] if c["pod"] == pod)


def write(tmp_path: Path, *docs) -> Path:
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all(docs), encoding="utf-8")
    return path


def pod_with(name: str, **claim) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "pause"}],
                     "resourceClaims": [{"name": "gpu", **claim}]}}


def test_the_lesson_binds_claims_pods_and_leaves_the_impossible_one_pending():
    out = lesson_run()
    assert out["bindings"]["default/infer-a"] == out["bindings"]["default/infer-b"]
    assert out["bindings"]["default/train-wide"] is None
    assert cycle_of(out, "default/train-wide")["message"] == (
        "0/5 nodes are available: 5 cannot allocate all claims. "
        "preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling.")
    assert all(node.startswith("gpu-node") for pod, node in out["bindings"].items()
               if node and not pod.startswith("default/web"))


def test_template_claims_are_named_as_the_controller_names_them_and_shown_in_the_trace():
    train = cycle_of(lesson_run(), "default/train-1")
    reserve = next(e for e in train["reserve"] if e["plugin"] == "DynamicResources")
    (event,) = reserve["detail"]["claims"]
    assert event["claim"].startswith("default/train-1-gpus-") and len(event["claim"]) == 26
    results = event["allocation"]["devices"]["results"]
    # matchAttribute pcieRoot: both GPUs of one root (gpu-0 and gpu-1 share pci-0).
    assert [r["device"] for r in results] == ["gpu-0", "gpu-1"]
    prebind = next(e for e in train["preBind"] if e["plugin"] == "DynamicResources")
    assert prebind["detail"]["claims"][0]["reservedFor"] == "default/train-1"


def test_admin_access_does_not_use_up_the_devices():
    out = lesson_run()
    monitor = cycle_of(out, "gpu-monitoring/gpu-monitor")
    node = out["bindings"]["gpu-monitoring/gpu-monitor"]
    reserve = next(e for e in monitor["reserve"] if e["plugin"] == "DynamicResources")
    results = reserve["detail"]["claims"][0]["allocation"]["devices"]["results"]
    assert {r["device"] for r in results} == {f"gpu-{i}" for i in range(4)}
    assert all(r["adminAccess"] for r in results)
    assert node is not None


def test_a_pod_without_claims_is_skipped_at_prefilter(tmp_path):
    web = cycle_of(lesson_run(), "default/web-1")
    assert {"plugin": "DynamicResources", "code": "Skip", "reasons": []} in web["preFilter"]
    assert "DynamicResources" not in json.dumps(web["filter"])


def test_a_missing_template_keeps_the_pod_out_of_scheduling(tmp_path):
    path = write(tmp_path, make_node("node-1"), pod_with("p", resourceClaimTemplateName="nope"))
    done = simulate(path, "--output", "table")
    assert done.returncode == 0, done.stderr
    assert 'pod "default/p": ResourceClaim not created yet' in done.stdout


def test_admin_access_needs_the_namespace_label(tmp_path):
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": "c", "namespace": "default"},
             "spec": {"devices": {"requests": [request("r", admin=True)]}}}
    done = simulate(write(tmp_path, make_node("node-1"), claim))
    assert done.returncode == 2 and done.stdout == ""
    assert "ResourceClaim default/c: field spec.devices.requests[0].exactly.adminAccess: " \
           "Forbidden: admin access to devices requires the " \
           "`resource.kubernetes.io/admin-access: true` label" in done.stderr


def test_a_selector_that_does_not_compile_is_rejected_on_load(tmp_path):
    done = simulate(write(tmp_path, device_class("bad", "device.driver ==")))
    assert done.returncode == 2
    assert "DeviceClass bad: field spec.selectors[0].cel.expression: Invalid value" \
           in done.stderr and "Traceback" not in done.stderr


def test_a_slice_needs_a_pool_size(tmp_path):
    bad = resource_slice("s", "node-1", "pool", "drv", device("d"))
    del bad["spec"]["pool"]["resourceSliceCount"]
    done = simulate(write(tmp_path, bad))
    assert done.returncode == 2
    assert "ResourceSlice s: field spec.pool.resourceSliceCount: Invalid value: None: must be " \
           "greater than zero" in done.stderr


def test_postfilter_deallocates_a_claim_stuck_on_an_unusable_node_and_the_pod_retries(tmp_path):
    # The claim is allocated on node-2, which is cordoned; nothing holds it (reservedFor is
    # empty), so PostFilter deallocates it, the claim update requeues the pod, and the next
    # cycle allocates node-1's device.
    stale = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": "stale", "namespace": "default"},
             "spec": {"devices": {"requests": [request("gpu", "gpu")]}},
             "status": {"allocation": {
                 "devices": {"results": [{"request": "gpu", "driver": "gpu.example.com",
                                          "pool": "node-2", "device": "gpu-0"}]},
                 "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                     {"key": "metadata.name", "operator": "In", "values": ["node-2"]}]}]}}}}
    cordoned = make_node("node-2")
    cordoned["spec"] = {"unschedulable": True}
    slices = [resource_slice(f"{n}-gpus", n, n, "gpu.example.com", device("gpu-0"))
              for n in ("node-1", "node-2")]
    path = write(tmp_path, make_node("node-1"), cordoned,
                 device_class("gpu", 'device.driver == "gpu.example.com"'), *slices, stale,
                 pod_with("p", resourceClaimName="stale"))
    done = simulate(path, "--output", "json", "--seed", "1")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    first, second = out["cycles"]
    assert first["message"] == (
        "0/2 nodes are available: 1 node(s) were unschedulable, 1 resourceclaim not available "
        "on the node. deallocation of ResourceClaim completed, preemption: 0/2 nodes are "
        "available: 2 Preemption is not helpful for scheduling.")
    assert first["postFilter"][0]["detail"] == {"claims": [{"claim": "default/stale",
                                                            "deallocated": True}]}
    assert (second["outcome"], second["node"]) == ("Bound", "node-1")
    (event,) = next(e for e in second["reserve"] if e["plugin"] == "DynamicResources")[
        "detail"]["claims"]
    assert event["allocation"]["devices"]["results"][0]["pool"] == "node-1"


def test_first_available_picks_the_first_subrequest_a_node_can_serve(tmp_path):
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": "c", "namespace": "default"},
             "spec": {"devices": {"requests": [{"name": "gpu", "firstAvailable": [
                 {"name": "two", "deviceClassName": "gpu", "count": 2},
                 {"name": "one", "deviceClassName": "gpu"}]}]}}}
    slice_ = resource_slice("s", "node-1", "node-1", "gpu.example.com", device("gpu-0"))
    path = write(tmp_path, make_node("node-1"), device_class("gpu"), slice_, claim,
                 pod_with("p", resourceClaimName="c"))
    out = json.loads(simulate(path, "--output", "json", "--seed", "1").stdout)
    (cycle,) = out["cycles"]
    (event,) = next(e for e in cycle["reserve"] if e["plugin"] == "DynamicResources")[
        "detail"]["claims"]
    assert [r["request"] for r in event["allocation"]["devices"]["results"]] == ["gpu/one"]


def test_a_subrequest_cannot_ask_for_admin_access(tmp_path):
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": "c", "namespace": "default"},
             "spec": {"devices": {"requests": [{"name": "gpu", "firstAvailable": [
                 {"name": "one", "deviceClassName": "gpu", "adminAccess": True}]}]}}}
    # DeviceSubRequest has no adminAccess field: the API server drops it with a warning, or
    # refuses it with fieldValidation=Strict.
    warned = simulate(write(tmp_path, claim))
    assert warned.returncode == 0
    assert 'ResourceClaim default/c: unknown field "spec.devices.requests[0].firstAvailable[0].' \
           'adminAccess"' in warned.stderr
    refused = simulate(write(tmp_path, claim), "--strict")
    assert refused.returncode == 2
    assert 'strict decoding error: unknown field "spec.devices.requests[0].firstAvailable[0].' \
           'adminAccess"' in refused.stderr


def test_a_deleted_pod_gives_its_device_back_and_the_waiting_pod_binds(tmp_path):
    # One GPU; a and b each get a claim from the template. b waits until a is gone (deleted at
    # t=60, gone after its 30s grace period): the resourceclaim controller drops a's claim,
    # and that ResourceClaimUpdate moves b, which binds at t=90.
    template = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                "metadata": {"name": "one-gpu", "namespace": "default"},
                "spec": {"spec": {"devices": {"requests": [request("gpu", "gpu")]}}}}
    timeline = {"apiVersion": "playground.k8s.local/v1", "kind": "Timeline",
                "metadata": {"name": "a-goes"},
                "spec": {"steps": [{"at": 60, "action": "Delete", "kind": "Pod", "name": "a",
                                    "namespace": "default"}]}}
    path = write(tmp_path, make_node("node-1"), device_class("gpu"),
                 resource_slice("s", "node-1", "node-1", "gpu.example.com", device("gpu-0")),
                 template, pod_with("a", resourceClaimTemplateName="one-gpu"),
                 pod_with("b", resourceClaimTemplateName="one-gpu"), timeline)
    out = json.loads(simulate(path, "--output", "json", "--seed", "1").stdout)
    assert [(c["pod"], c["time"], c["outcome"]) for c in out["cycles"]] == [
        ("default/a", 0.0, "Bound"), ("default/b", 0.0, "Unschedulable"),
        ("default/b", 90.0, "Bound")]


def numa_cluster(tmp_path: Path) -> Path:
    """Two CPUs per node whose numaNodes are lists (KEP-5491's example): on node-1 they share
    NUMA node 1, on node-2 none; the claim asks two CPUs matching on numaNodes."""
    def cpu(name, numa):
        return {"name": name, "attributes": {"numaNodes": {"ints": numa}}}
    same_numa = {"matchAttribute": "cpu.example.com/numaNodes"}
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": "c", "namespace": "default"},
             "spec": {"devices": {"requests": [request("cpus", "cpu", 2)],
                                  "constraints": [same_numa]}}}
    return write(tmp_path, make_node("node-1"), make_node("node-2"),
                 device_class("cpu", 'device.driver == "cpu.example.com"'),
                 resource_slice("s1", "node-1", "node-1", "cpu.example.com",
                                cpu("cpu-0", [0, 1]), cpu("cpu-1", [1, 2])),
                 resource_slice("s2", "node-2", "node-2", "cpu.example.com",
                                cpu("cpu-0", [0]), cpu("cpu-1", [1])),
                 claim, pod_with("p", resourceClaimName="c"))


def test_list_attributes_match_on_a_common_element_with_the_gate_on(tmp_path):
    done = simulate(numa_cluster(tmp_path), "--output", "json", "--release", "1.36",
                    "--feature-gates", "DRAListTypeAttributes=true")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["bindings"] == {"default/p": "node-1"} and out["warnings"] == []


def test_with_the_gate_off_list_attributes_are_warned_of_and_unsupported_as_in_go(tmp_path):
    path = numa_cluster(tmp_path)
    done = simulate(path, "--output", "json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["bindings"] == {"default/p": None}
    assert cycle_of(out, "default/p")["message"].endswith(
        "class cpu: selector #0: CEL runtime error: attribute numaNodes: unsupported attribute "
        "value")
    assert out["warnings"][:2] == [
        f"{path}: document 4: ResourceSlice s1: field spec.devices[0].attributes[numaNodes].ints:"
        " list-valued device attributes (ints, bools, strings, versions) are not read: the "
        "DRAListTypeAttributes feature gate is off in this run (v1.37; --feature-gates "
        "DRAListTypeAttributes=true turns it on); the scheduler takes such an attribute as an "
        "unsupported attribute value: a CEL selector evaluated on the device fails, and a "
        "matchAttribute or distinctAttribute constraint on it never holds (and 1 more)",
        f"{path}: document 5: ResourceSlice s2: field spec.devices[0].attributes[numaNodes].ints:"
        " list-valued device attributes (ints, bools, strings, versions) are not read: the "
        "DRAListTypeAttributes feature gate is off in this run (v1.37; --feature-gates "
        "DRAListTypeAttributes=true turns it on); the scheduler takes such an attribute as an "
        "unsupported attribute value: a CEL selector evaluated on the device fails, and a "
        "matchAttribute or distinctAttribute constraint on it never holds (and 1 more)"]
    # v1.35's API has no list values: its decoder drops `ints` as an unknown field, and the
    # attribute left without a value is refused, as that API server refuses it.
    older = simulate(path, "--release", "1.35")
    assert older.returncode == 2 and older.stdout == ""
    assert older.stderr.splitlines()[-1] == (
        f"error: {path}: ResourceSlice s1: field spec.devices[0].attributes[numaNodes]: Invalid "
        "value: exactly one value must be specified")
