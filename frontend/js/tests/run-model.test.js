// What a cycle's trace says: points, ordering of nodes, when the verdict came.
import assert from "node:assert/strict";
import { test } from "node:test";

import { POINT_LABELS } from "../config-model.js";
import { historyLabel } from "../run/header.js";
import {
  POINTS, POINT_INDEX, defaultPoint, endTime, filterOrder, verdictRank,
} from "../run/model.js";
import { VIRTUAL_FROM, windowOf } from "../run/virtual.js";

const ok = (plugin) => ({ plugin, code: "Success", reasons: [] });
const no = (plugin, why) => ({ plugin, code: "Unschedulable", reasons: [why] });

test("the trace's points carry the configuration's labels, in the order they run", () => {
  assert.equal(POINTS.length, 14);
  assert.deepEqual(POINTS.slice(6, 9).map((p) => p.label), ["Score", "NormalizeScore", "Reserve"]);
  for (const p of POINTS) assert.equal(p.label, POINT_LABELS[p.id]);
});

test("filter order: winner, feasible by total, rejected grouped by plugin (biggest first), not evaluated", () => {
  const cycle = {
    node: "n3",
    filter: {
      n1: [ok("A"), no("B", "too big")], n2: [ok("A"), ok("B")], n3: [ok("A"), ok("B")],
      n4: [no("A", "taint")], n5: [ok("A"), no("B", "too big")], n6: [ok("A"), ok("B")],
    },
    totalScore: { n2: 10, n3: 50, n6: 70 },
  };
  const order = filterOrder(cycle, ["n0", "n1", "n2", "n3", "n4", "n5", "n6"]);
  assert.deepEqual(order.feasible, ["n3", "n6", "n2"]);
  assert.deepEqual(order.groups.map((g) => [g.plugin, g.count, g.names]), [["B", 2, ["n1", "n5"]], ["A", 1, ["n4"]]]);
  assert.deepEqual(order.notEvaluated, ["n0"]);
});

test("verdict rank puts the interesting nodes first", () => {
  const ranks = ["selected", "feasible", "filtered", "skipped"].map((cls) => verdictRank({ cls }));
  assert.deepEqual(ranks, [...ranks].sort((a, b) => a - b));
  assert.equal(verdictRank(undefined), 5);
});

test("a Permit timeout is dated when it struck, not when the pod was popped", () => {
  const permit = [{ plugin: "Coscheduling", code: "Wait", timeout: 10 }];
  const timedOut = { time: 0, outcome: "Rejected", permit, message: 'rejected due to timeout after waiting 10s at plugin Coscheduling' };
  assert.equal(endTime(timedOut), 10);
  assert.equal(endTime({ ...timedOut, endTime: 7.5 }), 7.5, "the stream's endTime wins");
  assert.equal(endTime({ time: 3, outcome: "Bound" }), 3);
  assert.equal(endTime(null), null);
});

test("a whole cycle opens where its story is", () => {
  assert.equal(defaultPoint({ preemption: { nominatedNode: "n" } }), POINT_INDEX.postFilter);
  assert.equal(defaultPoint({ outcome: "Bound", score: { A: {} } }), POINT_INDEX.normalizeScore);
  assert.equal(defaultPoint({ outcome: null, points: { permit: [{ code: "Wait" }] } }), POINT_INDEX.permit);
  assert.equal(defaultPoint({ outcome: "Unschedulable", filter: {} }), POINT_INDEX.filter);
  assert.equal(defaultPoint(null), null);
});

test("the slider's label counts cycles by index, like the panel (not '#3 of 4')", () => {
  assert.equal(historyLabel(3, 3, 12.5, false), "cycle #3 of #0–#3 · t=12.5s · latest");
  assert.equal(historyLabel(0, 0, 0, false), "cycle #0 of #0 · t=0s · latest");
  assert.equal(historyLabel(1, 3, null, true), "cycle #1 of #0–#3 · history");
  assert.equal(historyLabel(-1, -1, null, false), "no cycles yet");
});

test("long tables draw a window of rows around the scroll position", () => {
  assert.deepEqual(windowOf(0, 5000), [0, 60]);
  assert.deepEqual(windowOf(28 * 1000, 5000), [990, 1050]);
  assert.deepEqual(windowOf(28 * 4990, 5000), [4980, 5000]);
  assert.ok(VIRTUAL_FROM > 60, "short tables are drawn whole");
});

test("filter order does not give the winner away before Score", () => {
  const cycle = { node: "n2", filter: { n1: [ok("A")], n2: [ok("A")] }, totalScore: { n1: 1, n2: 9 } };
  assert.deepEqual(filterOrder(cycle, ["n1", "n2"], { ranked: false }).feasible, ["n1", "n2"]);
  assert.deepEqual(filterOrder(cycle, ["n1", "n2"]).feasible, ["n2", "n1"]);
});
