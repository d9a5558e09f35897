// The trainer's dashboard: lessons to present, questions with the live tally, the attendees'
// sandboxes (view read-only, reset one or all, with confirmation), close, CSV.

import { api } from "../api.js";
import { $, clear, el, setStatus } from "../util.js";
import { LiveSocket } from "./live.js";

const root = $("#workshop");
const code = root.dataset.code;
const base = `/api/workshops/${code}`;
let workshop = null;

function drawLessons() {
  const list = $("#lessons");
  clear(list);
  for (const lesson of workshop.lessons) {
    const current = lesson.position === workshop.current_lesson;
    const presented = Boolean(lesson.presenter_run);
    list.append(el(`li${current ? ".current" : ""}`, { dataset: { lesson: lesson.position } },
      el("b", `${lesson.position + 1}. ${lesson.name}`),
      current && presented ? el("span.muted", ` on the projector, run #${lesson.presenter_run}`) : null,
      el("button.small", { type: "button", onclick: () => present(lesson.position) },
        presented ? "Present again" : "Present")));
  }
}

async function present(position) {
  await api.post(`${base}/present/`, { lesson: position });
  await refresh();
}

function drawTally(q, tally) {
  const box = $("#open-question");
  clear(box);
  if (!q || q.state !== "asked") return;
  const max = Math.max(1, ...Object.values(tally.answers));
  box.append(el("div.open-q", { dataset: { question: q.id } },
    el("p", el("b", `Cycle ${q.cycle_index}, ${q.point}: `), q.prompt),
    el("p", el("span.tally-count", { id: "tally-count" }, String(tally.count)), " predictions"),
    el("div.tally", Object.entries(tally.answers).flatMap(([answer, n]) => [
      el("span", answer), el("div.bar", { style: `width:${(100 * n) / max}%` }), el("b", String(n))])),
    el("div.row", el("button.primary", { type: "button", id: "btn-reveal", onclick: () => reveal(q) }, "Reveal"),
      el("output.status", { id: "reveal-status" }))));
}

async function reveal(q) {
  try {
    await api.post(`${base}/questions/${q.id}/reveal/`);
    await refreshQuestions();
  } catch (err) {
    setStatus($("#reveal-status"), err.message, "error");
  }
}

async function refreshQuestions() {
  const questions = await api.get(`${base}/questions/`);
  const open = questions.find((q) => q.state === "asked");
  if (open) {
    const full = await api.get(`${base}/questions/${open.id}/`);
    drawTally(open, full.tally);
  } else drawTally(null);
  const past = $("#past-questions");
  clear(past);
  for (const q of questions.filter((x) => x.state === "revealed").reverse()) {
    past.append(el("li", `cycle ${q.cycle_index} ${q.point}: ${q.prompt} → `,
      el("b", (q.answer.answer || []).join(", ") || "none"),
      el("span.muted", ` (${q.answer.plugin || "—"}: ${q.answer.reason})`)));
  }
}

function sandboxRow(s) {
  const run = s.run ? `#${s.run.id} ${s.run.status}, cycle ${s.run.cycle_count}` : "—";
  return el("tr", { dataset: { sandbox: s.id, attendee: s.display_name } },
    el("td", s.display_name), el("td", String(s.lesson + 1)), el("td", run),
    el("td", String(s.reset_count)),
    el("td", el("a", { href: s.view_path }, "View (read-only)"), " ",
      el("button.small.danger", { type: "button", onclick: () => resetOne(s) }, "Reset")));
}

async function refreshSandboxes() {
  const boxes = await api.get(`${base}/sandboxes/`);
  const body = $("#sandboxes tbody");
  clear(body);
  body.append(...boxes.map(sandboxRow));
  $("#att-count").textContent = String(new Set(boxes.map((b) => b.attendee)).size);
}

async function resetOne(s) {
  if (!confirm(`Reset ${s.display_name}'s sandbox of lesson ${s.lesson + 1}? Their runs of it are deleted.`)) return;
  await api.post(`${base}/sandboxes/${s.id}/reset/`);
  setStatus($("#sandbox-status"), `${s.display_name}'s sandbox is back to the lesson.`);
  await refreshSandboxes();
}

async function refresh() {
  workshop = await api.get(`${base}/`);
  $("#ws-state").textContent = workshop.state;
  $("#join-url").textContent = `${location.origin}/join/`;
  drawLessons();
  await Promise.all([refreshQuestions(), refreshSandboxes()]);
}

$("#ask-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.target;
  const body = { point: form.point.value, prompt: form.prompt.value };
  if (form.cycle_index.value !== "") body.cycle_index = Number(form.cycle_index.value);
  try {
    const q = await api.post(`${base}/questions/`, body);
    setStatus($("#ask-status"), `Asked about cycle ${q.cycle_index}.`);
    await refreshQuestions();
  } catch (err) {
    setStatus($("#ask-status"), err.message, "error");
  }
});

$("#btn-reset-all").addEventListener("click", async () => {
  if (!confirm("Reset EVERY attendee's sandboxes to the lessons? Their runs are deleted.")) return;
  const { reset } = await api.post(`${base}/reset/`);
  setStatus($("#sandbox-status"), `${reset} sandboxes are back to their lessons.`);
  await refreshSandboxes();
});

$("#btn-close").addEventListener("click", async () => {
  if (!confirm("Close the workshop? Nobody can join any more.")) return;
  await api.post(`${base}/close/`);
  await refresh();
});

const live = new LiveSocket(`/ws/workshops/${code}/`, {
  onStatus: (s) => { $("#conn").textContent = s; },
  onFrame: (frame) => {
    if (frame.type !== "workshop") return;
    const kind = frame.event.kind;
    if (kind === "tally" || kind === "asked" || kind === "revealed") refreshQuestions();
    else if (kind === "joined") refreshSandboxes();
  },
});
refresh().then(() => live.connect());
