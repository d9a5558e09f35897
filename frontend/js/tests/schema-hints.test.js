// The editors' schema hints and the line a validation message's field path points at.
import assert from "node:assert/strict";
import { test } from "node:test";

import { configHints, messageLine, objectHints, pathToLine } from "../schema-hints.js";

const CONFIG = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: default-scheduler
    plugins:
      score:
        enabled:
          - name: NodeResourcesFit
            weight: 2
          - name: ImageLocality
            weight: -1
  - schedulerName: second
    percentageOfNodesToScore: 101
`;

test("a field path finds its line, list items counted", () => {
  assert.equal(pathToLine(CONFIG, "profiles[0].plugins.score.enabled[1].weight"), 11);
  assert.equal(pathToLine(CONFIG, "profiles[0].plugins.score.enabled[0].weight"), 9);
  assert.equal(pathToLine(CONFIG, "profiles[1].percentageOfNodesToScore"), 13);
  // The deepest part found, or line 1 when nothing is.
  assert.equal(pathToLine(CONFIG, "profiles[1].plugins.filter"), 12);
  assert.equal(pathToLine(CONFIG, "extenders[0].urlPrefix"), 1);
});

test("keys at a line's start, values after a key, plugin names after name:", () => {
  const hints = configHints(["NodeResourcesFit", "NodeAffinity", "ImageLocality"]);
  assert.deepEqual(hints("    plug", "plug").map((h) => h.label), ["plugins", "pluginConfig"]);
  assert.deepEqual(hints("          - name: Node", "Node").map((h) => h.label), ["NodeResourcesFit", "NodeAffinity"]);
  assert.deepEqual(hints("        type: Most", "Most").map((h) => h.label), ["MostAllocated"]);
  assert.deepEqual(hints("  a: b c", "c"), []);
  const objects = objectHints();
  assert.ok(objects("  tai", "tai").some((h) => h.label === "taints"));
  assert.deepEqual(objects("    effect: No", "No").map((h) => h.label), ["NoSchedule", "NoExecute"]);
});

test("a loader message finds its document and field", () => {
  const text = "kind: Node\nmetadata:\n  name: n1\n---\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: a\n    resources:\n      requests:\n        cpu: lots\n";
  assert.equal(messageLine(text, "pasted.yaml: document 2: Pod default/p: field spec.containers[0].resources.requests.cpu: bad"), 13);
  assert.equal(messageLine(text, "pasted.yaml: document 2: Pod default/p: no such thing"), 5);
  assert.equal(messageLine(text, "pasted.yaml: not YAML"), 1);
  assert.equal(messageLine(text, 'pasted.yaml: document 2: Pod default/p: unknown field "spec.containers[0].resources"'), 11);
  assert.equal(messageLine(text, 'pasted.yaml: document 2: Pod default/p: line 7: key "name" already set in map'), 7);
});
