// Presenter mode on the run view (whose lesson panel shows the notes beside the run): a
// compact workshop bar in the run's control bar (ask at a point, the live tally, reveal), the
// display preferences (the site header is not shown on the projector), and "hide until
// reveal": while a question is open, the projector shows the asked cycle walked up to the
// question's point and no further (at Filter: the pod and PreFilter; at Score: Filter's
// verdicts too; at PostFilter: which nodes Filter rejected and why), as the attendees see it
// (playground/workshops/conceal.py); the counts, queues and panels that would give the
// outcome away are hidden (workshop.css); the nodes, the lesson and the controls stay.

import { api } from "../api.js";
import { controller } from "../run/main.js";
import { POINT_INDEX } from "../run/model.js";
import { $, clear, el, setStatus } from "../util.js";
import { LiveSocket } from "./live.js";

// The last point of the asked cycle the room sees, per question point (conceal.py's
// VISIBLE_KEYS).
const SHOWN_UP_TO = { Filter: "preFilter", Score: "preScore", PostFilter: "filter" };

const root = document.documentElement;
const code = document.querySelector('meta[name="workshop-code"]').content;
const base = `/api/workshops/${code}`;

const askButton = el("button", { type: "button", id: "presenter-ask", onclick: ask }, "Ask next cycle");
const hideBox = el("input", { type: "checkbox", id: "presenter-hide", checked: true, onchange: conceal });
const tally = el("span.presenter-tally", { id: "presenter-tally", "aria-live": "polite" });
const message = el("output.status", { id: "presenter-msg", "aria-live": "polite" });
const bar = el("div.presenter-bar", { role: "group", "aria-label": "Workshop question" },
  el("a", { href: `/workshops/${code}/`, title: "The workshop's dashboard" }, code),
  el("select", { id: "presenter-point", "aria-label": "Ask at" },
    ["Filter", "Score", "PostFilter"].map((p) => el("option", { value: p }, p))),
  askButton,
  el("label.inline", { title: "Hide the run's outcome from the projector while a question is open" },
    hideBox, " Hide until reveal"),
  tally, message);
$(".run-bar").append(bar);
// The theme and font-size buttons, out of the header the projector layout hides.
const prefs = document.querySelector(".view-prefs");
if (prefs) bar.append(prefs);
const note = el("p.conceal-note", { id: "conceal-note", role: "status" });
$(".run-bar").prepend(note);

let open = null;

function conceal() {
  const hidden = Boolean(open) && hideBox.checked;
  if (hidden) root.dataset.conceal = open.point;
  else delete root.dataset.conceal;
  controller.conceal(hidden ? { index: open.cycle_index, upTo: POINT_INDEX[SHOWN_UP_TO[open.point]] } : null);
  note.textContent = hidden
    ? `Cycle ${open.cycle_index}, ${open.point}: ${open.prompt} ${open.point} and what follows it are hidden until the reveal.`
    : "";
}

async function ask() {
  askButton.blur();  // Space means run/pause again, never a second question
  askButton.disabled = true;
  setStatus(message, "");
  try {
    open = await api.post(`${base}/questions/`, { point: $("#presenter-point").value });
    drawTally({ count: 0 });
  } catch (err) {
    setStatus(message, err.message, "error");
    await load();  // the question that is open, if that is what refused this one
  }
}

async function reveal() {
  try {
    await api.post(`${base}/questions/${open.id}/reveal/`);
    open = null;
    drawTally(null);
    setStatus(message, "revealed");
  } catch (err) {
    setStatus(message, err.message, "error");
  }
}

function drawTally(t) {
  clear(tally);
  askButton.disabled = Boolean(open);
  conceal();
  if (!open || !t) return;
  tally.append(`cycle ${open.cycle_index} ${open.point}: `, el("b.tally-count", String(t.count)),
    " predictions ", el("button", { type: "button", id: "presenter-reveal", onclick: reveal }, "Reveal"));
}

async function load() {
  const w = await api.get(`${base}/`);
  open = w.open_question;
  if (!open) {
    drawTally(null);
    return;
  }
  const q = await api.get(`${base}/questions/${open.id}/`);
  drawTally(q.tally);
}

load();
new LiveSocket(`/ws/workshops/${code}/`, {
  onFrame: (frame) => {
    if (frame.type !== "workshop") return;
    const { kind } = frame.event;
    if (kind === "tally" && open) drawTally(frame.event);
    else if (kind === "asked" || kind === "revealed") load();
  },
}).connect();
