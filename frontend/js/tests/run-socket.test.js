// Frames the server split (a large snapshot or cycle trace) are put back together.
import assert from "node:assert/strict";
import { test } from "node:test";

import { RunSocket, fill } from "../run/socket.js";

test("parts fill their path: a whole map first, then the pieces inside it", () => {
  const trace = { index: 4, score: {}, filter: {} };
  fill(trace, { path: ["score"], items: { A: {}, B: { n9: 1 } } });
  fill(trace, { path: ["score", "A"], items: { n1: 1 } });
  fill(trace, { path: ["score", "A"], items: { n2: 2 } });
  fill(trace, { path: ["filter"], items: { n1: [] } });
  assert.deepEqual(trace, { index: 4, score: { A: { n1: 1, n2: 2 }, B: { n9: 1 } }, filter: { n1: [] } });
});

test("a cycle_detail in parts resolves once every piece of its text has come", async () => {
  const sock = new RunSocket("ws://unused", {});
  const got = new Promise((resolve) => sock.pendingDetails.set(4, [resolve]));
  const text = JSON.stringify({ index: 4, filter: { a: [], b: ['say "hi"'] } });
  sock.receive(JSON.stringify({ type: "cycle_detail", seq: 1, index: 4, parts: 2 }));
  sock.receive(JSON.stringify({ type: "cycle_detail_part", seq: 2, index: 4, text: text.slice(0, 17) }));
  assert.equal(sock.pendingDetails.has(4), true, "not yet: one part is missing");
  sock.receive(JSON.stringify({ type: "cycle_detail_part", seq: 3, index: 4, text: text.slice(17) }));
  assert.deepEqual(await got, { index: 4, filter: { a: [], b: ['say "hi"'] } });
});

test("a frame missing from the stream is reported and the connection started again", () => {
  const gaps = [];
  const batches = [];
  const sock = new RunSocket("ws://unused", { gap: (last, got) => gaps.push([last, got]), batch: (m) => batches.push(m.seq) });
  let closed = 0;
  sock.ws = { close: () => { closed += 1; } };
  sock.lastSeq = 0;
  sock.receive(JSON.stringify({ type: "batch", seq: 1, events: [] }));
  sock.receive(JSON.stringify({ type: "batch", seq: 2, events: [] }));
  sock.receive(JSON.stringify({ type: "batch", seq: 5, events: [] }));
  assert.deepEqual(gaps, [[2, 5]]);
  assert.deepEqual(batches, [1, 2]);
  assert.equal(closed, 1);
});

test("a stream that starts over from frame 1 (a new run followed) is no gap", () => {
  const gaps = [];
  const sock = new RunSocket("ws://unused", { gap: () => gaps.push(1), batch: () => {} });
  sock.lastSeq = 0;
  for (const seq of [1, 2, 3, 1, 2]) sock.receive(JSON.stringify({ type: "batch", seq, events: [] }));
  assert.deepEqual(gaps, []);
});
