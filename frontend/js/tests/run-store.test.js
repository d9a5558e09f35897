// The run store: summaries, traces, late Permit cycles, resets, partial states, seeking.
import assert from "node:assert/strict";
import { test } from "node:test";

import { WHOLE } from "../run/model.js";
import { nodeModels } from "../run/node-models.js";
import { RunStore } from "../run/store.js";

const meta = {
  nodes: {
    n1: { labels: { "topology.kubernetes.io/zone": "a" }, taints: [], allocatable: { cpu: 1000, pods: 10 } },
    n2: { labels: {}, taints: [{ key: "k", value: "v", effect: "NoSchedule" }], allocatable: { cpu: 1000, pods: 10 } },
  },
  pods: { "d/p": { requests: { cpu: 100 }, node: null }, "d/q": { requests: { cpu: 200 }, node: null } },
};

function store() {
  const s = new RunStore();
  s.setMeta(meta);
  return s;
}

test("a late summary (the Permit wait ended) replaces an out-of-date trace", () => {
  const s = store();
  s.takeSummary({ index: 0, time: 0, pod: "d/p", outcome: null, node: "n1" });
  s.remember({ index: 0, time: 0, pod: "d/p", outcome: null, node: "n1", permit: [{ code: "Wait", timeout: 10 }] });
  assert.ok(s.hasDetail(0));
  s.takeSummary({ index: 0, time: 0, pod: "d/p", outcome: "Rejected", node: "n1", endTime: 10, late: true });
  assert.ok(!s.hasDetail(0));
  assert.equal(s.cycle(0).outcome, "Rejected");
  // The trace fetched again learns when the wait ended from the summary.
  s.remember({ index: 0, time: 0, pod: "d/p", outcome: "Rejected", node: "n1" });
  assert.equal(s.cycle(0).endTime, 10);
});

test("timeline rows, seeking and history", () => {
  const s = store();
  s.setTimeline([[0, 0, "d/p", "Bound", "n1", null], [1, 1, "d/q", "Unschedulable", null, null]]);
  assert.equal(s.latest, 1);
  assert.equal(s.viewed, 1);
  assert.ok(s.seek(0));
  assert.ok(s.inHistory);
  assert.equal(s.cycle(s.viewed).pod, "d/p");
  assert.ok(!s.seek(5));
  s.seek(1);
  assert.equal(s.viewIndex, null, "the latest cycle follows new ones");
  assert.deepEqual(s.attempts("d/q").map((r) => r.index), [1]);
});

test("a reset forgets every cycle and the walk", () => {
  const s = store();
  s.setTimeline([[0, 0, "d/p", "Bound", "n1", null]]);
  s.cursor = 3;
  s.truncate(0);
  assert.equal(s.latest, -1);
  assert.equal(s.cursor, WHOLE);
  assert.equal(s.cycle(0), null);
  assert.deepEqual(s.history, []);
});

test("a state that carries only some nodes still yields a model for every node", () => {
  const s = store();
  s.setTimeline([[0, 0, "d/p", "Bound", "n2", null]]);
  const behind = s.applyState({ time: 0, cycles: 3, nodes: [{ name: "n1", resources: { cpu: [0, 1000], pods: [0, 10] }, pods: [] }], queues: {}, bindings: {} });
  assert.equal(behind, true, "the state is ahead of the timeline: reload it");
  const models = nodeModels(s, s.cycle(0));
  assert.deepEqual(models.map((m) => m.name), ["n1", "n2"]);
  assert.deepEqual(models[1].pods.map((p) => p.pod), ["d/p"]);
  assert.deepEqual(models[1].tags, [{ cls: "taint", title: "taint k=v:NoSchedule", text: "k=v:NoSchedule" }]);
  assert.deepEqual(models[0].tags, [{ cls: "zone", title: "topology.kubernetes.io/zone=a", text: "zone a" }]);
  assert.match(models[1].title, /taints:\n {2}k=v:NoSchedule/);
});

