// The workshop list: the ones you lead or attend, and the form that creates one from lesson
// clusters (yours and the shared demo lessons).

import { api, getAll } from "../api.js";
import { $, clear, el, setStatus } from "../util.js";

async function drawList() {
  const box = $("#workshop-list");
  const workshops = await api.get("/api/workshops/");
  clear(box);
  if (!workshops.length) box.append(el("p.muted", "No workshops yet."));
  for (const w of workshops) {
    box.append(el("article.card", { dataset: { code: w.code } },
      el("h3", el("a", { href: `/workshops/${w.code}/` }, w.title)),
      el("p", el("b.join-code-small", w.code), ` · ${w.role} · ${w.state}`,
        ` · ${w.lessons.length} lesson${w.lessons.length === 1 ? "" : "s"}`, ` · v${w.release}`,
        w.feature_gates ? ` · gates ${w.feature_gates}` : "")));
  }
  if (workshops.some((w) => w.role === "attendee")) $("#create-panel").hidden = true;
}

// The lessons in the order they were ticked: that is the order the workshop presents them.
const ticked = [];

function drawOrder() {
  for (const badge of document.querySelectorAll("#lesson-choices .lesson-order")) {
    const at = ticked.indexOf(Number(badge.dataset.cluster));
    badge.textContent = at < 0 ? "" : String(at + 1);
  }
}

function tick(event) {
  const id = Number(event.target.value);
  const at = ticked.indexOf(id);
  if (event.target.checked && at < 0) ticked.push(id);
  else if (!event.target.checked && at >= 0) ticked.splice(at, 1);
  drawOrder();
}

async function drawChoices() {
  const box = $("#lesson-choices");
  const clusters = await getAll("/api/clusters/?page_size=200");
  clear(box);
  for (const c of clusters) {
    box.append(el("label", el("input", { type: "checkbox", name: "lessons", value: c.id, onchange: tick }),
      el("b.lesson-order", { dataset: { cluster: c.id }, "aria-label": "lesson number" }),
      ` ${c.name}`, c.description ? el("span.muted", ` — ${c.description.slice(0, 90)}`) : ""));
  }
}

$("#create-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.target;
  const lessons = [...ticked];
  try {
    const w = await api.post("/api/workshops/", { title: form.title.value, hours: Number(form.hours.value), lessons,
                                                  release: form.release.value, feature_gates: form.feature_gates.value.trim() });
    location.href = `/workshops/${w.code}/`;
  } catch (err) {
    // A gate kube-scheduler refuses is answered under feature_gates: mark the input.
    form.feature_gates.classList.toggle("invalid", Boolean(err.body && err.body.feature_gates));
    const messages = err.status === 400 ? err.fieldErrors().map((x) => `${x.path}: ${x.message}`) : [err.message];
    setStatus($("#create-status"), messages.join("\n"), "error");
  }
});

drawList();
drawChoices();
