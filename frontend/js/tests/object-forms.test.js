// The node and pod forms: manifests from a few fields and back, other fields kept.
import assert from "node:assert/strict";
import { test } from "node:test";

import { nodeFields, nodeManifest, parseTaints, podFields, podManifest } from "../object-forms.js";

test("a new node from the form, and its fields back", () => {
  const fields = { name: " n1 ", labels: "zone=a, gpu=true", taints: "gpu=true:NoSchedule, spot:NoExecute", cpu: "4", memory: "8Gi", pods: "110", unschedulable: true };
  const m = nodeManifest({}, fields);
  assert.equal(m.kind, "Node");
  assert.deepEqual(m.metadata, { name: "n1", labels: { zone: "a", gpu: "true" } });
  assert.deepEqual(m.spec.taints, [{ key: "gpu", value: "true", effect: "NoSchedule" }, { key: "spot", effect: "NoExecute" }]);
  assert.deepEqual(m.status.allocatable, { cpu: "4", memory: "8Gi", pods: "110" });
  assert.equal(m.spec.unschedulable, true);
  assert.deepEqual(nodeFields(m), { ...fields, name: "n1", labels: "zone=a, gpu=true" });
});

test("editing keeps what the form does not show", () => {
  const stored = { apiVersion: "v1", kind: "Node", metadata: { name: "n1", annotations: { a: "b" } }, spec: { podCIDR: "10.0.0.0/24" }, status: { allocatable: { cpu: "2", "nvidia.com/gpu": "1" } } };
  const m = nodeManifest(stored, { ...nodeFields(stored), cpu: "8" });
  assert.deepEqual(m.metadata.annotations, { a: "b" });
  assert.equal(m.spec.podCIDR, "10.0.0.0/24");
  assert.deepEqual(m.status.allocatable, { cpu: "8", "nvidia.com/gpu": "1" });
  assert.equal(stored.status.allocatable.cpu, "2");
});

test("a pod's requests sit on its first container; bad input names its field", () => {
  const m = podManifest({}, { name: "p", namespace: "", labels: "app=web", cpu: "500m", memory: "1Gi", priority: "10", nodeSelector: "zone=a" });
  assert.deepEqual(m.spec.containers[0].resources.requests, { cpu: "500m", memory: "1Gi" });
  assert.equal(m.metadata.namespace, "default");
  assert.equal(m.spec.priority, 10);
  assert.deepEqual(podFields(m), { name: "p", namespace: "default", labels: "app=web", cpu: "500m", memory: "1Gi", priority: "10", nodeSelector: "zone=a" });
  assert.throws(() => podManifest({}, { ...podFields(m), priority: "high" }), /priority: "high"/);
  assert.throws(() => parseTaints("gpu=true:Never"), /taints: "gpu=true:Never"/);
  assert.throws(() => podManifest({}, { ...podFields(m), labels: "app" }), /labels: "app" is not key=value/);
});
