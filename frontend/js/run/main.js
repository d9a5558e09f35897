// The run view: nodes, queues, the current cycle point by point, controls, history, "why".
//
// Sources: the websocket (snapshot on connect, batched cycle/queue/pod/progress events, cycle
// detail on request), REST for the run's state and cycles when the socket has not said enough,
// and the page helpers for the run's objects (tooltips, history placement) and its compact
// cycle list (history slider). Rendering is batched into one animation frame.
import { api } from "../api.js";
import { urls } from "../urls.js";
import { $, el, fmtTime, rafBatch, setStatus } from "../util.js";
import { CyclePanel } from "./detail.js";
import { POINT_INDEX, WHOLE, nodeVerdicts, walkable } from "./model.js";
import { NodeGrid } from "./nodes.js";
import { QueuesView } from "./queues.js";
import { NOT_FOUND, RunSocket } from "./socket.js";
import { explain } from "./why.js";

const root = $("#run-view");
const runId = Number(root.dataset.run);
const msg = $("#run-msg");
const DETAIL_CACHE = 300;

const S = {
  run: null,
  state: null,
  nodes: new Map(), // name -> {name, resources, pods: [{pod, terminating}]}
  nodeOrder: [],
  meta: { nodes: {}, pods: {} },
  search: new Map(),
  rows: [], // [index, time, pod, outcome, node, preemption]
  summaries: new Map(),
  details: new Map(),
  latest: -1,
  viewIndex: null, // null: follow the latest cycle
  cursor: WHOLE, // how far into the viewed cycle the walk has got
  point: null, // the point whose detail is shown (null: a sensible default)
  focusNode: null,
  running: false,
  serverRun: false,
  waiters: [],
  whyPod: null,
};

const grid = new NodeGrid($("#nodes-grid"), { onSelect: (name) => focusNode(name === S.focusNode ? null : name) });
const queues = new QueuesView($("#queues"), { onPick: (pod) => whyPending(pod) });
const panel = new CyclePanel({
  title: $("#cycle-title"), summary: $("#cycle-summary"), message: $("#cycle-message"),
  timeline: $("#timeline"), detail: $("#point-detail"), focus: $("#node-focus"),
}, {
  // While walking a cycle, a click moves the walk there; on a cycle shown whole it only picks
  // the point whose detail to show (the outcome stays in view).
  onPoint: (i) => { if (S.cursor < WHOLE) S.cursor = i; S.point = i; render(); },
  onJump: (index) => jump(index),
  onPod: (pod) => whyPending(pod),
  onNode: (name) => focusNode(name),
});

// --- state ----------------------------------------------------------------------------------

const isRunning = () => S.running || S.serverRun;
const viewed = () => (S.viewIndex === null ? S.latest : S.viewIndex);
const inHistory = () => S.viewIndex !== null && S.viewIndex < S.latest;
const finished = () => Boolean((S.state && S.state.finished) || (S.run && S.run.status === "finished"));

function cycleFor(index) {
  if (index < 0) return null;
  if (S.details.has(index)) return S.details.get(index);
  if (S.summaries.has(index)) return S.summaries.get(index);
  const row = S.rows[index];
  if (!row) return null;
  return { index: row[0], time: row[1], pod: row[2], outcome: row[3], node: row[4], preemption: row[5], message: "" };
}

function addRow(c) {
  const row = [c.index, c.time, c.pod, c.outcome, c.node || null, c.preemption || null];
  S.rows[c.index] = row;
  if (c.index > S.latest) S.latest = c.index;
}

/** A cycle's summary from the stream. A cycle that waited on Permit comes again once the wait
 *  is over (`late`): its outcome and the points after Permit are new, so a cached trace of
 *  it is out of date. */
function takeSummary(c) {
  const known = S.details.get(c.index);
  if (known && (known.outcome || null) !== (c.outcome || null)) S.details.delete(c.index);
  S.summaries.set(c.index, c);
  addRow(c);
}

