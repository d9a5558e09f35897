// The run view's "Global placement" panel: the engine's optimize answer for the run's cluster
// (GET /api/runs/<id>/global-placement/) beside the scheduler's own placement: the pods whose
// node differs, the pods the scheduler left pending that the solver binds with the early
// decision that took their node, the scheduler's pods whose constraints later pods broke, and
// the Filter plugins the solver does not model.
import { api } from "../api.js";
import { $, clear, el, setStatus } from "../util.js";
import { placementRows, violationLines } from "./placement-model.js";

const TIME_LIMIT_SECONDS = 10;

function blockedLine(g) {
  const b = g.blockedBy;
  if (!b) return el("li", `${g.pod} fits ${g.optimalNode} in the global placement.`);
  return el("li", `${g.pod} fits ${g.optimalNode}, which cycle ${b.cycle} gave to ${b.pod}`,
            ` (globally ${b.optimalNode ? `on ${b.optimalNode}` : "left out"}).`);
}

function render(target, out) {
  clear(target);
  const rows = placementRows(out);
  target.append(
    el("div.verdicts",
       el("span", "Scheduler (one pod at a time): ", el("b#global-sched-bound", String(out.scheduler.bound)), " bound"),
       el("span", `Global placement (${out.optimal.status}): `, el("b#global-opt-bound", String(out.optimal.bound)), " bound"),
       el("span.muted", `solved in ${out.solverSeconds}s`)),
  );
  if (out.gained.length) {
    target.append(el("h3", "Left pending by the scheduler, bound globally"),
                  el("ul.blocked#global-gained", out.gained.map(blockedLine)));
  }
  const broken = violationLines(out);
  if (broken.length) {
    target.append(el("h3", "Bound by the scheduler, refused once later pods are in place"),
                  el("p.muted", "Required pod affinity and DoNotSchedule spread are checked in a pod's own cycle only: a pod bound later broke these. The global placement holds as a whole, so it can bind fewer pods than the scheduler."),
                  el("ul.blocked#global-violations", broken.map((line) => el("li", line))));
  }
  if (out.scheduler.preempted.length) {
    target.append(el("p#global-preempted", `Preempted by the scheduler (the global placement keeps running pods where they are): ${out.scheduler.preempted.join(", ")}.`));
  }
  if (rows.length) {
    target.append(el("div.table-wrap", el("table.data#global-table",
      el("thead", el("tr", el("th", "Pod"), el("th", "Scheduler"), el("th", "Global"))),
      el("tbody", rows.map((r) => el(r.gained ? "tr.gained" : "tr",
        el("td", r.pod), el("td", r.scheduler || "pending"), el("td", r.global || "pending")))))));
  } else {
    target.append(el("p", "The scheduler's placement binds as many pods as the global one."));
  }
  target.append(el("p.muted#global-unmodelled", out.unmodelled.length
    ? `Not modelled by the solver (their verdict on the cluster before any pending pod is placed still holds): ${out.unmodelled.join(", ")}.`
    : "Every enabled Filter plugin is modelled."));
}

export function mountGlobalPlacement(panel) {
  const button = $("#global-solve", panel);
  const status = $("#global-status", panel);
  const result = $("#global-result", panel);
  button.addEventListener("click", async () => {
    button.disabled = true;
    setStatus(status, "Solving…");
    try {
      const out = await api.get(`/api/runs/${panel.dataset.run}/global-placement/?time_limit=${TIME_LIMIT_SECONDS}`);
      render(result, out);
      setStatus(status, "");
    } catch (err) {
      clear(result);
      setStatus(status, err.message, "error");
    } finally {
      button.disabled = false;
    }
  });
}

const panel = document.getElementById("global-placement");
if (panel) mountGlobalPlacement(panel);
