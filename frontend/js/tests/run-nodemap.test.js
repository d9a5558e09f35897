// The map's legend by rejecting plugin: counts per plugin from the nodes' verdicts.
import assert from "node:assert/strict";
import { test } from "node:test";

import { nodeVerdicts } from "../run/model.js";
import { rejectionCounts } from "../run/nodemap.js";

const cycle = {
  index: 0, pod: "d/p", node: "n4",
  filter: {
    n1: [{ plugin: "NodeAffinity", code: "UnschedulableAndUnresolvable", reasons: ["node(s) didn't match Pod's node affinity/selector"] }],
    n2: [{ plugin: "NodeUnschedulable", code: "Success" }, { plugin: "TaintToleration", code: "UnschedulableAndUnresolvable", reasons: ["node(s) had untolerated taint {a: b}"] }],
    n3: [{ plugin: "NodeAffinity", code: "UnschedulableAndUnresolvable", reasons: [] }],
    n4: [{ plugin: "NodeAffinity", code: "Success" }],
  },
};

test("a filtered node's verdict names the plugin that rejected it", () => {
  const v = nodeVerdicts(cycle, 99, ["n1", "n2", "n3", "n4"]);
  assert.equal(v.get("n2").plugin, "TaintToleration");
  assert.match(v.get("n2").title, /^TaintToleration: UnschedulableAndUnresolvable — node\(s\) had untolerated taint/);
  assert.equal(v.get("n4").plugin, undefined);
});

test("the legend counts the nodes per rejecting plugin, the most first", () => {
  const v = nodeVerdicts(cycle, 99, ["n1", "n2", "n3", "n4"]);
  const models = ["n1", "n2", "n3", "n4"].map((name) => ({ name, verdict: v.get(name) }));
  assert.deepEqual(rejectionCounts(models), [["NodeAffinity", 2], ["TaintToleration", 1]]);
});
