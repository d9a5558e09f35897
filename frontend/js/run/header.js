// The run bar: status, counters, the buttons' states, the message line and the history slider.
import { $, el, fmtTime, setStatus } from "../util.js";

/** "cycle #3 of #0–#3": the slider counts cycles by index, as the cycle panel does. */
export function historyLabel(index, latest, time, inHistory) {
  if (latest < 0) return "no cycles yet";
  const range = latest === 0 ? "#0" : `#0–#${latest}`;
  return `cycle #${index} of ${range}${time !== null ? ` · t=${fmtTime(time)}` : ""}${inHistory ? " · history" : " · latest"}`;
}

/** Writes only what changed: setting a text, even the same one, lays the page out again. */
function setText(id, text) {
  const node = $(id);
  if (node.textContent !== text) node.textContent = text;
}

function setClass(node, cls) {
  if (node.className !== cls) node.className = cls;
}

export class RunHeader {
  constructor() {
    this.msg = $("#run-msg");
    this.warnings = null;   // the list shown, redrawn only when the engine's list changes
  }

  /** The engine's warnings (input the run's release does not honour, skipped kinds). */
  showWarnings(list) {
    const key = list.join("\n");
    if (key === this.warnings) return;
    this.warnings = key;
    $("#run-warnings").hidden = !list.length;
    setText("#run-warnings-count", String(list.length));
    $("#run-warnings-list").replaceChildren(...list.map((w) => el("li", el("code", w))));
  }

  update(controller) {
    const S = controller.store;
    const status = S.run ? S.run.status : "";
    setText("#run-status", status);
    setClass($("#run-status"), `status-pill ${status}`);
    setText("#stat-cycles", String(S.latest + 1));
    setText("#stat-time", fmtTime(S.state ? S.state.time : (S.run ? S.run.virtual_time : 0)));
    const values = Object.values(S.state ? S.state.bindings || {} : {});
    setText("#stat-bound", String(values.filter(Boolean).length));
    setText("#stat-pending", String(values.filter((v) => !v).length));
    if (S.state) this.showWarnings(S.state.warnings || []);
    const live = controller.connection === "live";
    setText("#conn", live ? "live" : controller.connection === "down" ? "reconnecting…" : "connecting…");
    setClass($("#conn"), `conn${live ? " live" : controller.connection === "down" ? " down" : ""}`);
    const m = S.run && S.run.error ? { text: S.run.error, kind: "error" } : controller.message;
    if (this.msg.textContent !== m.text || this.msg.className !== `status ${m.kind || ""}`.trim()) setStatus(this.msg, m.text, m.kind);

    const busy = controller.busy;
    $("#btn-run").disabled = busy || S.finished;
    $("#btn-pause").disabled = !busy;
    $("#btn-cycle").disabled = busy;
    $("#btn-point").disabled = busy;

    const index = S.viewed;
    const cycle = S.cycle(index);
    const slider = $("#history");
    const max = String(Math.max(0, S.latest));
    if (slider.max !== max) slider.max = max;
    slider.disabled = S.latest < 0;
    const value = String(Math.max(0, index));
    if (slider.value !== value) slider.value = value;
    setText("#history-label", historyLabel(index, S.latest, cycle ? cycle.time : null, S.inHistory));
    $("#history-box").classList.toggle("past", S.inHistory);
    $("#btn-live").disabled = !S.inHistory;
  }
}
