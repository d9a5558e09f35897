// The run view's page: wires the controller (data, controls) to the panels (run bar, nodes,
// queues, cycle, "why") and the keyboard. Every change the controller reports is rendered in
// one animation frame. `controller` and `map` are exported for tooling that drives the view
// (presenters, prediction mode, tests).
import { $, el, rafBatch } from "../util.js";
import { RunController } from "./controller.js";
import { CyclePanel } from "./detail.js";
import { RunHeader } from "./header.js";
import { LessonPanel } from "./lesson.js";
import { WHOLE, defaultPoint } from "./model.js";
import { nodeModels } from "./node-models.js";
import { NodeMap } from "./nodemap.js";
import { NodeGrid } from "./nodes.js";
import { QueuesView } from "./queues.js";
import { explain } from "./why.js";

/** Clusters larger than this open on the map; the cards stay one click away. 500 cards are
 *  16,000 elements over several screens, and re-sorting them by verdict at each step costs
 *  the page more than the step itself; the map shows every node at once, grouped by zone. */
const MAP_FROM_NODES = 200;
const PANEL_INTERVAL_MS = 500;

const root = $("#run-view");
export const controller = new RunController(Number(root.dataset.run));
const S = controller.store;

const header = new RunHeader();
const onSelect = (name) => focusNode(name === controller.focusNode ? null : name);
const grid = new NodeGrid($("#nodes-grid"), { onSelect });
export const map = new NodeMap($("#nodes-map"), { onSelect, meta: S.meta });
const queues = new QueuesView($("#queues"), { onPick: (pod) => { lesson.showPod(pod); whyPending(pod); } });
const lesson = new LessonPanel({
  panel: $("#lesson-panel"), notes: $("#lesson-notes"), pods: $("#lesson-pods"),
  text: $("#lesson-text").content.textContent,
});
const panel = new CyclePanel({
  title: $("#cycle-title"), summary: $("#cycle-summary"), message: $("#cycle-message"),
  timeline: $("#timeline"), detail: $("#point-detail"), focus: $("#node-focus"),
}, {
  onPoint: (i) => controller.showPoint(i),
  onJump: (index) => jump(index),
  onPod: (pod) => whyPending(pod),
  onNode: (name) => focusNode(name),
});

let view = null; // "cards" or "map", from the cluster's size until the user picks
let search = new Map();

function nodeView() {
  return view || (S.nodeNames.length > MAP_FROM_NODES ? "map" : "cards");
}

function setView(which) {
  view = which;
  render();
}

function jump(index) {
  controller.seek(index);
  $("#cycle-title").scrollIntoView({ block: "nearest" });
}

function focusNode(name) {
  controller.focus(name);
  grid.setFocus(name);
  map.setFocus(name);
  if (name) (nodeView() === "map" ? map : grid).scrollTo(name);
}

async function whyPending(pod) {
  if (!pod) return;
  controller.why(pod);
  $("#why-pod").value = pod;
  const box = $("#why-result");
  box.replaceChildren(el("p.muted", "Looking…"));
  const result = await explain({
    records: S.history, meta: S.meta, state: S.state, nodes: S.nodeNames,
    detail: (i) => controller.detail(i), jump, upTo: S.viewed, latest: S.latest,
  }, pod);
  if (controller.whyPod === pod) box.replaceChildren(result);
}

let nodesDrawn = [];

function renderNodes(cycle) {
  const which = nodeView();
  // Most changes (a message, an ack, the walk inside a cycle's panel) leave the nodes as they
  // are: 500 cards are not recomputed for them.
  const inputs = [which, S.version, S.viewIndex, S.cursor, controller.isRunning, search];
  if (inputs.every((x, i) => x === nodesDrawn[i])) return;
  // A stepped cycle known by its summary only, its trace a moment away: the cards are laid
  // out once, by the trace's verdicts, instead of twice.
  if (cycle && !S.hasDetail(S.viewed) && !controller.isRunning && controller.detailComing(S.viewed)) return;
  nodesDrawn = inputs;
  $("#nodes-grid").hidden = which !== "cards";
  $("#nodes-map").hidden = which !== "map";
  for (const b of document.querySelectorAll("[data-node-view]")) b.setAttribute("aria-pressed", String(b.dataset.nodeView === which));
  $("#node-count").textContent = String(S.nodeNames.length);
  const models = nodeModels(S, cycle, { running: controller.isRunning, search });
  if (which === "map") map.update(models);
  else grid.update(models);
}

let panelAt = 0;
let panelTimer = null;
let panelDrawn = [];

