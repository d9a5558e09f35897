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
