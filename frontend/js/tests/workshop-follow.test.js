// The attendee page's model of the followed run, and the live socket's snapshot merging.
import assert from "node:assert/strict";
import { test } from "node:test";

import { FollowModel } from "../workshop/follow-model.js";
import { LiveSocket, mergePart } from "../workshop/live.js";

const snapshot = {
  type: "snapshot",
  run: { id: 1, cycle_count: 1, pods_bound: 1, status: "paused" },
  cycles: [{ index: 0, pod: "d/a", outcome: "Bound", node: "n1" }],
  state: { bindings: { "d/a": "n1" } },
};

test("a snapshot then batches give counts, bindings and the newest cycle first", () => {
  const m = new FollowModel();
  assert.equal(m.apply(snapshot), true);
  m.apply({ type: "batch", events: [
    { kind: "cycle", index: 1, pod: "d/b", outcome: "Bound", node: "n2" },
    { kind: "progress", cycles: 2, podsBound: 2, status: "paused" }] });
  assert.deepEqual(m.counts(5), { cycles: 2, bound: 2, pending: 3 });
  assert.deepEqual(m.bindings, { "d/a": "n1", "d/b": "n2" });
  assert.deepEqual(m.recent().map((c) => c.index), [1, 0]);
});

test("a concealed cycle shows no counts until a snapshot reveals them", () => {
  const m = new FollowModel();
  m.apply(snapshot);
  m.apply({ type: "batch", events: [
    { kind: "cycle", index: 1, pod: "d/b", hidden: true },
    { kind: "progress", cycles: 2, status: "paused", hidden: true }] });
  assert.equal(m.hidden, true);
  assert.deepEqual(m.counts(5), { cycles: 2, bound: null, pending: null });
  assert.equal(m.bindings["d/b"], undefined);
  m.apply({ ...snapshot, run: { ...snapshot.run, cycle_count: 2, pods_bound: 2 } });
  assert.equal(m.hidden, false);
  assert.deepEqual(m.counts(5), { cycles: 2, bound: 2, pending: 3 });
});

test("batches before the first snapshot are ignored", () => {
  const m = new FollowModel();
  assert.equal(m.apply({ type: "batch", events: [{ kind: "progress", cycles: 3 }] }), false);
  assert.deepEqual(m.counts(5), { cycles: null, bound: null, pending: null });
});

test("snapshot parts fill lists and maps at their path", () => {
  const snap = { cycles: [], state: { nodes: [], queues: { activeQ: [] } } };
  mergePart(snap, { path: ["state", "nodes"], items: [{ name: "n1" }] });
  mergePart(snap, { path: ["state", "nodes"], items: [{ name: "n2" }] });
  mergePart(snap, { path: ["state", "bindings"], items: { "d/a": "n1" } });
  assert.deepEqual(snap.state.nodes.map((n) => n.name), ["n1", "n2"]);
  assert.deepEqual(snap.state.bindings, { "d/a": "n1" });
});

test("a large trace arrives whole, whether its parts are pieces of text or maps to fill in", () => {
  const trace = { index: 4, pod: "d/p", filter: { n1: [], n2: [] }, score: { A: { n1: 1 } } };
  const got = [];
  const sock = new LiveSocket("/ws/x/", { onFrame: (f) => got.push(f) });
  const text = JSON.stringify(trace);
  sock.receive({ type: "cycle_detail", seq: 1, index: 4, parts: 2 });
  sock.receive({ type: "cycle_detail_part", seq: 2, index: 4, text: text.slice(0, 20) });
  sock.receive({ type: "cycle_detail_part", seq: 3, index: 4, text: text.slice(20) });
  sock.receive({ type: "cycle_detail", seq: 4, cycle: { index: 4, pod: "d/p", filter: {}, score: {} }, parts: 2 });
  sock.receive({ type: "cycle_detail_part", seq: 5, index: 4, path: ["filter"], items: trace.filter });
  sock.receive({ type: "cycle_detail_part", seq: 6, index: 4, path: ["score"], items: trace.score });
  assert.deepEqual(got.map((f) => [f.type, f.cycle]), [["cycle_detail", trace], ["cycle_detail", trace]]);
});
