"""One v1.37 DRA file, as a user would load it, under v1.37 and under v1.34 (issue 26).

The file is fixtures/dra-releases-lesson.yaml (device taints, partitionable devices, a
DRA-backed extended resource) plus a node whose NIC has consumable capacity
(allowMultipleAllocations, a capacity request) and whose FPGA has binding conditions. v1.37 has
all of them on (pkg/features/kube_features.go: DRAConsumableCapacity and
DRADeviceBindingConditions beta from v1.36); v1.34 has them as alpha gates, off, so its API
server drops each field (dropDisabledFields in pkg/registry/resource/*/strategy.go) and the
engine warns of each one by file, object and field.
"""
from __future__ import annotations

import json
from pathlib import Path

from .test_simulate import REPO, simulate

LESSON = REPO / "fixtures" / "dra-releases-lesson.yaml"
EXTRA = """
---
apiVersion: v1
kind: Node
metadata: {name: nic-node, labels: {kubernetes.io/hostname: nic-node}}
status: {allocatable: {cpu: "16", memory: 64Gi, pods: "110"}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: nic.example.com}
spec:
  selectors: [{cel: {expression: 'device.driver == "nic.example.com"'}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: nic-node-devices}
spec:
  driver: nic.example.com
  nodeName: nic-node
  pool: {name: nic-node, generation: 1, resourceSliceCount: 1}
  devices:
  - name: nic-0
    allowMultipleAllocations: true
    attributes: {kind: {string: nic}}
    capacity: {bandwidth: {value: 10G}}
  - name: fpga-0
    attributes: {kind: {string: fpga}}
    bindingConditions: [Attached]
    bindingFailureConditions: [AttachFailed]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: bw-6g}
spec:
  spec:
    devices:
      requests:
      - name: nic
        exactly:
          deviceClassName: nic.example.com
          selectors: [{cel: {expression: 'device.attributes["nic.example.com"].kind == "nic"'}}]
          capacity: {requests: {bandwidth: 6G}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: fpga}
spec:
  spec:
    devices:
      requests:
      - name: fpga
        exactly:
          deviceClassName: nic.example.com
          selectors: [{cel: {expression: 'device.attributes["nic.example.com"].kind == "fpga"'}}]
---
apiVersion: v1
kind: Pod
metadata: {name: net-a}
spec:
  containers: [{name: c, image: x}]
  resourceClaims: [{name: nic, resourceClaimTemplateName: bw-6g}]
---
apiVersion: v1
kind: Pod
metadata: {name: net-b}
spec:
  containers: [{name: c, image: x}]
  resourceClaims: [{name: nic, resourceClaimTemplateName: bw-6g}]
---
apiVersion: v1
kind: Pod
metadata: {name: attach}
spec:
  containers: [{name: c, image: x}]
  resourceClaims: [{name: fpga, resourceClaimTemplateName: fpga}]
"""
BINDING_TIMEOUT = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- pluginConfig:
  - name: DynamicResources
    args: {bindingTimeout: 60s}
"""


def example(tmp_path: Path) -> Path:
    path = tmp_path / "dra-v1.37.yaml"
    path.write_text(LESSON.read_text() + EXTRA)
    return path


def run(*args) -> dict:
    done = simulate(*args, "--output", "json", "--until", "100")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_v1_37_dra_file_under_v1_37_honours_every_field(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text(BINDING_TIMEOUT)
    out = run(example(tmp_path), "--config", config)
    assert out["release"] == "1.37" and out["warnings"] == []
    # Taints, counters and the extended resource as in the lesson; net-a takes 6G of nic-0's
    # 10G and net-b's 6G no longer fits on the shared NIC; attach waits at PreBind for a
    # condition no driver sets, until its 60s bindingTimeout.
    assert out["bindings"] == {
        "default/whole": "h100-node", "default/half": None, "default/ext": "a100-node",
        "default/careful": None, "default/tolerant": "a100-node", "default/net-a": "nic-node",
        "default/net-b": None, "default/attach": None}
    attach = [c for c in out["cycles"] if c["pod"] == "default/attach"]
    assert attach[0]["outcome"] == "Error" and attach[0]["message"].endswith(
        "binding timeout")
    net_b = next(c for c in out["cycles"] if c["pod"] == "default/net-b")
    assert net_b["message"].startswith("0/3 nodes are available: 3 cannot allocate all claims.")


def test_the_same_file_under_v1_34_warns_of_each_field_it_lacks(tmp_path):
    path = example(tmp_path)
    done = simulate(path, "--output", "json", "--release", "1.34", "--until", "100")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    fields = [": ".join(w.split(": ")[2:4]) for w in out["warnings"]]
    assert fields == [
        "DeviceClass gpu.example.com: field spec.extendedResourceName",
        "ResourceSlice a100-node-gpus: field spec.devices[0].taints",
        "ResourceSlice h100-node-counters: field spec.sharedCounters",
        "ResourceSlice h100-node-gpus: field spec.devices[0].consumesCounters",
        "ResourceClaimTemplate default/a100-in-maintenance: field "
        "spec.spec.devices.requests[0].exactly.tolerations",
        "ResourceSlice nic-node-devices: field spec.devices[0].allowMultipleAllocations",
        "ResourceSlice nic-node-devices: field spec.devices[1].bindingConditions",
        "ResourceSlice nic-node-devices: field spec.devices[1].bindingFailureConditions",
        "ResourceClaimTemplate default/bw-6g: field spec.spec.devices.requests[0].exactly.capacity",
    ]
    assert all(w.startswith(f"{path}: document ") for w in out["warnings"])
    # The two halves' consumesCounters are the same field as the whole GPU's: counted.
    assert out["warnings"][3].endswith("turns it on) (and 2 more)")
    assert "(and" not in out["warnings"][7]
    assert done.stderr.splitlines() == [f"Warning: {w}" for w in out["warnings"]]
    # What v1.34 does without those fields: the shared NIC is a dedicated device, and the
    # FPGA binds at once.
    assert out["bindings"] == {
        "default/whole": "h100-node", "default/half": "h100-node", "default/ext": None,
        "default/careful": "a100-node", "default/tolerant": "a100-node",
        "default/net-a": "nic-node", "default/net-b": None, "default/attach": "nic-node"}


def test_bindingTimeout_under_v1_34_is_refused_as_its_validation_refuses_it(tmp_path):
    # apis/config/validation ValidateDynamicResourcesArgs: the field is an error while
    # DRADeviceBindingConditions is off.
    config = tmp_path / "config.yaml"
    config.write_text(BINDING_TIMEOUT)
    done = simulate(example(tmp_path), "--config", config, "--release", "1.34")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines()[-1] == (
        f"error: {config}: invalid KubeSchedulerConfiguration: profiles[0].pluginConfig[0]."
        "args.bindingTimeout: Forbidden: DRADeviceBindingConditions or "
        "DRAResourceClaimDeviceStatus feature gate is disabled")