function renderPanel(cycle) {
  const index = S.viewed;
  const point = S.point !== null ? S.point : S.cursor < WHOLE ? S.cursor : defaultPoint(cycle);
  const full = Boolean(cycle && S.details.get(index) === cycle);
  const loading = !full && controller.loading(index);
  // Most changes (a message, an ack, the connection) leave the panel as it is: its tables
  // are not drawn again for them.
  const inputs = [cycle, full, S.cursor, point, controller.focusNode, loading, S.version];
  if (inputs.every((x, i) => x === panelDrawn[i])) return;
  // While a run streams by, the cycle panel redraws twice a second; the rest every frame.
  const now = performance.now();
  clearTimeout(panelTimer);
  if (controller.isRunning && now - panelAt < PANEL_INTERVAL_MS) {
    panelTimer = setTimeout(render, PANEL_INTERVAL_MS - (now - panelAt));
    return;
  }
  panelAt = now;
  panelDrawn = inputs;
  panel.show({
    cycle, full, cursor: S.cursor, point, nodes: S.nodeNames, records: S.history,
    focusNode: controller.focusNode, loading,
    podMeta: cycle ? S.meta.pods[cycle.pod] : null, weights: S.meta.weights || {},
  });
}

const render = rafBatch(() => {
  const cycle = S.cycle(S.viewed);
  controller.wantDetail();
  header.update(controller);
  renderNodes(cycle);
  queues.update(S.state && S.state.queues, S.state ? S.state.time : 0, S.state ? S.state.time : 0);
  if (!controller.whyPod) $("#why-result").replaceChildren();
  renderPanel(cycle);
});

let metaSeen = null;
controller.subscribe(() => {
  if (S.meta !== metaSeen) {
    metaSeen = S.meta;
    search = new Map(Object.entries(S.meta.nodes).map(([name, m]) =>
      [name, `${name} ${Object.entries(m.labels || {}).map(([k, v]) => `${k}=${v}`).join(" ")}`.toLowerCase()]));
    map.setMeta(S.meta);
    lesson.setMeta(S.meta);
    $("#pod-names").replaceChildren(...Object.keys(S.meta.pods).filter((k) => !S.meta.pods[k].node).map((k) => el("option", { value: k })));
  }
  render();
});

// --- wiring ---------------------------------------------------------------------------------

const speed = () => Number($("#speed").value);
const toggleRun = () => (controller.busy ? controller.pause() : controller.run(speed()));

// A control clicked with the mouse gives the focus back to the page, so that the keys (Space
// above all) keep meaning run/pause instead of pressing that button again.
for (const [id, action] of [["#btn-point", () => controller.nextPoint()], ["#btn-cycle", () => controller.step()],
  ["#btn-run", () => controller.run(speed())], ["#btn-pause", () => controller.pause()],
  ["#btn-reset", () => controller.reset()], ["#btn-live", () => jump(S.latest)]]) {
  $(id).addEventListener("click", (e) => {
    if (e.detail > 0) e.currentTarget.blur();
    action();
  });
}
// A new speed applies at once; the select lets go of the keys.
$("#speed").addEventListener("change", (e) => e.target.blur());
$("#history").addEventListener("input", (e) => controller.seek(Number(e.target.value)));
$("#node-filter").addEventListener("input", (e) => {
  grid.setFilter(e.target.value);
  map.setFilter(e.target.value);
});
for (const b of document.querySelectorAll("[data-node-view]")) b.addEventListener("click", () => setView(b.dataset.nodeView));
$("#why-form").addEventListener("submit", (e) => {
  e.preventDefault();
  whyPending($("#why-pod").value.trim());
});

const KEYS = {
  n: () => controller.nextPoint(),
  c: () => { if (!controller.busy) controller.step(); },
  r: () => controller.reset(),
  l: () => jump(S.latest),
  ArrowLeft: () => S.latest >= 0 && jump(Math.max(0, S.viewed - 1)),
  ArrowRight: () => S.latest >= 0 && jump(Math.min(S.latest, S.viewed + 1)),
  "/": () => $("#why-pod").focus(),
  Escape: () => focusNode(null),
};

document.addEventListener("keydown", (e) => {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const t = e.target;
  // Fields that take text (or a select's typeahead) keep their keys; the history slider and
  // check boxes let the run's letter keys through.
  const field = t.closest && t.closest("input, textarea, select, [contenteditable]");
  const slider = field && field.matches("input[type=range], input[type=checkbox], input[type=radio]");
  if (field && (!slider || !/^[a-z/]$/.test(e.key))) {
    if (e.key === "Escape") t.blur();
    return;
  }
  if (e.key === " ") {
    // Space activates a focused card, queue item or link; anywhere else (the run bar's
    // buttons included) it runs or pauses.
    if (t.closest && t.closest("a, .node, li[data-pod], button:not(.controls button)")) return;
    e.preventDefault();
    toggleRun();
    return;
  }
  const action = KEYS[e.key];
  if (!action) return;
  if (["ArrowLeft", "ArrowRight", "/"].includes(e.key)) e.preventDefault();
  action();
});

// A change to the paused run's cluster (timeline-run.js): the engine state again.
document.addEventListener("run-cluster-changed", () => controller.refreshState(true));

// Panels that load more of the run on their own (timeline-run.js) wait for its first view.
controller.start().then(() => {
  root.dataset.ready = "true";
  root.dispatchEvent(new Event("run-view-ready"));
});
