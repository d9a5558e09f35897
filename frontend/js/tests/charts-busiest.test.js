// The per-node chart keeps the busiest nodes: its legend is DOM, a row per series.
import assert from "node:assert/strict";
import { test } from "node:test";

import { busiest } from "../charts-data.js";

test("only the series that peak highest are kept, in their order", () => {
  const series = { labels: ["a", "b", "c", "d"], data: [[0, 1], [10, 20], [90, null], [null, null], [50, 60]] };
  assert.deepEqual(busiest(series, 2), { labels: ["b", "d"], data: [[0, 1], [90, null], [50, 60]] });
  assert.equal(busiest(series, 9), series);
});
