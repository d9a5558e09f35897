// The run view's controller: talks to the server (the websocket first, REST when it has not
// said enough), keeps the store up to date and moves the viewer through the run.
//
// Its API is what the page and any presenter tooling use: step(), nextPoint(), run(speed),
// pause(), reset(), seek(index), focus(node), why(pod), and subscribe(fn) to hear about
// every change (fn gets the controller; the page renders from controller.store).
import { api } from "../api.js";
import { urls } from "../urls.js";
import { POINT_INDEX, WHOLE, walkable } from "./model.js";
import { NOT_FOUND, RunSocket } from "./socket.js";
import { RunStore } from "./store.js";

const STEP_TIMEOUT_MS = 6000;
const STATE_DELAY_MS = 600;
// How long a single step's changes (the key, its ack, its batch) wait for its cycle's trace
// before they are shown anyway.
const STEP_HOLD_MS = 250;

export class RunController {
  constructor(runId) {
    this.held = null; // hide until reveal: {index, upTo} (conceal)
    this.runId = runId;
    this.store = new RunStore();
    this.listeners = new Set();
    this.message = { text: "", kind: "" };
    this.connection = "connecting";
    this.running = false; // stepping in a loop from the page
    this.serverRun = false; // "as fast as possible": the server runs, the stream reports
    this.waiters = [];
    this.inflight = new Map();
    this.focusNode = null;
    this.whyPod = null;
    this.stateTimer = null;
    this.stateAt = 0;
    this.detailTimer = null;
    this.lastDetailAt = 0;
    this.holdUntil = 0; // a single step's cycle is on its way: changes wait for it until then
    this.holdTimer = null;
    this.viewLoaded = false;
    // The engine state comes over HTTP (/api/runs/<id>/view/, runs/api.py): the socket's snapshots leave it out.
    this.socket = new RunSocket(`${urls.runSocket(runId)}?state=0`, this.socketHandlers());
  }

  // --- listeners --------------------------------------------------------------------------

  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Tells the listeners. While a single step's trace is on its way (STEP_HOLD_MS at most),
   *  the changes before it wait: the page draws the step once, not at the key, the ack, the
   *  batch and the trace (each drawing lays the page out again, and they delay the next). */
  changed() {
    const wait = this.holdUntil - performance.now();
    if (wait > 0) {
      clearTimeout(this.holdTimer);
      this.holdTimer = setTimeout(() => this.changed(), wait);
      return;
    }
    clearTimeout(this.holdTimer);
    this.keepConcealed();
    for (const fn of this.listeners) fn(this);
  }

  /**
   * Hide until reveal (the presenter's projector): `held` {index, upTo} shows cycle `index`
   * walked up to point `upTo` (a POINT_INDEX: the last point the room may see) and no
   * further, however far the run goes meanwhile; the rest of the view stays as it is. null
   * lets go and shows that cycle whole.
   */
  conceal(held) {
    const S = this.store;
    const before = this.held;
    this.held = held;
    if (!held && before) {
      S.held = false;
      S.cursor = WHOLE;
      S.point = null;
      S.seek(before.index);
    }
    this.changed();
  }

  /** Keeps the view within what `held` lets the room see (earlier cycles stay free to view). */
  keepConcealed() {
    const S = this.store;
    const h = this.held;
    S.held = Boolean(h) && S.latest >= h.index && S.viewed >= h.index;
    if (!S.held) return;
    S.viewIndex = h.index;
    if (S.cursor > h.upTo) S.cursor = h.upTo;
    if (S.point !== null && S.point > h.upTo) S.point = null;
  }

  /** Changes wait no longer: the step's trace came, or nothing more is coming. */
  release() {
    this.holdUntil = 0;
    this.changed();
  }

  say(text, kind = "") {
    this.message = { text, kind };
    this.changed();
  }

  get isRunning() {
    return this.running || this.serverRun;
  }

  /** Whether the run is running as far as the buttons go (the server may be running it). */
  get busy() {
    return this.running || Boolean(this.store.run && this.store.run.status === "running");
  }

  // --- start ------------------------------------------------------------------------------

  /** One request for the whole first view (row, objects, cycles, every node's state); the
   *  socket connects meanwhile. */
  async start() {
    const S = this.store;
    this.socket.connect();
    try {
      const view = await this.firstView();
      S.setMeta(view.objects);
      S.setTimeline(view.timeline);
      this.applyView(view);
    } catch (err) {
      this.say(`Could not load the run: ${err.message}`, "error");
    }
    this.viewLoaded = true;
    this.changed();
  }