function applyState(state) {
  if (!state) return;
  S.state = state;
  if (Array.isArray(state.nodes) && state.nodes.length) {
    const complete = state.nodes.length >= Object.keys(S.meta.nodes).length;
    if (complete || !S.nodeOrder.length) {
      S.nodes = new Map(state.nodes.map((n) => [n.name, n]));
      S.nodeOrder = state.nodes.map((n) => n.name);
    } else {
      for (const n of state.nodes) S.nodes.set(n.name, n);
    }
  }
  if (typeof state.cycles === "number" && state.cycles - 1 > S.latest && state.cycles - 1 >= S.rows.length) {
    loadTimeline();
  }
}

function applyRun(run, { live = true } = {}) {
  if (!run) return;
  // A REST answer may predate the socket's latest word on a server-side run: keep the latter.
  if (!live && S.serverRun && run.status !== "finished") run = { ...run, status: S.run ? S.run.status : run.status };
  const was = S.run ? S.run.status : "";
  S.run = { ...(S.run || {}), ...run };
  // A server-side run (speed "as fast as possible") ends when the stream says it left "running".
  if ((live || S.run.status === "finished") && S.serverRun && was === "running" && S.run.status && S.run.status !== "running") {
    S.serverRun = false;
    S.running = false;
    setStatus(msg, S.run.status === "finished" ? "The run has finished." : S.run.status === "failed" ? "" : "Paused.");
    refreshState(true);
  }
}

function truncate(count) {
  S.rows.length = Math.min(S.rows.length, count);
  for (const map of [S.summaries, S.details]) {
    for (const key of Array.from(map.keys())) if (key >= count) map.delete(key);
  }
  S.latest = count - 1;
  if (S.viewIndex !== null && S.viewIndex >= count) S.viewIndex = null;
  S.cursor = WHOLE;
  S.point = null;
}

function remember(trace) {
  if (!trace || typeof trace.index !== "number") return;
  S.details.delete(trace.index);
  S.details.set(trace.index, trace);
  if (S.details.size > DETAIL_CACHE) S.details.delete(S.details.keys().next().value);
  if (!S.rows[trace.index]) addRow(trace);
}

// --- fetching -------------------------------------------------------------------------------

const inflight = new Map();

function detail(index) {
  if (S.details.has(index)) return Promise.resolve(S.details.get(index));
  if (inflight.has(index)) return inflight.get(index);
  const p = (async () => {
    let trace = null;
    for (let attempt = 0; attempt < 4 && !trace; attempt++) {
      if (index > S.latest) break; // reset meanwhile: the cycle is gone, do not ask REST
      const answer = await socket.detail(index);
      if (answer === NOT_FOUND) {
        // Not stored yet (or reset meanwhile): ask again shortly, never a 404 from REST.
        await new Promise((r) => setTimeout(r, 300 * (attempt + 1)));
        continue;
      }
      if (answer) {
        trace = answer;
        break;
      }
      // No socket: REST has the same trace.
      if (index > S.latest) break;
      try {
        const body = await api.get(urls.runCycle(runId, index));
        trace = body.trace || body;
      } catch {
        break;
      }
    }
    if (trace && trace.index === undefined) trace.index = index;
    remember(trace);
    inflight.delete(index);
    return trace || null;
  })();
  inflight.set(index, p);
  return p;
}

let detailTimer = null;
let lastDetailAt = 0;
function wantDetail() {
  const index = viewed();
  if (index < 0 || S.details.has(index) || inflight.has(index)) return;
  // While running fast, fetch the latest cycle's detail a few times a second, not per cycle.
  const wait = isRunning() ? Math.max(0, 1000 - (performance.now() - lastDetailAt)) : 0;
  clearTimeout(detailTimer);
  detailTimer = setTimeout(async () => {
    lastDetailAt = performance.now();
    await detail(viewed());
    render();
  }, wait);
}