test("a pod waiting on Permit does not look bound", () => {
  const s = store();
  s.applyState({
    time: 1, cycles: 1, bindings: {},
    nodes: [{ name: "n1", resources: { cpu: [100, 1000], pods: [1, 10] }, pods: [{ pod: "d/p", terminating: false }] },
      { name: "n2", resources: { cpu: [0, 1000], pods: [0, 10] }, pods: [] }],
    queues: { waitingOnPermit: [{ pod: "d/p", node: "n1", plugins: { Coscheduling: 9 } }] },
  });
  s.takeSummary({ index: 0, time: 0, pod: "d/p", outcome: null, node: "n1", points: { permit: [{ plugin: "Coscheduling", code: "Wait" }] } });
  const [n1] = nodeModels(s, s.cycle(0));
  assert.equal(n1.pods[0].cls, "waiting");
  assert.match(n1.pods[0].title, /waiting on Permit/);
});

test("a cycle known by its summary marks only the selected node (no per-node verdicts yet)", () => {
  const s = store();
  s.takeSummary({ index: 0, time: 0, pod: "d/p", outcome: "Bound", node: "n2", filter: { feasible: 2, rejected: {} } });
  const models = nodeModels(s, s.cycle(0));
  assert.equal(models[0].verdict, undefined);
  assert.equal(models[1].verdict.cls, "selected");
});

test("cards rank by verdict: the selected node, then feasible, then filtered, then the rest", () => {
  const s = store();
  s.remember({
    index: 0, time: 0, pod: "d/p", outcome: "Bound", node: "n2",
    filter: { n1: [{ plugin: "TaintToleration", code: "Unschedulable", reasons: ["taint"] }], n2: [{ plugin: "NodeResourcesFit", code: "Success" }] },
  });
  const ranks = Object.fromEntries(nodeModels(s, s.cycle(0)).map((m) => [m.name, m.rank]));
  assert.ok(ranks.n2 < ranks.n1, JSON.stringify(ranks));
  const streaming = nodeModels(s, s.cycle(0), { running: true });
  assert.deepEqual(streaming.map((m) => m.rank), [0, 0], "no reordering while a run streams by");
});

test("a node a paused run's timeline added joins the grid from the engine state, after the others", () => {
  const s = store();
  const added = { name: "n3", resources: { cpu: [0, 4000], memory: [0, 8589934592], pods: [0, 110] }, pods: [] };
  s.applyState({ cycles: 0, nodes: [{ name: "n1", resources: {}, pods: [] }, added] });
  assert.deepEqual(s.nodeNames, ["n1", "n2", "n3"]);
  assert.deepEqual(s.meta.nodes.n3.allocatable, { cpu: 4000, memory: 8589934592, pods: 110 });
  assert.equal(nodeModels(s, null).length, 3);
  // A state without new nodes leaves the objects as they are.
  const before = s.meta;
  s.applyState({ cycles: 0, nodes: [added] });
  assert.equal(s.meta, before);
});

test("a node a timeline added shows the labels and taints its manifest gave it", () => {
  const s = new RunStore();
  s.setMeta({ ...meta, addedNodes: { n3: { labels: { "topology.kubernetes.io/zone": "c", gpu: "a100" },
    taints: [{ key: "gpu", value: "only", effect: "NoSchedule" }], unschedulable: false, allocatable: { cpu: 1, pods: 1 }, volumes: [] } } });
  s.applyState({ cycles: 0, nodes: [{ name: "n3", resources: { cpu: [0, 4000], pods: [0, 110] }, pods: [] }] });
  assert.deepEqual(s.meta.nodes.n3.labels, { "topology.kubernetes.io/zone": "c", gpu: "a100" });
  assert.deepEqual(s.meta.nodes.n3.allocatable, { cpu: 4000, pods: 110 }, "allocatable from the state");
  const tags = nodeModels(s, null).find((m) => m.name === "n3").tags.map((t) => t.text).join(" ");
  assert.match(tags, /a100/);
  assert.match(tags, /gpu=only:NoSchedule|NoSchedule/);
});
