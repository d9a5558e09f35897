import assert from "node:assert/strict";
import { test } from "node:test";

import {
  historyMarks, nodeSeries, pendingSeries, pluginTotals, timingSeries, utilizationSeries,
} from "../charts-data.js";

const samples = [
  { time: 0, pending: 2, nodes: { a: { cpu: [500, 1000], memory: [0, 10], pods: [1, 10] } } },
  { time: 30, pending: 0, nodes: {
    a: { cpu: [1000, 1000], memory: [5, 10], pods: [2, 10] },
    b: { cpu: [0, 1000], memory: [0, 10], pods: [0, 10] } } },
];

test("cluster utilization sums the nodes", () => {
  const { labels, data } = utilizationSeries(samples);
  assert.deepEqual(labels, ["cpu", "memory", "pods"]);
  assert.deepEqual(data, [[0, 30], [50, 50], [0, 25], [10, 10]]);
});

test("a node that joins later has a gap before it", () => {
  const { labels, data } = nodeSeries(samples, "cpu");
  assert.deepEqual(labels, ["a", "b"]);
  assert.deepEqual(data, [[0, 30], [50, 100], [null, 0]]);
});

test("pending pods over time", () => {
  assert.deepEqual(pendingSeries(samples).data, [[0, 30], [2, 0]]);
});

test("timings per extension point and per plugin", () => {
  const timings = [{ cycle: 0, micros: { "filter/A": 5, "filter/B": 3, "score/A": 2 } },
                   { cycle: 1, micros: { "filter/A": 1 } }];
  assert.deepEqual(timingSeries(timings), { labels: ["filter", "score"],
                                            data: [[0, 1], [8, 1], [2, 0]] });
  assert.deepEqual(pluginTotals(timings).map((t) => [t.key, t.micros]),
                   [["filter/A", 6], ["filter/B", 3], ["score/A", 2]]);
});

test("history marks come from steps and pod events", () => {
  const marks = historyMarks({
    steps: [{ cycle: 3, time: 60, action: "NodeNotReady", outcome: "NodeUpdate" }],
    podEvents: [{ cycle: 9, time: 360, pod: "default/web-x", event: "evicted by taint manager" }],
  });
  assert.deepEqual(marks.map((m) => [m.cycle, m.kind]), [[3, "step"], [9, "pod"]]);
});
