// QueueSort and PreEnqueue in the run view come from the engine's recorded entries.
import assert from "node:assert/strict";
import { test } from "node:test";

import { pointState } from "../run/model.js";

const queueSort = {
  plugin: "PrioritySort", from: "activeQ", runnerUp: "default/b", criterion: "priority",
  why: "priority 100 > 10",
};
const preEnqueue = [{ plugin: "SchedulingGates", code: "Success", reasons: [] }];

test("QueueSort says which comparison made the pod the head of activeQ", () => {
  const st = pointState({ pod: "default/a", queueSort, preEnqueue }, "queueSort");
  assert.equal(st.note, "PrioritySort: priority 100 > 10.");
});

test("PreEnqueue names the gates the pod passed", () => {
  const st = pointState({ pod: "default/a", queueSort, preEnqueue }, "preEnqueue");
  assert.equal(st.note, "Passed SchedulingGates on its way into activeQ.");
});

test("a cycle recorded without the queue's entries keeps the generic text", () => {
  assert.equal(pointState({ pod: "default/a" }, "queueSort").note,
    "The pod was the head of activeQ.");
});
