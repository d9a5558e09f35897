import assert from "node:assert/strict";
import { test } from "node:test";

import { nodeTags, podText } from "../kube-detail.js";

test("a node's tags: the zone first, custom labels, taints, cordon, local volumes; not the labels every node has", () => {
  const tags = nodeTags({
    labels: { "kubernetes.io/hostname": "n1", "kubernetes.io/os": "linux", disk: "ssd", "topology.kubernetes.io/zone": "zone-a" },
    taints: [{ key: "gpu", value: "true", effect: "NoSchedule" }, { key: "spot", effect: "PreferNoSchedule" }],
    unschedulable: true,
    volumes: ["pv-local-1"],
  });
  assert.deepEqual(tags.map((t) => [t.cls, t.text]), [
    ["zone", "zone zone-a"], ["", "disk=ssd"], ["taint", "gpu=true:NoSchedule"],
    ["taint", "spot:PreferNoSchedule"], ["cordon", "cordoned"], ["volume", "pv pv-local-1"]]);
  assert.deepEqual(nodeTags({}), []);
});

test("a pod's text shows what it sets, and says so when it sets nothing", () => {
  const text = podText({
    requests: { cpu: "500m" },
    affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "disk", operator: "In", values: ["ssd"] }] }] } } },
    tolerations: [{ key: "gpu", operator: "Exists", effect: "NoSchedule" }],
    topologySpreadConstraints: [], nodeSelector: {},
  });
  assert.equal(text, [
    "requests:", "  cpu: 500m",
    "affinity:", "  nodeAffinity:", "    requiredDuringSchedulingIgnoredDuringExecution:", "      nodeSelectorTerms:",
    "        - matchExpressions:", "            - key: disk", "              operator: In", "              values:", "                - ssd",
    "tolerations:", "  - key: gpu", "    operator: Exists", "    effect: NoSchedule",
  ].join("\n"));
  assert.equal(podText({ requests: {} }), "no constraints");
});
