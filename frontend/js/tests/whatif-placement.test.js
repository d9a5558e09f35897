// The Global placement panel's rows: the pods the two placements put differently.
import assert from "node:assert/strict";
import { test } from "node:test";

import { placementRows, violationLines } from "../whatif/placement-model.js";

test("only pods placed differently are rows, a pod the scheduler left pending is gained", () => {
  const out = {
    scheduler: { bindings: { "default/web-1": "large", "default/web-2": "small-2", "default/batch": null } },
    optimal: { bindings: { "default/web-1": "small-1", "default/web-2": "small-2", "default/batch": "large" } },
  };
  assert.deepEqual(placementRows(out), [
    { pod: "default/web-1", scheduler: "large", global: "small-1", gained: false },
    { pod: "default/batch", scheduler: null, global: "large", gained: true },
  ]);
});

test("a pod pending in both placements is no row", () => {
  const out = { scheduler: { bindings: { "default/big": null } },
                optimal: { bindings: { "default/big": null } } };
  assert.deepEqual(placementRows(out), []);
});

test("each pod of the scheduler's placement refused as a whole is a line naming plugin and message", () => {
  const out = { scheduler: { bindings: {}, violations: [
    { pod: "default/first", node: "n0", plugin: "InterPodAffinity", message: "node(s) didn't match pod affinity rules" }] } };
  assert.deepEqual(violationLines(out), ["default/first on n0: InterPodAffinity: node(s) didn't match pod affinity rules"]);
  assert.deepEqual(violationLines({ scheduler: { bindings: {}, violations: [] } }), []);
});
