// Prediction mode, for a learner alone: a toggle in the run bar; while it is on, a panel
// under the bar asks about the run's next cycle before it runs (at Filter which nodes survive, at
// Score the winner, at PostFilter the victims), "Predict and step" runs it, and the answer
// comes back right or wrong with the plugin that decided and why, from the cycle's trace
// (/api/practice/, playground/workshops/practice.py). The score per lesson is kept in the
// account. Not on the projector: the presenter asks the room instead.

import { api } from "../api.js";
import { $, clear, el, setStatus } from "../util.js";
import { controller } from "./main.js";

const KEY = "pg-predict";
const WAIT_MS = 30000;
const PROMPTS = {
  Filter: "Which nodes survive Filter?",
  Score: "Which node wins Score?",
  PostFilter: "Who gets evicted?",
};

const root = $("#run-view");
const runId = Number(root.dataset.run);
const S = controller.store;
const toggle = el("button#btn-predict", { type: "button", "aria-pressed": "false", hidden: true,
  title: "Predict each cycle before it runs, then see whether you were right" }, "◎ Predict");
const box = el("section.panel.predict-box#predict-box", { hidden: true, "aria-live": "polite" });
let on = false;
let practice = null;   // /api/practice/runs/<id>/
let result = null;     // the last checked prediction
let busy = false;
let point = "Score";

function saved() {
  try { return localStorage.getItem(KEY) === "on"; } catch { return false; }
}

function save() {
  try { localStorage.setItem(KEY, on ? "on" : "off"); } catch { /* not persisted */ }
}

async function load() {
  try {
    practice = await api.get(`/api/practice/runs/${runId}/`);
  } catch (err) {
    practice = { error: err.message };
  }
  draw();
}

function verdict(r) {
  const right = r.right_answer || {};
  return el(`div.predict-verdict.${r.correct ? "right" : "wrong"}`, { id: "predict-verdict" },
    el("p", el("b", r.correct ? "Right!" : "Wrong"), ` cycle #${r.cycle_index}, ${r.point}`),
    el("p", "Answer: ", el("b", (right.answer || []).join(", ") || "none"),
      el("span.muted", ` (you said ${r.answer.join(", ") || "none"})`)),
    el("p", "Decided by ", el("b", right.plugin || "—"), `: ${right.reason || ""}`));
}

function choicesFor(p) {
  const single = p === "Score";
  const names = (practice.choices || {})[p] || [];
  if (!names.length) return el("p.muted", p === "PostFilter" ? "No pod is on a node yet: predict that nobody is evicted." : "No choices.");
  return el("div.choices", { role: "group", "aria-label": "Choices" }, names.map((name) => el("label",
    el("input", { type: single ? "radio" : "checkbox", name: "predict-answer", value: name }), ` ${name}`)));
}

function form() {
  const f = el("form.stack#predict-form");
  const points = el("div.row", { role: "radiogroup", "aria-label": "Point to predict" }, Object.keys(PROMPTS).map((p) =>
    el("label.inline", el("input", { type: "radio", name: "predict-point", value: p, checked: p === point,
      onchange: () => { point = p; draw(); } }), ` ${p}`)));
  const status = el("output.status#predict-status");
  f.append(points, el("p", el("b", PROMPTS[point])), choicesFor(point),
    el("div.row", el("button.primary", { type: "submit", disabled: busy }, "Predict and step"), status));
  f.addEventListener("submit", (event) => {
    event.preventDefault();
    const answer = [...f.querySelectorAll("input[name=predict-answer]:checked")].map((i) => i.value);
    predictAndStep(answer, status);
  });
  return f;
}

function draw() {
  box.hidden = !on;
  toggle.setAttribute("aria-pressed", String(on));
  clear(box);
  if (!on || !practice) return;
  if (practice.error) {
    box.append(el("p.status.error", practice.error));
    return;
  }
  // The next pod, once the state the view has is the one before the predicted cycle.
  const current = S.state && S.state.cycles === practice.cycle_index;
  const next = current && S.state.queues && (S.state.queues.activeQ || [])[0];
  const score = practice.score;
  box.append(el("div.row.predict-head",
    el("h3", `Predict cycle #${practice.cycle_index}`),
    next ? el("span.muted", `next in activeQ: ${next.pod}`) : null,
    el("span.predict-score#predict-score", `${score.lesson}: ${score.right} of ${score.checked} right`)));
  if (result) box.append(verdict(result));
  if (practice.finished) box.append(el("p.muted", "The run has finished: reset it to predict again."));
  else box.append(form());
}

/** Resolves once cycle `index` is in the store (the step's trace has come). */
function ran(index) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const look = () => {
      if (S.latest >= index) resolve();
      else if (performance.now() - started > WAIT_MS) reject(new Error(`cycle #${index} did not come`));
      else setTimeout(look, 100);
    };
    look();
  });
}

async function predictAndStep(answer, status) {
  busy = true;
  try {
    const made = await api.post(`/api/practice/runs/${runId}/predictions/`, { point, answer });
    setStatus(status, "Prediction saved: stepping…");
    await controller.step();
    await ran(made.cycle_index);
    result = await api.post(`/api/practice/predictions/${made.id}/check/`);
  } catch (err) {
    setStatus(status, err.message, "error");
    busy = false;
    return;
  }
  busy = false;
  await load();
}

toggle.addEventListener("click", (event) => {
  if (event.detail > 0) toggle.blur();  // Space keeps meaning run/pause
  on = !on;
  save();
  if (on) load();
  else draw();
});

if (!document.documentElement.dataset.presenter) {
  $(".run-bar .controls").append(toggle);
  $(".run-bar").after(box);
  on = saved();
  // Shown to whoever may drive the run; the panel follows steps made without a prediction.
  controller.subscribe(() => {
    toggle.hidden = !(S.run && S.run.canControl);
    if (on && !busy && practice && !practice.error && S.latest + 1 !== practice.cycle_index) load();
  });
  if (on) load();
}