  /** The view the page asked for before its modules loaded (run.html), else a new request
   *  (which also words an error). */
  async firstView() {
    const early = window.runViewResponse;
    window.runViewResponse = null;
    const response = early ? await early.catch(() => null) : null;
    return response && response.ok ? response.json() : api.get(urls.runView(this.runId));
  }

  /** A view of the run (/api/runs/<id>/view/, runs/api.py): its row, last cycles and engine state. The socket
   *  may have said more meanwhile: an older row is not taken, an older state is fetched again. */
  applyView(view) {
    const S = this.store;
    if (!S.run || view.run.cycle_count >= S.run.cycle_count) this.applyRun(view.run, { live: false });
    for (const c of view.cycles || []) if (!S.summaries.has(c.index)) S.takeSummary(c);
    this.applyState(view.state);
    if (view.state && S.run && view.state.cycles < S.run.cycle_count) this.refreshState();
  }

  // --- run row and state ------------------------------------------------------------------

  applyRun(run, { live = true } = {}) {
    const S = this.store;
    if (!run) return;
    // A REST answer may predate the socket's latest word on a server-side run: keep the latter.
    if (!live && this.serverRun && run.status !== "finished") run = { ...run, status: S.run ? S.run.status : run.status };
    const was = S.run ? S.run.status : "";
    S.run = { ...(S.run || {}), ...run };
    // A server-side run ends when the stream says it left "running".
    if ((live || S.run.status === "finished") && this.serverRun && was === "running" && S.run.status && S.run.status !== "running") {
      this.serverRun = false;
      this.running = false;
      this.say(S.run.status === "finished" ? "The run has finished." : S.run.status === "failed" ? "" : "Paused.");
      this.refreshState(true);
    }
  }

  applyState(state) {
    if (this.store.applyState(state)) this.loadTimeline();
  }

  async loadTimeline() {
    try {
      const data = await api.get(urls.runHistory(this.runId));
      this.store.setTimeline(data.cycles);
      this.changed();
    } catch (err) {
      this.say(`Could not load the cycles: ${err.message}`, "error");
    }
  }

  /** The engine's state over HTTP, every node of it. Unless `now`, a moment later: a step's
   *  cycle detail goes first, and a run streaming by refreshes a few times a second at most. */
  refreshState(now = false) {
    clearTimeout(this.stateTimer);
    const wait = now ? 0 : Math.max(STATE_DELAY_MS, (this.isRunning ? 1500 : 0) - (performance.now() - this.stateAt));
    this.stateTimer = setTimeout(async () => {
      this.stateAt = performance.now();
      try {
        this.applyView(await api.get(urls.runView(this.runId, "state")));
        this.changed();
      } catch (err) {
        this.say(err.message, "error");
      }
    }, wait);
  }

  // --- cycle details ----------------------------------------------------------------------

  /** The full trace of cycle `index`: from the cache, the socket, or REST. */
  detail(index) {
    const S = this.store;
    if (S.details.has(index)) return Promise.resolve(S.details.get(index));
    if (this.inflight.has(index)) return this.inflight.get(index);
    const p = (async () => {
      let trace = null;
      for (let attempt = 0; attempt < 4 && !trace; attempt++) {
        if (index > S.latest) break; // reset meanwhile: the cycle is gone, do not ask REST
        const answer = await this.socket.detail(index);
        if (answer === NOT_FOUND) {
          // Not stored yet (or reset meanwhile): ask again shortly, never a 404 from REST.
          await new Promise((r) => setTimeout(r, 300 * (attempt + 1)));
          continue;
        }
        if (answer) {
          trace = answer;
          break;
        }
        if (index > S.latest) break;
        try {
          const body = await api.get(urls.runCycle(this.runId, index));
          trace = body.trace || body;
        } catch {
          break;
        }
      }
      if (trace && trace.index === undefined) trace.index = index;
      S.remember(trace);
      this.holdUntil = 0; // whoever waited for it shows it next
      this.inflight.delete(index);
      return trace || null;
    })();
    this.inflight.set(index, p);
    return p;
  }

  loading(index) {
    return this.inflight.has(index);
  }

  /** Whether cycle `index`'s full trace is on its way (asked for, or pushed after a step). */
  detailComing(index) {
    return this.inflight.has(index) || this.socket.awaiting(index);
  }

  /** Fetch the viewed cycle's trace; while running fast, a few times a second at most. */
  wantDetail() {
    const index = this.store.viewed;
    if (index < 0 || this.store.hasDetail(index) || this.inflight.has(index)) return;
    const wait = this.isRunning ? Math.max(0, 1000 - (performance.now() - this.lastDetailAt)) : 0;
    clearTimeout(this.detailTimer);
    this.detailTimer = setTimeout(async () => {
      this.lastDetailAt = performance.now();
      await this.detail(this.store.viewed);
      this.changed();
    }, wait);
  }

