// Compare's differences between two sides, each every profile of its configuration.
import assert from "node:assert/strict";
import { test } from "node:test";

import { differences, scoreWeights } from "../compare-model.js";

const profile = (schedulerName, fitWeight, strategy = "LeastAllocated") => ({
  schedulerName,
  points: { filter: ["NodeResourcesFit"], score: ["NodeResourcesFit", "ImageLocality"] },
  weights: { NodeResourcesFit: fitWeight, ImageLocality: 1, NodeAffinity: 2 },
  pluginConfig: { NodeResourcesFit: { scoringStrategy: { type: strategy } } },
});

test("one profile a side: its differences, not named by profile", () => {
  assert.deepEqual(differences([profile("default-scheduler", 1)], [profile("default-scheduler", 5)]),
    ["weight of NodeResourcesFit: 1 · 5"]);
});

test("every profile of a side is compared, each line naming its profile", () => {
  const a = [profile("default-scheduler", 1), profile("batch", 1, "MostAllocated")];
  const b = [profile("default-scheduler", 1), profile("batch", 5, "LeastAllocated")];
  assert.deepEqual(differences(a, b), [
    "batch: weight of NodeResourcesFit: 1 · 5",
    'batch: args of NodeResourcesFit: {"scoringStrategy":{"type":"MostAllocated"}} · {"scoringStrategy":{"type":"LeastAllocated"}}',
  ]);
});

test("a profile only one side has is said", () => {
  assert.deepEqual(differences([profile("default-scheduler", 1), profile("batch", 1)], [profile("default-scheduler", 1)]),
    ["profile batch only in A"]);
});

test("only the plugins that score have a weight", () => {
  assert.deepEqual(scoreWeights(profile("default-scheduler", 3)), { NodeResourcesFit: 3, ImageLocality: 1 });
});
