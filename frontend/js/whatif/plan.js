// The capacity-planning page: POST the template to /api/clusters/<id>/plans/, then poll
// /api/plans/<id>/ and show each trial of the search as it ends, then the answer.
import { api } from "../api.js";
import { $, clear, el, setStatus } from "../util.js";

const POLL_MS = 400;
const page = $("#plan-page");
const form = $("#plan-form");
const status = $("#plan-status");

function trialLine(t) {
  if (t.phase === "capacity") return el("li", `counted more copies of ${t.shapes} pod shape(s)`);
  return el("li", { dataset: { nodes: t.nodes } },
            `${t.phase}: ${t.nodes} node(s) added → ${t.bound} bound, ${t.pending} pending`);
}

function renderResult(target, job) {
  clear(target);
  const r = job.result;
  const name = job.template.metadata.name;
  target.append(el("p.verdict", "Nodes to add: ", el("b#plan-answer", String(r.nodesToAdd)),
    r.nodesToAdd ? ` (${name}-1 … ${name}-${r.nodesToAdd})` : "",
    r.maxNodesReached ? " — the limit was reached: more copies might bind more pods" : ""));
  if (r.warnings.length) {
    target.append(el("h3", `Warnings (${r.warnings.length}): input kube-scheduler v${r.release} does not honour as given`),
      el("ul#plan-warnings", r.warnings.map((w) => el("li", el("code", w)))));
  }
  if (r.stillPending.length) {
    target.append(el("h3", `Pending with any number of copies (${r.stillPending.length})`),
      el("div.table-wrap", el("table.data#plan-pending",
        el("thead", el("tr", el("th", "Pod"), el("th", "On a copy of the template"), el("th", "Scheduler's message"))),
        el("tbody", r.stillPending.map((p) => el("tr", el("td", p.pod), el("td", p.onTemplate || ""), el("td", p.message)))))));
  }
  const shapes = (r.capacity && r.capacity.shapes) || [];
  if (shapes.length) {
    target.append(el("h3", "How many more copies of each pod fit afterwards"),
      el("div.table-wrap", el("table.data#plan-capacity",
        el("thead", el("tr", el("th", "Pod"), el("th.num", "Pending like it"), el("th.num", "More fit"), el("th", "Stopped by"))),
        el("tbody", shapes.map((s) => el("tr", el("td", s.pod), el("td.num", String(s.shapeOf)),
          el("td.num", s.limited ? `${s.moreFit}+` : String(s.moreFit)), el("td", s.stoppedBy || "the limit")))))));
  }
}

async function follow(id) {
  const progress = $("#plan-progress");
  for (;;) {
    const job = await api.get(`/api/plans/${id}/`);
    clear(progress);
    progress.append(...job.progress.map(trialLine));
    if (job.status === "done") {
      renderResult($("#plan-result"), job);
      setStatus(status, "done", "ok");
      return;
    }
    if (job.status === "failed") {
      setStatus(status, job.error, "error");
      return;
    }
    setStatus(status, `${job.status}…`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const data = new FormData(form);
  setStatus(status, "queued…");
  clear($("#plan-progress"));
  try {
    const job = await api.post(`/api/clusters/${page.dataset.cluster}/plans/`, {
      template: data.get("template"), maxNodes: Number(data.get("maxNodes")),
    });
    await follow(job.id);
  } catch (err) {
    setStatus(status, err.message, "error");
  }
});