  // --- the socket -------------------------------------------------------------------------

  socketHandlers() {
    return {
      open: () => { this.connection = "live"; this.changed(); },
      close: () => { this.connection = "down"; this.release(); },
      snapshot: (m) => this.onSnapshot(m),
      gap: (last, got) => this.say(`Frames ${last + 1}–${got - 1} of the stream went missing: reconnecting for a fresh snapshot.`, "busy"),
      detail: (cycle) => {
        this.store.remember(cycle);
        this.resolveWaiters();
        this.release();
      },
      batch: (m) => {
        for (const ev of m.events || []) this.onEvent(ev);
        this.refreshState();
        this.changed();
      },
      message: (m) => {
        if (m.type === "notice") this.say(m.message, "busy");
        if (m.type === "ack") {
          this.applyRun(m.run);
          this.changed();
        }
      },
      error: (m) => {
        this.holdUntil = 0;
        this.say(m.message || m.detail || "error", "error");
        if (["step", "run", "reset"].includes(m.action)) {
          // The control was refused (busy, finished, forbidden): stop whatever waited on it.
          for (const w of this.waiters) w.resolve(false);
          this.waiters = [];
          this.running = false;
          this.serverRun = false;
        }
        this.resolveWaiters();
        this.changed();
      },
    };
  }

  onSnapshot(m) {
    const S = this.store;
    this.applyRun(m.run);
    // The snapshot is where the run is now (after a reset: at the start).
    const cycles = m.run && m.run.cycle_count;
    if (typeof cycles === "number" && cycles < S.latest + 1) S.truncate(cycles);
    for (const c of m.cycles || []) S.takeSummary(c);
    // Its engine state, if any, is capped; the whole one comes over HTTP (the first view
    // brings one of its own).
    this.applyState(m.state);
    if (this.viewLoaded && (!S.state || S.state.cycles !== cycles || (m.state && S.live.size < S.nodeNames.length))) this.refreshState(true);
    this.resolveWaiters();
    this.changed();
  }

  onEvent(ev) {
    const S = this.store;
    const data = ev.data && typeof ev.data === "object" ? ev.data : ev;
    if (ev.kind === "cycle") {
      S.takeSummary(data);
      this.resolveWaiters();
    } else if (ev.kind === "pod") {
      this.store.applyPodEvent(data);
    } else if (ev.kind === "refill") {
      // The server's stream lost messages (a slow channel layer): it resent the cycles.
      this.say(`The stream missed cycles #${ev.from}–#${ev.to - 1}: ${ev.refilled} refilled from the stored run.`, "busy");
    } else if (ev.kind === "progress") {
      this.applyRun(data.run || data);
      if (data.state) this.applyState(data.state);
      this.resolveWaiters();
    }
  }

  // --- controls ---------------------------------------------------------------------------

  resolveWaiters() {
    const keep = [];
    for (const w of this.waiters) {
      if (this.store.latest > w.after || this.store.finished) w.resolve(true);
      else keep.push(w);
    }
    this.waiters = keep;
  }

  /** Send a control; over the socket when it is up, else through REST. */
  async control(action, cycles, extra = {}) {
    const body = cycles ? { action, cycles, ...extra } : { action, ...extra };
    if (this.socket.send(body)) return;
    let rest = action;
    if (action === "run") rest = this.store.run && this.store.run.status === "paused" ? "resume" : "start";
    await api.post(urls.runAction(this.runId, rest), cycles ? { cycles } : {});
    this.refreshState(true);
  }

  /** One engine cycle; resolves when the cycle has arrived (or the run is over). With
   *  `detail`, the server sends the cycle's trace right after it, unasked. */
  stepEngine({ detail = false } = {}) {
    const after = this.store.latest;
    return new Promise((resolve) => {
      const w = { after, resolve };
      this.waiters.push(w);
      if (detail) {
        // A single step from the keys: the state refresh of the previous one waits until the
        // stepping pauses, so that it does not hold up this one's cycle and trace.
        clearTimeout(this.stateTimer);
        if (this.socket.open) {
          this.socket.expectDetail(after + 1, STEP_TIMEOUT_MS);
          this.holdUntil = performance.now() + STEP_HOLD_MS;
        }
      }
      this.control("step", 1, detail ? { detail: true } : {}).catch((err) => { this.say(err.message, "error"); resolve(false); });
      setTimeout(async () => {
        if (!this.waiters.includes(w)) return;
        // No event in time: ask REST what happened.
        await this.loadTimeline();
        this.refreshState(true);
        this.waiters = this.waiters.filter((x) => x !== w);
        resolve(this.store.latest > after);
      }, STEP_TIMEOUT_MS);
    });
  }