async function loadTimeline() {
  try {
    const data = await api.get(urls.runTimeline(runId));
    S.rows = data.cycles;
    S.latest = Math.max(S.latest, S.rows.length - 1);
    render();
  } catch (err) {
    setStatus(msg, `Could not load the cycles: ${err.message}`, "error");
  }
}

let stateTimer = null;
let stateAt = 0;
function refreshState(now = false) {
  clearTimeout(stateTimer);
  const wait = now ? 0 : Math.max(0, (isRunning() ? 1500 : 600) - (performance.now() - stateAt));
  stateTimer = setTimeout(async () => {
    stateAt = performance.now();
    try {
      const [run, state] = await Promise.all([api.get(urls.run(runId)), api.get(urls.runState(runId))]);
      applyRun(run, { live: false });
      applyState(state.state || state);
      render();
    } catch (err) {
      setStatus(msg, err.message, "error");
    }
  }, wait);
}

// --- socket ---------------------------------------------------------------------------------

function handleEvent(ev) {
  const kind = ev.kind;
  const data = ev.data && typeof ev.data === "object" ? ev.data : ev;
  if (kind === "cycle") {
    takeSummary(data);
    resolveWaiters();
  } else if (kind === "pod") {
    podEvent(data);
  } else if (kind === "progress") {
    applyRun(data.run || data);
    if (data.state) applyState(data.state);
    resolveWaiters();
  }
}

function podEvent(e) {
  const req = (S.meta.pods[e.pod] || {}).requests || {};
  const node = e.node && S.nodes.get(e.node);
  if (!node) return;
  const change = (sign) => {
    for (const [name, value] of Object.entries(req)) {
      if (node.resources[name]) node.resources[name][0] += sign * value;
    }
    if (node.resources.pods) node.resources.pods[0] += sign;
  };
  if (e.event === "bound" && !node.pods.some((p) => p.pod === e.pod)) {
    node.pods.push({ pod: e.pod, terminating: false });
    change(+1);
  } else if (e.event === "preempted") {
    const p = node.pods.find((x) => x.pod === e.pod);
    if (p) p.terminating = true;
  } else if (e.event === "deleted") {
    const before = node.pods.length;
    node.pods = node.pods.filter((p) => p.pod !== e.pod);
    if (node.pods.length < before) change(-1);
  }
}

const socket = new RunSocket(urls.runSocket(runId), {
  open: () => { $("#conn").textContent = "live"; $("#conn").className = "conn live"; },
  close: () => { $("#conn").textContent = "reconnecting…"; $("#conn").className = "conn down"; },
  snapshot: (m) => {
    applyRun(m.run);
    // The snapshot is where the run is now (after a reset: at the start).
    const cycles = m.state && typeof m.state.cycles === "number" ? m.state.cycles : m.run && m.run.cycles;
    if (typeof cycles === "number" && cycles < S.latest + 1) truncate(cycles);
    for (const c of m.cycles || []) takeSummary(c);
    applyState(m.state);
    const total = m.state && (m.state.nodesTotal ?? m.state.nodes_total ?? m.state.nodeCount);
    const have = m.state && m.state.nodes ? m.state.nodes.length : 0;
    if ((total && total > have) || have < Object.keys(S.meta.nodes).length) refreshState(true);
    resolveWaiters();
    render();
  },
  batch: (m) => {
    for (const ev of m.events || []) handleEvent(ev);
    refreshState();
    render();
  },
  message: (m) => {
    if (m.type === "ack") {
      applyRun(m.run);
      render();
    }
  },
  error: (m) => {
    setStatus(msg, m.message || m.detail || "error", "error");
    if (["step", "run", "reset"].includes(m.action)) {
      // The control was refused (busy, finished, forbidden): stop whatever waited on it.
      for (const w of S.waiters) w.resolve(false);
      S.waiters = [];
      S.running = false;
      S.serverRun = false;
      updateButtons();
    }
    resolveWaiters();
  },
});

