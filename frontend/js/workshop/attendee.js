// The attendee's page: follows the presenter's run over the workshop socket (read-only,
// an asked cycle concealed until the reveal), answers questions, and can detach to step a
// run of their own sandbox from the same point, then re-attach.

import { api } from "../api.js";
import { $, clear, el } from "../util.js";
import { cycleDetail } from "./cycle-view.js";
import { FollowModel } from "./follow-model.js";
import { lessonBlocks } from "../lesson-text.js";
import { LiveSocket } from "./live.js";
import { drawObjects } from "./objects.js";

const root = $("#workshop");
const code = root.dataset.code;
const attendeeId = Number(root.dataset.attendee);
const base = `/api/workshops/${code}`;
const model = new FollowModel();
let objects = null;
let question = null;     // the open (or last revealed) question
let mine = null;         // my prediction for it
let follower = null;     // the workshop socket
let own = null;          // my own run's socket while detached
let sandbox = null;
let shown = null;        // the index of the cycle in the detail panel

const NOTICE_MS = 15000;
const MAX_NOTICES = 3;

/** A notice for a while; the same one again replaces it, and at most a few stay. */
function notice(text) {
  const box = $("#notices");
  for (const old of box.querySelectorAll(".notice")) if (old.textContent === text) old.remove();
  const item = el("p.notice", { role: "status" }, text);
  box.prepend(item);
  for (const old of [...box.querySelectorAll(".notice")].slice(MAX_NOTICES)) old.remove();
  setTimeout(() => item.remove(), NOTICE_MS);
}

/** Notices about a state the page has left (a reset, a lesson, a detached run) go. */
function clearNotices() {
  clear($("#notices"));
}

function drawHeader() {
  const c = model.counts(objects ? objects.pods.length : null);
  $("#stat-cycles").textContent = c.cycles ?? "–";
  $("#stat-bound").textContent = c.bound ?? (model.hidden ? "?" : "–");
  $("#stat-pending").textContent = c.pending ?? (model.hidden ? "?" : "–");
  $("#stat-hidden").hidden = !model.hidden;
}

function showCycle(index) {
  shown = index;
  (own || follower).send({ action: "cycle_detail", index });
}

function cycleLine(c) {
  const open = el("button.small", { type: "button", onclick: () => showCycle(c.index) }, "details");
  if (c.hidden) return el("li.hidden", { dataset: { index: c.index } }, `#${c.index} ${c.pod}: hidden until the reveal `, open);
  const top = (c.topScores || []).slice(0, 3).map((s) => `${s.node} ${s.score}`).join(", ");
  return el("li", { dataset: { index: c.index } },
    el(`b.outcome-${c.outcome}`, c.outcome || "waiting"), ` #${c.index} ${c.pod}`,
    c.node ? ` → ${c.node}` : "", top ? el("span.muted", ` (top: ${top})`) : "", " ", open,
    c.message && c.outcome !== "Bound" ? el("div.muted", c.message) : "");
}

function drawDetail(cycle) {
  const box = $("#cycle-detail");
  clear(box);
  box.append(...cycleDetail(cycle));
}

function draw() {
  drawHeader();
  const list = $("#cycles");
  clear(list);
  list.append(...model.recent().slice(0, 60).map(cycleLine));
  if (objects) drawObjects(objects, $("#nodes"), $("#pods"), model.bindings);
  // The asked cycle has run: show what may be seen of it (before the point asked about).
  if (question && !own && shown === null && model.cycles.has(question.cycle_index)) {
    showCycle(question.cycle_index);
  }
}

function drawQuestion() {
  const box = $("#question");
  clear(box);
  if (!question || own) return;
  box.append(el("h3", `Cycle ${question.cycle_index}, ${question.point}: ${question.prompt}`));
  if (question.state === "revealed") {
    const answer = question.answer || {};
    const right = mine && mine.correct;
    box.append(
      mine ? el(`p.verdict.${right ? "right" : "wrong"}`, { id: "verdict" }, right ? "Right!" : "Wrong")
        : el("p.verdict.wrong", { id: "verdict" }, "No prediction"),
      el("p", "Answer: ", el("b", (answer.answer || []).join(", ") || "none")),
      mine ? el("p.muted", `You said: ${mine.answer.join(", ") || "none"}`) : null,
      el("p", "Decided by ", el("b", answer.plugin || "—"), `: ${answer.reason || ""}`));
    return;
  }
  const single = question.point === "Score";
  const form = el("form.stack", { id: "predict-form" });
  const choices = el("div.choices", { role: "group", "aria-label": "Choices" },
    question.choices.map((name) => el("label", el("input", {
      type: single ? "radio" : "checkbox", name: "answer", value: name,
      checked: Boolean(mine && mine.answer.includes(name)) }), ` ${name}`)));
  const status = el("output.status", { id: "predict-status" }, mine ? "Prediction sent: you can change it until the reveal" : "");
  form.append(choices, el("div.row", el("button.primary", { type: "submit" }, "Predict"), status));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const answer = [...form.querySelectorAll("input:checked")].map((i) => i.value);
    try {
      const saved = await api.post(`${base}/questions/${question.id}/predictions/`, { answer });
      mine = { answer: saved.answer, correct: null };
      status.textContent = "Prediction sent: you can change it until the reveal";
    } catch (err) {
      status.textContent = err.message;
    }
  });
  box.append(form);
}

