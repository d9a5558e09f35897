// The run view's cluster life: charts over virtual time, timeline events marked under the
// history slider, and changes to a paused run's cluster, recorded as timeline steps.

import { ApiError, api } from "./api.js";
import { historyMarks } from "./charts-data.js";
import { renderCharts } from "./charts.js";
import { $, clear, el, setStatus } from "./util.js";

const PAUSED = ["paused", "created"];
const MOVES_SHOWN = 40;

class RunLife {
  constructor(root) {
    this.root = root;
    this.runId = root.dataset.run;
    this.status = $("#life-status", root);
    this.charts = $("#charts", root);
    this.resource = $("#chart-resource", root);
    this.marks = el("div.history-marks#history-marks", { "aria-label": "Timeline events" });
    $("#history-box")?.append(this.marks);
    $("#charts-refresh", root).addEventListener("click", () => this.refresh());
    this.resource.addEventListener("change", () => this.draw());
    for (const form of root.querySelectorAll("form[data-action]")) {
      form.addEventListener("submit", (e) => { e.preventDefault(); this.act(form); });
    }
    document.getElementById("history")?.addEventListener("input", () => this.placeMarks());
    this.maxSeen = -1;
    this.drawnAt = null; // the run's cycle count the charts were drawn at
    this.visible = false;
    this.loading = false;
    this.stale = el("p.charts-stale#charts-stale", { role: "status", hidden: true });
    this.charts.before(this.stale);
    setInterval(() => this.tick(), 1500);
  }

  /** The run's cycle count as the run bar shows it. */
  static cycles() {
    return Number(document.getElementById("stat-cycles")?.textContent) || 0;
  }

  /** Charts that follow the run: redrawn when the run has moved on and is not running (and
   *  the panel is in view: at 5,000 nodes a redraw replays the run on the server), marked
   *  stale meanwhile. */
  tick() {
    this.placeMarks();
    if (this.drawnAt === null || this.loading) return;
    const now = RunLife.cycles();
    const behind = now !== this.drawnAt;
    const running = $("#run-status")?.textContent.trim() === "running";
    if (behind && !running && this.visible) {
      this.refresh();
      return;
    }
    this.stale.hidden = !behind;
    this.stale.textContent = behind
      ? `These charts show the run at cycle ${this.drawnAt}; it is at cycle ${now} now. They update when it stops, or Refresh.`
      : "";
  }

  async refresh() {
    this.loading = true;
    const at = RunLife.cycles();
    try {
      this.timeline = await api.get(`/api/runs/${this.runId}/timeline/`);
      this.drawnAt = at;
      this.stale.hidden = true;
      this.draw();
      this.placeMarks(true);
    } catch (err) {
      setStatus(this.status, `charts: ${err.message}`, "error");
    } finally {
      this.loading = false;
    }
  }

  draw() {
    if (!this.timeline) return;
    renderCharts(this.charts, this.timeline, this.resource.value);
    this.drawMoves();
  }

  /** The latest queue moves, each with the event that caused it. */
  drawMoves() {
    const moves = this.timeline.queueMoves.slice(-MOVES_SHOWN).reverse();
    const table = el("table.moves", el("caption", `Queue moves (latest ${moves.length} of ${this.timeline.queueMoves.length})`),
      el("thead", el("tr", ["time", "pod", "to", "event"].map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", moves.map((m) => el("tr", el("td", `${m.time}s`), el("td", m.pod),
        el("td", m.queue), el("td", el("code", m.event))))));
    this.charts.append(el("div.moves-wrap", table));
  }

  /** Marks sit at the cycle they followed, as a fraction of the slider's range. */
  placeMarks(force = false) {
    const slider = document.getElementById("history");
    if (!slider || !this.timeline) return;
    const max = Number(slider.max) || 0;
    if (!force && max === this.maxSeen) return;
    this.maxSeen = max;
    // Line the marks up with the slider's track, wherever the bar's layout puts it.
    const box = this.marks.parentElement.getBoundingClientRect();
    const track = slider.getBoundingClientRect();
    this.marks.style.left = `${track.left - box.left}px`;
    this.marks.style.width = `${track.width}px`;
    clear(this.marks);
    for (const mark of historyMarks(this.timeline)) {
      const left = max ? Math.min(100, (100 * mark.cycle) / max) : 0;
      this.marks.append(el(`span.history-mark.${mark.kind}`, {
        style: `left:${left}%`, title: mark.text, "aria-label": mark.text, role: "img" }));
    }
  }

  step(form) {
    const f = form.elements;
    switch (form.dataset.action) {
      case "add-node":
        return { action: "Create", object: {
          apiVersion: "v1", kind: "Node",
          metadata: { name: f.name.value, labels: { "kubernetes.io/hostname": f.name.value } },
          status: { allocatable: { cpu: f.cpu.value, memory: f.memory.value, pods: "110" } } } };
      case "delete-pod": {
        const [namespace, name] = f.pod.value.includes("/") ? f.pod.value.split("/") : ["default", f.pod.value];
        return { action: "Delete", kind: "Pod", namespace, name };
      }
      case "cordon":
        return { action: "Cordon", node: f.node.value };
      case "lift-gate":
        return { action: "RemoveSchedulingGate", pod: f.pod.value, gate: f.gate.value || undefined };
      default:
        throw new Error(`unknown action ${form.dataset.action}`);
    }
  }

  async act(form) {
    const status = $("#run-status")?.textContent.trim();
    if (status && !PAUSED.includes(status)) {
      setStatus(this.status, `The run is ${status}: pause it to change its cluster.`, "error");
      return;
    }
    const step = this.step(form);
    try {
      await api.post(`/api/runs/${this.runId}/actions/`, { step });
      setStatus(this.status, `Recorded as a timeline step: ${step.action}. Step or run to see what the scheduler does.`, "ok");
      form.reset();
      // The run view reads the engine state again (a node added joins the grid now).
      document.dispatchEvent(new CustomEvent("run-cluster-changed"));
      await this.refresh();
    } catch (err) {
      setStatus(this.status, err instanceof ApiError ? err.message : String(err), "error");
    }
  }
}

const root = document.getElementById("run-life");
if (root) {
  const life = new RunLife(root);
  // The charts replay the run with its recorder on the server (seconds at 5,000 nodes): they
  // load once the panel comes into view (after the run view's first view has laid the page
  // out) or the history slider is moved, not with the page.
  let started = false;
  const start = () => {
    if (!started) life.refresh();
    started = true;
  };
  const watch = () => new IntersectionObserver((entries) => {
    life.visible = entries.some((e) => e.isIntersecting);
    if (life.visible) start();
  }).observe(root);
  const view = document.getElementById("run-view");
  if (!view || view.dataset.ready) watch();
  else view.addEventListener("run-view-ready", watch, { once: true });
  document.getElementById("history")?.addEventListener("input", start, { once: true });
}
