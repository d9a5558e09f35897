// "Why is this pod pending?": the pod's latest attempt, its FitError message, and per node
// the first plugin that rejected it.
import { el, fmtTime } from "../util.js";
import { rejections } from "./model.js";
import { esc } from "./nodes.js";
import { fillRows } from "./virtual.js";

function queueOf(queues, pod) {
  for (const [name, list] of Object.entries(queues || {})) {
    const entry = (list || []).find((e) => e.pod === pod);
    if (entry) return [name, entry];
  }
  return [null, null];
}

/**
 * ctx: {records, meta, state, nodes (names), detail(index) -> Promise<trace>, jump(index), upTo}
 * upTo: only cycles up to this index count (the history position).
 */
export async function explain(ctx, pod) {
  const rows = ctx.records.filter((r) => r.pod === pod && r.index <= ctx.upTo);
  const bound = (ctx.state && ctx.state.bindings || {})[pod];
  const metaPod = ctx.meta.pods[pod];
  const parts = [];
  if (!metaPod && !rows.length) return el("p.status.error", `No pod ${pod} in this run.`);
  if (metaPod && metaPod.node) {
    return el("p", el("b", pod), ` was already running on ${metaPod.node} when the run started.`);
  }
  const last = rows[rows.length - 1];
  const jump = (i) => el("button.link-btn", { type: "button", onclick: () => ctx.jump(i), "aria-label": `Show cycle ${i}` }, `cycle #${i}`);
  if (last && last.outcome === "Bound") {
    return el("p", el("b", pod), ` is not pending: it was bound to ${last.node} in `, jump(last.index),
      rows.length > 1 ? ` after ${rows.length - 1} failed attempt(s).` : ".");
  }
  if (bound && ctx.upTo >= ctx.latest) {
    return el("p", el("b", pod), ` is bound to ${bound}.`);
  }
  const [queue, entry] = queueOf(ctx.state && ctx.state.queues, pod);
  if (!last) {
    if (queue === "gated" || (metaPod && metaPod.gates && metaPod.gates.length && !queue)) {
      return el("p", el("b", pod), " is gated: PreEnqueue (SchedulingGates) keeps it out of activeQ while it has scheduling gates ",
        el("code", (metaPod && metaPod.gates || []).join(", ") || (entry && entry.reason) || ""), ".");
    }
    if (queue === "waitingOnPermit") return el("p", el("b", pod), ` is waiting on Permit at ${entry.node}.`);
    return el("p", el("b", pod), ` has not been attempted yet${queue ? ` (it is in ${queue})` : ""}.`);
  }
  parts.push(el("p", el("b", pod), ` — latest attempt `, jump(last.index), ` at t=${fmtTime(last.time)}: `,
    el(`span.outcome.${last.outcome || "pending"}`, last.outcome || "pending"), rows.length > 1 ? ` (${rows.length} attempts)` : "",
    queue ? ` · now in ${queue}` : ""));
  if (queue === "waitingOnPermit") {
    parts.push(el("p", `Waiting on Permit at ${entry.node}${entry.nominatedNode ? ` (its status.nominatedNodeName is ${entry.nominatedNode})` : ""}.`));
  }
  const trace = await ctx.detail(last.index);
  if (!trace) {
    parts.push(el("p.status.error", "The cycle's detail could not be loaded."));
    return el("div", parts);
  }
  if (trace.message) parts.push(el("div.fit", trace.message));
  if (trace.preemption) {
    parts.push(el("p", "Preemption nominated ", el("b", trace.preemption.nominatedNode),
      `; victims ${trace.preemption.victims.join(", ") || "none"} are terminating.`));
  }
  const all = rejections(trace, ctx.nodes);
  const rejected = all.filter((r) => r.code !== "Success");
  const groups = {};
  for (const r of rejected) {
    const key = r.plugin || "(not evaluated)";
    groups[key] = (groups[key] || 0) + 1;
  }
  parts.push(el("p.small", Object.entries(groups).map(([p, n]) => el("span.badge", `${p}: ${n}`)), " "));
  // Rejected nodes first, grouped by the plugin that rejected them; a window of rows at a time.
  const rank = (r) => (r.code === "Success" ? 2 : r.plugin ? 0 : 1);
  all.sort((x, y) => rank(x) - rank(y) || (groups[y.plugin] || 0) - (groups[x.plugin] || 0) || x.plugin.localeCompare(y.plugin));
  const wrap = el("div.table-wrap", { style: "max-height:18rem" });
  fillRows(wrap, {
    tableOpen: `<table class="data" aria-label="First plugin that rejected ${esc(pod)} per node"><thead><tr><th>node</th><th>first rejecting plugin</th><th>reason</th></tr></thead>`,
    count: all.length, cols: 3,
    rowHtml: (i) => {
      const r = all[i];
      const who = r.code === "Success" ? '<span class="code-Success">feasible</span>'
        : r.plugin ? `<code>${esc(`${r.point ? `${r.point}/` : ""}${r.plugin}`)}</code>` : '<span class="muted">—</span>';
      return `<tr data-node="${esc(r.node)}"><td>${esc(r.node)}</td><td>${who}</td><td class="small">${esc(r.reasons.join("; "))}</td></tr>`;
    },
  });
  parts.push(wrap);
  return el("div", parts);
}