async function loadQuestion(q) {
  question = q;
  mine = null;
  if (q) {
    const full = await api.get(`${base}/questions/${q.id}/`);
    question = full;
    mine = full.mine;
  }
  drawQuestion();
}

function onWorkshopEvent(event) {
  if (event.kind === "asked") {
    shown = null;
    // The attendee's own run waits until the reveal (the server withholds it meanwhile):
    // back to following the presenter, where the question is.
    if (own) {
      attach();
      notice("A question is open: your own run waits until the reveal.");
    }
    loadQuestion(event.question);
  } else if (event.kind === "revealed") {
    question = event.question;
    mine = event.mine;
    drawQuestion();
    showCycle(question.cycle_index);
  } else if (event.kind === "sandbox_reset") {
    notice("The trainer reset your sandbox to the lesson.");
    sandbox = null;
    if (own) attach();
  } else if (event.kind === "presenting") {
    clearNotices();
    notice("The presenter moved to another lesson.");
    loadLesson();
  } else if (event.kind === "closed") {
    notice("The workshop is closed.");
  }
}

function onFrame(frame) {
  if (frame.type === "workshop") onWorkshopEvent(frame.event);
  else if (frame.type === "notice") notice(frame.message);
  else if (own) return;
  else if (frame.type === "cycle_detail") drawDetail(frame.cycle);
  else if (model.apply(frame)) draw();
}

function onOwnFrame(frame) {
  if (frame.type === "error") notice(frame.message);
  else if (frame.type === "cycle_detail") drawDetail(frame.cycle);
  else if (model.apply(frame)) draw();
}

async function loadLesson() {
  try {
    const lesson = await api.get(`${base}/lesson/`);
    objects = lesson.objects;
    const text = $("#lesson-text");
    clear(text);
    text.append(...lessonBlocks(lesson.text || "(no notes for this lesson)"));
    $("#lesson-title").textContent = `Lesson ${lesson.position + 1}: ${lesson.name}`;
    draw();
  } catch (err) {
    $("#lesson-text").textContent = err.message;
  }
}

async function mySandbox() {
  const workshop = await api.get(`${base}/`);
  const boxes = await api.get(`${base}/sandboxes/`);
  return boxes.find((s) => s.lesson === workshop.current_lesson) || boxes[0];
}

async function detach() {
  try {
    sandbox = sandbox || await mySandbox();
    const { run } = await api.post(`${base}/sandboxes/${sandbox.id}/detach/`, {});
    model.reset();
    own = new LiveSocket(`/ws/runs/${run.id}/`, { onFrame: onOwnFrame, onStatus: () => {} });
    own.connect();
    $("#mode").textContent = "detached: your own run";
    $("#btn-detach").hidden = true;
    $("#btn-step").hidden = false;
    $("#btn-attach").hidden = false;
    drawQuestion();
  } catch (err) {
    notice(err.message);
  }
}

function attach() {
  if (own) own.close();
  own = null;
  clearNotices();
  $("#mode").textContent = "following the presenter";
  $("#btn-detach").hidden = false;
  $("#btn-step").hidden = true;
  $("#btn-attach").hidden = true;
  // A fresh connection brings a fresh snapshot of the presenter's run.
  follower.close();
  start();
  if (question) loadQuestion(question);
}

function start() {
  follower = new LiveSocket(`/ws/workshops/${code}/`, {
    onFrame, onStatus: (s) => { $("#conn").textContent = s; } });
  follower.connect();
}

$("#btn-detach").addEventListener("click", detach);
$("#btn-attach").addEventListener("click", attach);
$("#btn-step").addEventListener("click", () => own && own.send({ action: "step", cycles: 1 }));
root.dataset.attendee = String(attendeeId);
loadLesson();
api.get(`${base}/`).then((w) => loadQuestion(w.open_question));
start();
