// The run view's history model: records, placement at a viewed position, pod events.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  applyPodEvent, cycleRecord, livePlacement, nominations, permitWaiters, rebuiltPlacement,
  utilization, victimEnds,
} from "../run/history.js";
import { POINT_INDEX, WHOLE } from "../run/model.js";

const meta = {
  nodes: {
    "node-a": { labels: {}, taints: [], allocatable: { cpu: 4000, memory: 8, pods: 10 } },
    "node-b": { labels: {}, taints: [], allocatable: { cpu: 2000, memory: 4, pods: 10 } },
  },
  pods: {
    "default/old": { requests: { cpu: 1000, memory: 1 }, node: "node-b", grace: 30 },
    "default/p1": { requests: { cpu: 500, memory: 1 }, node: null, grace: 30 },
    "default/p2": { requests: { cpu: 1000, memory: 2 }, node: null, grace: 30 },
    "default/hi": { requests: { cpu: 2000, memory: 1 }, node: null, grace: 30 },
  },
};

const records = [
  [0, 0, "default/p1", "Bound", "node-a", null],
  [1, 1, "default/p2", "Unschedulable", null, null],
  [2, 2, "default/hi", "Unschedulable", null, { nominatedNode: "node-b", victims: ["default/old"] }],
  [3, 40, "default/hi", "Bound", "node-b", null],
].map(cycleRecord);

test("a timeline row becomes a record with named fields", () => {
  assert.deepEqual(cycleRecord([5, 1.5, "ns/p", "Bound", "n1", null]),
    { index: 5, time: 1.5, pod: "ns/p", outcome: "Bound", node: "n1", preemption: null });
  assert.deepEqual(cycleRecord([6, 2, "ns/q", null, null, null]).outcome, null);
});

test("history: pods bound up to the viewed cycle, with their requests", () => {
  const at0 = rebuiltPlacement({ meta, records, index: 0, cycle: records[0], cursor: WHOLE });
  assert.deepEqual(at0.get("node-a").pods, [{ pod: "default/p1", terminating: false }]);
  assert.deepEqual(at0.get("node-a").resources.cpu, [500, 4000]);
  assert.deepEqual(at0.get("node-a").resources.pods, [1, 10]);
  assert.deepEqual(at0.get("node-b").pods, [{ pod: "default/old", terminating: false }]);
});

test("history: walking the binding cycle, the pod is not on its node before Reserve", () => {
  const walking = rebuiltPlacement({ meta, records, index: 0, cycle: records[0], cursor: POINT_INDEX.score });
  assert.deepEqual(walking.get("node-a").pods, []);
  const reserved = rebuiltPlacement({ meta, records, index: 0, cycle: records[0], cursor: POINT_INDEX.reserve });
  assert.equal(reserved.get("node-a").pods.length, 1);
});

test("history: a victim terminates during its grace period, then is gone", () => {
  const at2 = rebuiltPlacement({ meta, records, index: 2, cycle: records[2], cursor: WHOLE });
  assert.deepEqual(at2.get("node-b").pods, [{ pod: "default/old", terminating: true }]);
  // Before PostFilter of the preempting cycle the victim is not touched yet.
  const early = rebuiltPlacement({ meta, records, index: 2, cycle: records[2], cursor: POINT_INDEX.filter });
  assert.deepEqual(early.get("node-b").pods, [{ pod: "default/old", terminating: false }]);
  const at3 = rebuiltPlacement({ meta, records, index: 3, cycle: records[3], cursor: WHOLE });
  assert.deepEqual(at3.get("node-b").pods.map((p) => p.pod), ["default/hi"]);
  assert.deepEqual(victimEnds(records, meta, 3).get("default/old"), { by: "default/hi", end: 32 });
});

test("live placement: a node the partial state left out is rebuilt, not undefined", () => {
  // The state of a large cluster carries only some nodes (the issue: placement() threw).
  const live = new Map([["node-a", { name: "node-a", resources: { cpu: [500, 4000], pods: [1, 10] }, pods: [{ pod: "default/p1", terminating: false }] }]]);
  const out = livePlacement({ meta, live, records, index: 1, cycle: records[1], cursor: WHOLE });
  assert.deepEqual([...out.keys()], ["node-a", "node-b"]);
  assert.deepEqual(out.get("node-b").pods, [{ pod: "default/old", terminating: false }]);
  assert.deepEqual(out.get("node-b").resources.cpu, [1000, 2000]);
  assert.deepEqual(out.get("node-a").resources.cpu, [500, 4000]);
});

test("live placement: the walked cycle's pod leaves its node and its usage before Reserve", () => {
  const live = new Map([["node-a", { name: "node-a", resources: { cpu: [500, 4000], pods: [1, 10] }, pods: [{ pod: "default/p1", terminating: false }] }],
    ["node-b", { name: "node-b", resources: { cpu: [1000, 2000], pods: [1, 10] }, pods: [{ pod: "default/old", terminating: false }] }]]);
  const out = livePlacement({ meta, live, records, index: 0, cycle: records[0], cursor: POINT_INDEX.filter });
  assert.deepEqual(out.get("node-a").pods, []);
  assert.deepEqual(out.get("node-a").resources.cpu, [0, 4000]);
  assert.deepEqual(live.get("node-a").resources.cpu, [500, 4000], "the live state is not changed");
});

test("pod events move usage on live nodes; unknown nodes are ignored", () => {
  const live = new Map([["node-a", { name: "node-a", resources: { cpu: [0, 4000], pods: [0, 10] }, pods: [] }]]);
  assert.equal(applyPodEvent(live, meta, { event: "bound", pod: "default/p2", node: "node-a" }), true);
  assert.deepEqual(live.get("node-a").resources.cpu, [1000, 4000]);
  applyPodEvent(live, meta, { event: "preempted", pod: "default/p2", node: "node-a" });
  assert.equal(live.get("node-a").pods[0].terminating, true);
  applyPodEvent(live, meta, { event: "deleted", pod: "default/p2", node: "node-a" });
  assert.deepEqual(live.get("node-a").resources.cpu, [0, 4000]);
  assert.equal(applyPodEvent(live, meta, { event: "bound", pod: "default/p2", node: "node-zz" }), false);
});

test("nominations, Permit waiters and utilization from the queues and usage", () => {
  const queues = {
    activeQ: [{ pod: "default/hi", nominatedNode: "node-b" }],
    waitingOnPermit: [{ pod: "default/p2", node: "node-a", plugins: { Coscheduling: 10 } }],
  };
  assert.deepEqual([...nominations(queues)], [["node-b", ["default/hi"]]]);
  assert.equal(permitWaiters(queues).get("default/p2").node, "node-a");
  assert.equal(utilization({ cpu: [1000, 4000], memory: [3, 4] }), 0.75);
  assert.equal(utilization({}), 0);
});