// --- controls -------------------------------------------------------------------------------

function resolveWaiters() {
  const keep = [];
  for (const w of S.waiters) {
    if (S.latest > w.after || finished()) w.resolve(true);
    else keep.push(w);
  }
  S.waiters = keep;
}

/** Send a control; over the socket when it is up, else through REST. */
async function control(action, cycles) {
  const body = cycles ? { action, cycles } : { action };
  if (socket.send(body)) return;
  let rest = action;
  if (action === "run") rest = S.run && S.run.status === "paused" ? "resume" : "start";
  await api.post(urls.runAction(runId, rest), cycles ? { cycles } : {});
  refreshState(true);
}

/** One engine cycle; resolves when the cycle has arrived (or the run is over). */
function stepEngine() {
  const after = S.latest;
  return new Promise((resolve) => {
    const w = { after, resolve };
    S.waiters.push(w);
    control("step", 1).catch((err) => { setStatus(msg, err.message, "error"); resolve(false); });
    setTimeout(async () => {
      if (!S.waiters.includes(w)) return;
      // No event in time: ask REST what happened.
      await loadTimeline();
      refreshState(true);
      S.waiters = S.waiters.filter((x) => x !== w);
      resolve(S.latest > after);
    }, 6000);
  });
}

async function stepCycle() {
  S.point = null;
  if (inHistory()) {
    S.viewIndex += 1;
    if (S.viewIndex >= S.latest) S.viewIndex = null;
    S.cursor = WHOLE;
    render();
    return;
  }
  if (finished()) {
    setStatus(msg, "The run has finished: nothing left to schedule. Reset to start again.");
    return;
  }
  S.viewIndex = null;
  S.cursor = WHOLE;
  setStatus(msg, "Scheduling one cycle…", "busy");
  const ok = await stepEngine();
  if (ok) setStatus(msg, "");
  else if (!msg.classList.contains("error")) setStatus(msg, finished() ? "The run has finished." : "No new cycle.");
  refreshState(true);
  render();
}

async function nextPoint() {
  const index = viewed();
  const cycle = cycleFor(index);
  const steps = cycle ? walkable(cycle) : [];
  const nextStep = steps.find((i) => i > S.cursor);
  if (cycle && S.cursor < WHOLE && nextStep !== undefined) {
    S.cursor = nextStep;
    S.point = nextStep;
    render();
    return;
  }
  if (cycle && S.cursor < WHOLE) {
    // The walk is at the last point: show the finished cycle before moving on.
    S.cursor = WHOLE;
    S.point = null;
    render();
    return;
  }
  if (inHistory()) {
    S.viewIndex += 1;
  } else {
    if (finished()) {
      setStatus(msg, "The run has finished: nothing left to schedule. Reset to start again.");
      return;
    }
    S.viewIndex = null;
    setStatus(msg, "Scheduling one cycle…", "busy");
    const before = S.latest;
    await stepEngine();
    if (S.latest > before) setStatus(msg, "");
    else if (!msg.classList.contains("error")) setStatus(msg, "The run has finished.");
    if (S.latest === before) return;
  }
  S.cursor = POINT_INDEX.queueSort;
  S.point = S.cursor;
  render();
  await detail(viewed());
  render();
}

