// The run bar: status, counters, the buttons' states, the message line and the history slider.
import { $, fmtTime, setStatus } from "../util.js";

/** "cycle #3 of #0–#3": the slider counts cycles by index, as the cycle panel does. */
export function historyLabel(index, latest, time, inHistory) {
  if (latest < 0) return "no cycles yet";
  const range = latest === 0 ? "#0" : `#0–#${latest}`;
  return `cycle #${index} of ${range}${time !== null ? ` · t=${fmtTime(time)}` : ""}${inHistory ? " · history" : " · latest"}`;
}

export class RunHeader {
  constructor() {
    this.msg = $("#run-msg");
  }

  update(controller) {
    const S = controller.store;
    const status = S.run ? S.run.status : "";
    const pill = $("#run-status");
    pill.textContent = status;
    pill.className = `status-pill ${status}`;
    $("#stat-cycles").textContent = String(S.latest + 1);
    $("#stat-time").textContent = fmtTime(S.state ? S.state.time : (S.run ? S.run.virtual_time : 0));
    const values = Object.values(S.state ? S.state.bindings || {} : {});
    $("#stat-bound").textContent = String(values.filter(Boolean).length);
    $("#stat-pending").textContent = String(values.filter((v) => !v).length);
    const conn = $("#conn");
    const live = controller.connection === "live";
    conn.textContent = live ? "live" : controller.connection === "down" ? "reconnecting…" : "connecting…";
    conn.className = `conn${live ? " live" : controller.connection === "down" ? " down" : ""}`;
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
    slider.max = String(Math.max(0, S.latest));
    slider.disabled = S.latest < 0;
    slider.value = String(Math.max(0, index));
    $("#history-label").textContent = historyLabel(index, S.latest, cycle ? cycle.time : null, S.inHistory);
    $("#history-box").classList.toggle("past", S.inHistory);
    $("#btn-live").disabled = !S.inHistory;
  }
}