  refuseFinished(what = "Reset to start again.") {
    if (!this.store.finished) return false;
    this.say(`The run has finished: nothing left to schedule. ${what}`);
    return true;
  }

  /** The next cycle, shown whole: the next one in history, or a new one from the engine. */
  async step() {
    const S = this.store;
    S.point = null;
    if (S.inHistory) {
      S.seek(S.viewIndex + 1);
      this.changed();
      return;
    }
    if (this.refuseFinished()) return;
    S.viewIndex = null;
    S.cursor = WHOLE;
    const stepped = this.stepEngine({ detail: true });
    this.say("Scheduling one cycle…", "busy");
    const ok = await stepped;
    if (ok) this.say("");
    else if (this.message.kind !== "error") this.say(S.finished ? "The run has finished." : "No new cycle.");
    this.changed();
    this.refreshState();
  }

  /** The next extension point of the viewed cycle; past its end, the next cycle's first. */
  async nextPoint() {
    const S = this.store;
    const cycle = S.cycle(S.viewed);
    if (cycle && S.cursor < WHOLE) {
      const next = walkable(cycle).find((i) => i > S.cursor);
      // At the last point the finished cycle shows whole before the walk moves on.
      S.cursor = next === undefined ? WHOLE : next;
      S.point = next === undefined ? null : next;
      this.changed();
      return;
    }
    if (S.inHistory) {
      S.viewIndex += 1;
      if (S.viewIndex >= S.latest) S.viewIndex = null;
    } else {
      if (this.refuseFinished()) return;
      S.viewIndex = null;
      const before = S.latest;
      const stepped = this.stepEngine({ detail: true });
      this.say("Scheduling one cycle…", "busy");
      await stepped;
      if (S.latest > before) this.say("");
      else if (this.message.kind !== "error") this.say("The run has finished.");
      if (S.latest === before) return;
    }
    S.cursor = POINT_INDEX.queueSort;
    S.point = S.cursor;
    this.changed();
    await this.detail(S.viewed);
    this.changed();
  }

  /** Run to the end: stepping every `speed` ms, or (speed 0) on the server. */
  async run(speed) {
    const S = this.store;
    if (this.running) return;
    if (this.refuseFinished("Reset to run it again.")) return;
    this.running = true;
    S.seek(S.latest);
    this.say("Running…", "busy");
    try {
      if (speed === 0) {
        this.serverRun = true;
        await this.control("run");
        S.run = { ...S.run, status: "running" };
        return; // progress events and state refreshes take it from here
      }
      while (this.running && !S.finished) {
        const started = performance.now();
        if (!(await this.stepEngine())) break;
        const wait = speed - (performance.now() - started);
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
      this.running = false;
      this.say(S.finished ? "The run has finished." : "Paused.");
    } catch (err) {
      this.running = false;
      this.say(err.message, "error");
    }
    this.refreshState(true);
  }

  async pause() {
    const serverRun = this.serverRun || (this.store.run && this.store.run.status === "running");
    this.running = false;
    this.serverRun = false;
    if (serverRun) await this.control("pause").catch((err) => this.say(err.message, "error"));
    this.say("Paused.");
    this.refreshState(true);
  }

  async reset() {
    const S = this.store;
    // A run is often watched by others (a workshop, a shared cluster): never reset by accident.
    if (!confirm("Reset this run to the start? Everyone watching it goes back to cycle 0.")) return;
    this.running = false;
    this.say("Resetting…", "busy");
    try {
      await this.control("reset");
    } catch (err) {
      this.say(err.message, "error");
      return;
    }
    S.truncate(0);
    S.summaries.clear();
    S.details.clear();
    this.whyPod = null;
    // The reset task runs in the background: ask again shortly.
    setTimeout(() => { this.refreshState(true); this.loadTimeline(); }, 400);
    setTimeout(() => { this.refreshState(true); this.say("Reset: back to the start."); }, 1200);
    this.changed();
  }

  seek(index) {
    if (this.store.seek(index)) this.changed();
  }

  /** Walk-view clicks: while walking a cycle the walk moves there; on a whole cycle only the
   *  point whose detail is shown changes (the outcome stays in view). */
  showPoint(i) {
    const S = this.store;
    if (S.cursor < WHOLE) S.cursor = i;
    S.point = i;
    this.changed();
  }

  focus(name) {
    this.focusNode = name;
    this.changed();
  }

  why(pod) {
    this.whyPod = pod;
    this.changed();
  }
}