async function runLoop() {
  if (S.running) return;
  if (finished()) {
    setStatus(msg, "The run has finished. Reset to run it again.");
    return;
  }
  S.running = true;
  S.viewIndex = null;
  S.cursor = WHOLE;
  S.point = null;
  updateButtons();
  const speed = Number($("#speed").value);
  try {
    if (speed === 0) {
      setStatus(msg, "Running…", "busy");
      S.serverRun = true;
      await control("run");
      S.run = { ...S.run, status: "running" };
      return; // progress events and state refreshes take it from here
    }
    setStatus(msg, "Running…", "busy");
    while (S.running && !finished()) {
      const started = performance.now();
      const ok = await stepEngine();
      if (!ok) break;
      const wait = speed - (performance.now() - started);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    S.running = false;
    setStatus(msg, finished() ? "The run has finished." : "Paused.");
  } catch (err) {
    S.running = false;
    setStatus(msg, err.message, "error");
  }
  updateButtons();
  refreshState(true);
}

async function pause() {
  const serverRun = S.serverRun || (S.run && S.run.status === "running");
  S.running = false;
  S.serverRun = false;
  if (serverRun) await control("pause").catch((err) => setStatus(msg, err.message, "error"));
  setStatus(msg, "Paused.");
  updateButtons();
  refreshState(true);
}

async function reset() {
  S.running = false;
  setStatus(msg, "Resetting…", "busy");
  try {
    await control("reset");
  } catch (err) {
    setStatus(msg, err.message, "error");
    return;
  }
  S.rows = [];
  S.summaries.clear();
  S.details.clear();
  S.latest = -1;
  S.viewIndex = null;
  S.cursor = WHOLE;
  S.point = null;
  S.whyPod = null;
  $("#why-result").replaceChildren();
  // The reset task runs in the background: ask again shortly.
  setTimeout(() => { refreshState(true); loadTimeline(); }, 400);
  setTimeout(() => { refreshState(true); setStatus(msg, "Reset: back to the start."); }, 1200);
  render();
}

function jump(index) {
  if (index < 0 || index > S.latest) return;
  S.viewIndex = index >= S.latest ? null : index;
  S.cursor = WHOLE;
  S.point = null;
  render();
  document.getElementById("cycle-title").scrollIntoView({ block: "nearest" });
}

function focusNode(name) {
  S.focusNode = name;
  grid.setFocus(name);
  if (name) grid.scrollTo(name);
  render();
}

async function whyPending(pod) {
  if (!pod) return;
  S.whyPod = pod;
  $("#why-pod").value = pod;
  const box = $("#why-result");
  box.replaceChildren(el("p.muted", "Looking…"));
  const result = await explain({
    rows: S.rows.filter(Boolean), meta: S.meta, state: S.state, nodes: S.nodeOrder,
    detail, jump, upTo: viewed(), latest: S.latest,
  }, pod);
  if (S.whyPod === pod) box.replaceChildren(result);
}

// --- rendering ------------------------------------------------------------------------------

function nodeTitle(name) {
  const m = S.meta.nodes[name];
  if (!m) return name;
  const labels = Object.entries(m.labels || {}).map(([k, v]) => `  ${k}=${v}`);
  const taints = (m.taints || []).map((t) => `  ${t.key}${t.value ? `=${t.value}` : ""}:${t.effect}`);
  return [name, m.unschedulable ? "unschedulable (cordoned)" : null, "labels:", ...(labels.length ? labels : ["  (none)"]),
    "taints:", ...(taints.length ? taints : ["  (none)"])].filter(Boolean).join("\n");
}

function taintMark(name) {
  const t = ((S.meta.nodes[name] || {}).taints || [])[0];
  if (!t) return "";
  const more = S.meta.nodes[name].taints.length - 1;
  return `taint ${t.key}${t.value ? `=${t.value}` : ""}:${t.effect}${more ? ` +${more}` : ""}`;
}

function victimEnds() {
  const ends = new Map(); // victim pod -> [nominated-by pod, time its termination ends]
  for (const row of S.rows) {
    if (!row || !row[5] || row[0] > viewed()) continue;
    for (const v of row[5].victims || []) {
      const grace = (S.meta.pods[v] || {}).grace ?? 30;
      ends.set(v, [row[2], row[1] + grace]);
    }
  }
  return ends;
}

/** Pods and usage per node at the viewed position: live state, or rebuilt for history. */
function placement(cycle) {
  const out = new Map();
  const before = cycle && S.cursor < POINT_INDEX.reserve && cycle.outcome === "Bound" ? cycle : null;
  if (!inHistory() && S.nodes.size) {
    for (const name of S.nodeOrder) {
      const n = S.nodes.get(name);
      const resources = {};
      for (const [r, [used, alloc]] of Object.entries(n.resources)) resources[r] = [used, alloc];
      let pods = n.pods.map((p) => ({ pod: p.pod, terminating: p.terminating }));
      if (before && before.node === name && pods.some((p) => p.pod === before.pod)) {
        // Walking the cycle that bound this pod: before Reserve it is not on the node yet.
        pods = pods.filter((p) => p.pod !== before.pod);
        const req = (S.meta.pods[before.pod] || {}).requests || {};
        for (const [r, v] of Object.entries(req)) if (resources[r]) resources[r][0] -= v;
        if (resources.pods) resources.pods[0] -= 1;
      }
      out.set(name, { resources, pods });
    }
    return out;
  }
  // History: initial pods, plus every pod bound up to the viewed cycle, minus finished victims.
  const index = viewed();
  const now = cycle ? cycle.time : 0;
  const pods = new Map(); // pod -> node
  for (const [key, p] of Object.entries(S.meta.pods)) if (p.node) pods.set(key, p.node);
  const terminating = new Set();
  for (const row of S.rows) {
    if (!row || row[0] > index) continue;
    if (row[3] === "Bound" && row[4] && !(row[0] === index && before)) pods.set(row[2], row[4]);
    if (row[5] && (row[0] < index || S.cursor >= POINT_INDEX.postFilter)) {
      for (const v of row[5].victims || []) {
        const grace = (S.meta.pods[v] || {}).grace ?? 30;
        if (row[1] + grace <= now) pods.delete(v);
        else terminating.add(v);
      }
    }
  }
  for (const [name, m] of Object.entries(S.meta.nodes)) {
    const resources = {};
    for (const [r, alloc] of Object.entries(m.allocatable)) resources[r] = [0, alloc];
    out.set(name, { resources, pods: [] });
  }
  for (const [pod, name] of pods) {
    const n = out.get(name);
    if (!n) continue;
    n.pods.push({ pod, terminating: terminating.has(pod) });
    for (const [r, v] of Object.entries((S.meta.pods[pod] || {}).requests || {})) {
      if (n.resources[r]) n.resources[r][0] += v;
      else if (v) n.resources[r] = [v, 0];
    }
    if (n.resources.pods) n.resources.pods[0] += 1;
  }
  return out;
}

function nodeModels(cycle) {
  const names = S.nodeOrder.length ? S.nodeOrder : Object.keys(S.meta.nodes);
  // A run streaming by shows where each pod went; the per-node verdicts of cycles that
  // flash past would only flicker (pause, or step, to see them).
  const verdicts = isRunning()
    ? new Map(cycle && cycle.node ? [[cycle.node, { cls: "selected", text: "★ selected", title: `Selected for ${cycle.pod}` }]] : [])
    : nodeVerdicts(cycle, S.cursor, names);
  const where = placement(cycle);
  const ends = victimEnds();
  const now = inHistory() ? (cycle ? cycle.time : 0) : (S.state ? S.state.time : 0);
  const nominated = new Map(); // node -> preemptor pods
  if (!inHistory() && S.state && S.state.queues) {
    for (const list of Object.values(S.state.queues)) {
      for (const e of list || []) {
        if (e.nominatedNode) nominated.set(e.nominatedNode, [...(nominated.get(e.nominatedNode) || []), e.pod]);
      }
    }
  }
  const showNew = cycle && S.cursor >= POINT_INDEX.reserve && cycle.node;
  return names.map((name) => {
    const at = where.get(name) || { resources: {}, pods: [] };
    const pods = at.pods.map((p) => {
      if (p.terminating) {
        const end = ends.get(p.pod);
        const left = end ? Math.max(0, end[1] - now) : null;
        return { pod: p.pod, cls: "victim", title: `${p.pod}: terminating (preempted${end ? ` by ${end[0]}` : ""})${left !== null ? `, gone in ${fmtTime(left)}` : ""}`,
          label: `${p.pod.split("/").pop()}${left !== null ? ` ${fmtTime(left)}` : ""}` };
      }
      if (showNew && name === cycle.node && p.pod === cycle.pod) return { pod: p.pod, cls: "new", title: `${p.pod}: placed in cycle #${cycle.index}` };
      return { pod: p.pod, title: p.pod };
    });
    const noms = nominated.get(name);
    const m = S.meta.nodes[name];
    const marks = noms ? `⚑ nominated: ${noms.map((p) => p.split("/").pop()).join(", ")}`
      : m && m.unschedulable ? "cordoned (spec.unschedulable)" : taintMark(name);
    let verdict = verdicts.get(name);
    if (noms && !verdict) verdict = { cls: "nominated", text: "⚑ nominated" };
    return {
      name, resources: at.resources, pods, verdict, marks,
      unschedulable: Boolean(m && m.unschedulable),
      title: `${nodeTitle(name)}${verdict && verdict.title ? `\n\n${verdict.title}` : ""}\npods: ${at.pods.map((p) => p.pod).join(", ") || "(none)"}`,
      search: S.search.get(name) || name,
    };
  });
}

function defaultPoint(cycle) {
  if (!cycle) return null;
  if (cycle.preemption) return POINT_INDEX.postFilter;
  const scored = (cycle.score && Object.keys(cycle.score).length) || (cycle.topScores && cycle.topScores.length);
  if (cycle.outcome === "Bound" && scored) return POINT_INDEX.normalizeScore;
  if (!cycle.outcome && (cycle.permit || (cycle.points || {}).permit || []).some((e) => e.code === "Wait")) return POINT_INDEX.permit;
  if (cycle.outcome === "Rejected") {
    for (const id of ["permit", "reserve"]) if ((cycle[id] || []).length) return POINT_INDEX[id];
  }
  return POINT_INDEX.filter;
}

function updateButtons() {
  const status = S.run ? S.run.status : "";
  const running = S.running || status === "running";
  $("#btn-run").disabled = running || finished();
  $("#btn-pause").disabled = !running;
  $("#btn-cycle").disabled = running;
  $("#btn-point").disabled = running;
}

let panelAt = 0;
let panelTimer = null;

const render = rafBatch(() => {
  const index = viewed();
  const cycle = cycleFor(index);
  wantDetail();

  // stats
  const status = S.run ? S.run.status : "";
  const pill = $("#run-status");
  pill.textContent = status;
  pill.className = `status-pill ${status}`;
  $("#stat-cycles").textContent = String(S.latest + 1);
  $("#stat-time").textContent = fmtTime(S.state ? S.state.time : (S.run ? S.run.virtual_time : 0));
  const bindings = S.state ? S.state.bindings || {} : {};
  const values = Object.values(bindings);
  $("#stat-bound").textContent = String(values.filter(Boolean).length);
  $("#stat-pending").textContent = String(values.filter((v) => !v).length);
  if (S.run && S.run.error) setStatus(msg, S.run.error, "error");
  updateButtons();

  // history slider
  const slider = $("#history");
  slider.max = String(Math.max(0, S.latest));
  slider.disabled = S.latest < 0;
  slider.value = String(Math.max(0, index));
  const label = $("#history-label");
  label.textContent = S.latest < 0 ? "no cycles yet"
    : `cycle #${index} of ${S.latest + 1}${cycle ? ` · t=${fmtTime(cycle.time)}` : ""}${inHistory() ? " · history" : " · latest"}`;
  $("#history-box").classList.toggle("past", inHistory());
  $("#btn-live").disabled = !inHistory();

  // nodes, queues, cycle
  $("#node-count").textContent = String(S.nodeOrder.length || Object.keys(S.meta.nodes).length);
  grid.update(nodeModels(cycle));
  queues.update(S.state && S.state.queues, S.state ? S.state.time : 0, S.state ? S.state.time : 0);
  // While a run streams by, the cycle panel (tables of up to every node) redraws twice a
  // second; the nodes and queues follow every frame.
  const now = performance.now();
  clearTimeout(panelTimer);
  if (isRunning() && now - panelAt < 500) {
    panelTimer = setTimeout(render, 500 - (now - panelAt));
    return;
  }
  panelAt = now;
  const point = S.point !== null ? S.point : S.cursor < WHOLE ? S.cursor : defaultPoint(cycle);
  const full = Boolean(cycle && S.details.get(index) === cycle);
  panel.show({
    cycle, full, cursor: S.cursor, point, nodes: S.nodeOrder, rows: S.rows.filter(Boolean),
    focusNode: S.focusNode, loading: !full && inflight.has(index),
    podMeta: cycle ? S.meta.pods[cycle.pod] : null,
  });
});

// --- wiring ---------------------------------------------------------------------------------

$("#btn-point").addEventListener("click", () => nextPoint());
$("#btn-cycle").addEventListener("click", () => stepCycle());
$("#btn-run").addEventListener("click", () => runLoop());
$("#btn-pause").addEventListener("click", () => pause());
$("#btn-reset").addEventListener("click", () => reset());
$("#btn-live").addEventListener("click", () => jump(S.latest));
$("#history").addEventListener("input", (e) => {
  const value = Number(e.target.value);
  S.viewIndex = value >= S.latest ? null : value;
  S.cursor = WHOLE;
  S.point = null;
  render();
});
$("#node-filter").addEventListener("input", (e) => grid.setFilter(e.target.value));
$("#why-form").addEventListener("submit", (e) => {
  e.preventDefault();
  whyPending($("#why-pod").value.trim());
});

document.addEventListener("keydown", (e) => {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const t = e.target;
  if (t.closest && t.closest("input, textarea, select, [contenteditable]")) {
    if (e.key === "Escape") t.blur();
    return;
  }
  const running = S.running || (S.run && S.run.status === "running");
  switch (e.key) {
    case "n": nextPoint(); break;
    case "c": if (!running) stepCycle(); break;
    case " ":
      if (t.closest && t.closest("button, a, .node, li[data-pod]")) return; // let it activate
      e.preventDefault();
      if (running) pause();
      else runLoop();
      break;
    case "r": reset(); break;
    case "ArrowLeft": if (S.latest >= 0) { e.preventDefault(); jump(Math.max(0, viewed() - 1)); } break;
    case "ArrowRight": if (S.latest >= 0) { e.preventDefault(); jump(Math.min(S.latest, viewed() + 1)); } break;
    case "l": jump(S.latest); break;
    case "/": e.preventDefault(); $("#why-pod").focus(); break;
    case "Escape": focusNode(null); break;
    default: return;
  }
});

// Let the countdowns of waiting pods and victims follow the virtual clock as state arrives.
(async function start() {
  try {
    const [run, meta] = await Promise.all([api.get(urls.run(runId)), api.get(urls.runObjects(runId))]);
    applyRun(run);
    S.meta = meta;
    for (const [name, m] of Object.entries(meta.nodes)) {
      S.search.set(name, `${name} ${Object.entries(m.labels || {}).map(([k, v]) => `${k}=${v}`).join(" ")}`.toLowerCase());
    }
    S.nodeOrder = S.nodeOrder.length ? S.nodeOrder : Object.keys(meta.nodes);
    const list = $("#pod-names");
    list.replaceChildren(...Object.keys(meta.pods).filter((k) => !meta.pods[k].node).map((k) => el("option", { value: k })));
  } catch (err) {
    setStatus(msg, `Could not load the run: ${err.message}`, "error");
  }
  await loadTimeline();
  refreshState(true);
  socket.connect();
  render();
})();
