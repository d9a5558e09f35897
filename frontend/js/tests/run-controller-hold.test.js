// A single step (c, n) is drawn once: what comes before its cycle's trace (the key, the ack,
// the batch) waits for the trace, or for STEP_HOLD_MS when no trace comes.
import assert from "node:assert/strict";
import { mock, test } from "node:test";

globalThis.location = { protocol: "http:", host: "test" };
const { RunController } = await import("../run/controller.js");

const CYCLE = { index: 0, pod: "default/a", outcome: "Bound", node: "n1", time: 0 };

function steppable() {
  const controller = new RunController(1);
  Object.defineProperty(controller.socket, "open", { value: true });
  controller.socket.send = () => true;
  const drawn = [];
  controller.subscribe((c) => drawn.push({ latest: c.store.latest, full: c.store.hasDetail(0) }));
  const frame = (f) => controller.socket.receive(JSON.stringify(f));
  return { controller, drawn, frame };
}

test("a step's key, ack and batch wait for its trace: one drawing, with the trace", async () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  try {
    const { controller, drawn, frame } = steppable();
    const stepping = controller.step();
    frame({ type: "ack", seq: 1, action: "step", run: { status: "running" } });
    frame({ type: "batch", seq: 2, events: [{ kind: "cycle", ...CYCLE }] });
    await Promise.resolve();
    assert.deepEqual(drawn, []);
    frame({ type: "cycle_detail", seq: 3, cycle: CYCLE });
    assert.deepEqual(drawn[0], { latest: 0, full: true });
    await stepping;
  } finally {
    mock.timers.reset();
  }
});

test("a step that brings no trace is drawn once the hold is over", () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  let now = 1000;
  mock.method(performance, "now", () => now);
  try {
    const { controller, drawn, frame } = steppable();
    controller.step();
    frame({ type: "ack", seq: 1, action: "step", run: { status: "finished" } });
    assert.deepEqual(drawn, []);
    now += 250;
    mock.timers.tick(250);
    assert.equal(drawn.length, 1);
  } finally {
    mock.reset();
    mock.timers.reset();
  }
});

test("a refused step is drawn at once", () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  try {
    const { controller, drawn, frame } = steppable();
    controller.step();
    frame({ type: "error", seq: 1, action: "step", code: "busy", message: "run is busy" });
    assert.notEqual(drawn.length, 0);
    assert.equal(controller.message.text, "run is busy");
  } finally {
    mock.timers.reset();
  }
});
