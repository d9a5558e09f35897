// Presenter mode on the run view (whose lesson panel shows the notes beside the run): a
// compact workshop bar (ask at a point, the live tally, reveal) in the run's control bar.

import { api } from "../api.js";
import { $, clear, el } from "../util.js";
import { LiveSocket } from "./live.js";

const code = document.querySelector('meta[name="workshop-code"]').content;
const base = `/api/workshops/${code}`;

const tally = el("span", { id: "presenter-tally" });
const bar = el("div.presenter-bar", { role: "group", "aria-label": "Workshop question" },
  el("a", { href: `/workshops/${code}/` }, code),
  el("select", { id: "presenter-point", "aria-label": "Ask at" },
    ["Filter", "Score", "PostFilter"].map((p) => el("option", { value: p }, p))),
  el("button", { type: "button", id: "presenter-ask", onclick: ask }, "Ask next cycle"),
  tally);
$(".run-bar").append(bar);

let open = null;

async function ask() {
  try {
    open = await api.post(`${base}/questions/`, { point: $("#presenter-point").value });
    drawTally({ count: 0 });
  } catch (err) {
    tally.textContent = err.message;
  }
}

async function reveal() {
  try {
    await api.post(`${base}/questions/${open.id}/reveal/`);
    open = null;
    tally.textContent = "revealed";
  } catch (err) {
    tally.textContent = err.message;
  }
}

function drawTally(t) {
  clear(tally);
  if (!open) return;
  tally.append(` cycle ${open.cycle_index} ${open.point}: `, el("b.tally-count", String(t.count)),
    " predictions ", el("button", { type: "button", id: "presenter-reveal", onclick: reveal }, "Reveal"));
}

api.get(`${base}/`).then((w) => {
  open = w.open_question;
  if (open) api.get(`${base}/questions/${open.id}/`).then((q) => drawTally(q.tally));
});
new LiveSocket(`/ws/workshops/${code}/`, {
  onFrame: (frame) => {
    if (frame.type === "workshop" && frame.event.kind === "tally" && open) drawTally(frame.event);
  },
}).connect();
