// The cycle panel: the timeline of extension points, and what the chosen point decided —
// plugin statuses (with what their `detail` says: volume decisions, extender calls), the
// Filter node × plugin matrix, the Score table, preemption with its candidates.
import { el, fmtTime, wordBreaks } from "../util.js";
import {
  entryDetail, extenderFilterBox, extenderScoreBox, preemptionCandidates, shortPlugin,
} from "./decisions.js";
import { esc } from "./nodes.js";
import {
  POINTS, POINT_INDEX, WHOLE, endTime, entries, filterOrder, filterTrails, isRejection, pointState,
} from "./model.js";
import { fillRows } from "./virtual.js";

const POINT_HELP = {
  queueSort: "QueueSort orders activeQ; the scheduler pops its head. PrioritySort: higher priority first, then earlier arrival.",
  preEnqueue: "PreEnqueue plugins decide whether a pod may enter activeQ at all (SchedulingGates keeps gated pods out).",
  preFilter: "PreFilter plugins check the pod once and pre-compute state; they may narrow the nodes or reject the pod outright.",
  filter: "Filter plugins run per node, in order; the first one that does not return Success rejects the node.",
  postFilter: "PostFilter runs only when no node is feasible. DefaultPreemption looks for victims to evict.",
  preScore: "PreScore plugins pre-compute state for scoring the feasible nodes.",
  score: "Score plugins give each feasible node a raw score.",
  normalizeScore: "NormalizeScore maps raw scores to 0..100; each is multiplied by the plugin's weight and summed. The highest total wins; ties are broken by the seeded random choice.",
  reserve: "Reserve plugins claim resources on the selected node (e.g. volumes) before binding.",
  permit: "Permit plugins approve, deny or hold (Wait) the pod before binding.",
  preBind: "PreBind plugins prepare the node (e.g. provision and bind volumes).",
  bind: "Bind plugins bind the pod to the node (DefaultBinder).",
  postBind: "PostBind plugins are told the pod was bound.",
  unreserve: "Unreserve undoes Reserve when a later point fails.",
};

function statusList(list, point = "") {
  if (!list.length) return el("p.muted", "No plugin reported at this point.");
  return el("ul.statuses", list.map((e) => {
    const more = entryDetail(point, e);
    return el("li", { "data-plugin": e.plugin },
      el("code", { title: e.plugin }, shortPlugin(e.plugin)),
      el(`span.code-${e.code}`, e.code),
      e.node ? el("span.muted", `node ${e.node}`) : null,
      e.timeout !== undefined ? el("span.muted", `timeout ${fmtTime(e.timeout)}`) : null,
      e.reasons && e.reasons.length ? el("span", e.reasons.join("; ")) : null,
      more ? el("div.entry-detail", more) : null);
  }));
}

export class CyclePanel {
  constructor(dom, { onPoint, onJump, onPod, onNode }) {
    this.dom = dom; // {title, summary, message, timeline, detail, focus}
    this.onPoint = onPoint;
    this.onJump = onJump;
    this.onPod = onPod;
    this.onNode = onNode;
    this.scoreMode = "all";
    this.scoreSort = { key: "total", dir: -1 };
    this.onlyRejected = false;
    this.matrixFilter = "";
    this.lastKey = "";
  }

  /**
   * ctx: {cycle, full (true when cycle is the contract trace), cursor, point (shown in detail),
   *       nodes (names in the cluster's order), records (cycle records), focusNode, loading,
   *       podMeta, weights ({profile: {plugin: weight}})}
   */
  show(ctx) {
    this.ctx = ctx;
    const { cycle } = ctx;
    const d = this.dom;
    if (!cycle) {
      d.title.textContent = "Cycle";
      d.summary.replaceChildren(el("span.muted", ctx.loading ? "loading…" : "No cycle has run yet. Press n to walk the first cycle point by point, or c to run it whole."));
      d.message.textContent = "";
      d.timeline.replaceChildren(...POINTS.filter((p) => p.id !== "unreserve").map((p) => el("li", el("button.point.future", { type: "button", disabled: true }, p.label))));
      d.detail.replaceChildren();
      d.focus.replaceChildren();
      return;
    }
    d.title.textContent = `Cycle #${cycle.index}`;
    // While walking the cycle point by point, its outcome stays hidden until the end.
    const walking = ctx.cursor < WHOLE;
    d.summary.replaceChildren(...[
      el("button.link-btn", { type: "button", onclick: () => this.onPod(cycle.pod), "aria-label": `Why pending: ${cycle.pod}` }, el("b", cycle.pod)),
      " ",
      walking ? el("span.badge", `walking: ${POINTS[ctx.cursor].label}`)
        : el(`span.outcome.${cycle.outcome || "pending"}`, cycle.outcome || (entries(cycle, "permit").some((e) => e.code === "Wait") ? "waiting on Permit" : "…")),
      !walking && cycle.node ? el("span", ` → ${cycle.node}`) : null,
      // A verdict that came after a Permit wait is dated when it came, not when the pod was popped.
      !walking && endTime(cycle) > cycle.time
        ? el("span.muted.end-time", ` at t=${fmtTime(endTime(cycle))} (popped at t=${fmtTime(cycle.time)})`)
        : el("span.muted", ` at t=${fmtTime(cycle.time)}`),
      cycle.profile && cycle.profile !== "default-scheduler" ? el("span.badge", cycle.profile) : null,
      this.attemptLinks(cycle)].filter(Boolean));
    d.message.textContent = walking ? "" : cycle.message || "";
    this.renderTimeline(cycle, ctx.cursor, ctx.point);
    this.renderDetail(cycle, ctx.point);
    this.renderFocus(cycle, ctx.focusNode);
  }

  attemptLinks(cycle) {
    const mine = (this.ctx.records || []).filter((r) => r.pod === cycle.pod).map((r) => r.index);
    const pos = mine.indexOf(cycle.index);
    const prev = pos > 0 ? mine[pos - 1] : null;
    const next = pos >= 0 && pos < mine.length - 1 ? mine[pos + 1] : null;
    const links = [];
    if (mine.length > 1) links.push(el("span.muted", ` attempt ${pos + 1} of ${mine.length}`));
    if (prev !== null) links.push(el("button.link-btn", { type: "button", onclick: () => this.onJump(prev), "aria-label": `Previous attempt: cycle ${prev}` }, `← #${prev}`));
    if (next !== null) links.push(el("button.link-btn", { type: "button", onclick: () => this.onJump(next), "aria-label": `Next attempt: cycle ${next}` }, `#${next} →`));
    return links.length ? el("span.links", links) : null;
  }

  renderTimeline(cycle, cursor, point) {
    const items = [];
    for (const [i, p] of POINTS.entries()) {
      const st = pointState(cycle, p.id);
      if (p.id === "unreserve" && st.state === "notrun") continue;
      const future = cursor < WHOLE && i > cursor;
      const cls = `point ${future ? "future" : st.state}`;
      items.push(el(`li${p.id === "unreserve" ? ".unreserve" : ""}`, el("button", {
        type: "button", class: cls, "aria-pressed": String(i === point), "data-point": p.id,
        "aria-label": `${p.label}: ${future ? "not reached yet" : st.state}`,
        title: st.note || POINT_HELP[p.id],
        onclick: () => this.onPoint(i),
      }, p.label)));
    }
    this.dom.timeline.replaceChildren(...items);
  }

  renderDetail(cycle, point) {
    const p = POINTS[point];
    const box = this.dom.detail;
    if (!p) {
      box.replaceChildren();
      return;
    }
    const st = pointState(cycle, p.id);
    const parts = [el("h3", p.label), el("p.small.muted", POINT_HELP[p.id])];
    if (st.note && st.state === "notrun") parts.push(el("p", st.note));
    const full = this.ctx.full;
    switch (p.id) {
      case "queueSort":
        parts.push(el("p", "Popped ", el("b", cycle.pod), ` at t=${fmtTime(cycle.time)}.`,
          this.ctx.podMeta ? ` Priority ${this.ctx.podMeta.priority}.` : ""));
        if (cycle.queueSort) {
          const qs = cycle.queueSort;
          parts.push(el("p", el("b", qs.plugin), `: ${qs.why}`,
            qs.runnerUp ? `, ahead of ${qs.runnerUp}.` : "."));
        }
        break;
      case "preEnqueue":
        if (cycle.preEnqueue && cycle.preEnqueue.length) {
          parts.push(statusList(cycle.preEnqueue, p.id));
          break;
        }
        parts.push(el("p", this.ctx.podMeta && this.ctx.podMeta.gates && this.ctx.podMeta.gates.length
          ? `The pod's scheduling gates (${this.ctx.podMeta.gates.join(", ")}) had been removed.`
          : "The pod has no scheduling gates: SchedulingGates let it into activeQ."));
        break;
      case "filter":
        parts.push(podGroupBox(cycle.podGroup));
        parts.push(batchBox(cycle.batch));
        parts.push(full ? this.filterMatrix(cycle) : this.filterSummary(cycle));
        if (full) parts.push(extenderFilterBox(filterTrails(cycle)));
        break;
      case "postFilter":
        parts.push(statusList(entries(cycle, "postFilter"), p.id));
        if (cycle.preemption) parts.push(this.preemptionBox(cycle));
        break;
      case "score":
      case "normalizeScore":
        if (st.state !== "notrun") {
          // Score shows the plugins' raw scores; NormalizeScore the whole arithmetic.
          if (!this.userMode) this.scoreMode = p.id === "score" ? "raw" : "all";
          parts.push(full ? this.scoreTable(cycle) : this.topScores(cycle));
          if (full) parts.push(extenderScoreBox(cycle.score));
        }
        break;
      default:
        parts.push(statusList(entries(cycle, p.id), p.id));
        if (p.id === "permit") parts.push(this.permitEnd(cycle));
        if (!full && ["reserve", "unreserve", "preBind", "bind"].includes(p.id) && st.state !== "notrun") {
          parts.push(el("p.small.muted", this.ctx.loading ? "Loading the plugins' details…" : "Summary only: the plugins' details come with the full trace."));
        }
    }
    if (!full && ["filter", "score", "normalizeScore"].includes(p.id)) {
      parts.push(el("p.small.muted", this.ctx.loading ? "Loading the full detail…" : "Summary only (full detail unavailable)."));
    }
    // Boxes that have nothing to say (no extender...) are null: leave them out, not "null".
    box.replaceChildren(...parts.filter(Boolean));
  }

  /** How a Permit wait ended: allowed (binding went on), rejected (timeout...), or not yet. */
  permitEnd(cycle) {
    if (!entries(cycle, "permit").some((e) => e.code === "Wait") || this.ctx.cursor < WHOLE) return null;
    if (!cycle.outcome) return el("p.permit-end", "Still waiting: the pod is held on its node until every waiting plugin allows it, one rejects it, or a timeout passes.");
    if (cycle.outcome === "Bound") return el("p.permit-end", el("span.code-Success", "Allowed"), ": the wait ended and the binding cycle went on.");
    return el("p.permit-end", el(`span.outcome.${cycle.outcome}`, cycle.outcome), " when the wait ended: ", cycle.message || "", ` Unreserve ran at t=${fmtTime(endTime(cycle))}.`);
  }

  filterSummary(cycle) {
    const f = cycle.filter || {};
    if (!("feasible" in f)) return el("p.muted", "…");
    return el("ul.statuses", el("li", el("span.code-Success", `${f.feasible} feasible`)),
      Object.entries(f.rejected || {}).map(([plugin, n]) => el("li", el("code", plugin), el("span.code-Unschedulable", `rejected ${n}`))));
  }

  topScores(cycle) {
    return el("ol", (cycle.topScores || []).map((t) => el("li", `${t.node}: ${t.score}`)));
  }

  preemptionBox(cycle) {
    const pre = cycle.preemption;
    const next = (this.ctx.records || []).find((r) => r.pod === cycle.pod && r.index > cycle.index);
    return el("div.preempt-box",
      el("p", "Preemption nominated ", el("b", pre.nominatedNode), ` for ${cycle.pod}.`),
      el("p", "Victims (graceful termination): ", (pre.victims || []).length ? pre.victims.map((v, i) =>
        el("span", i ? ", " : "", el("span.chip.victim", v))) : "none"),
      preemptionCandidates(pre),
      el("p", next
        ? el("button.link-btn", { type: "button", onclick: () => this.onJump(next.index), "aria-label": `Preemptor's next cycle ${next.index}` },
          `The preemptor's next cycle: #${next.index} (${next.outcome || "pending"}${next.node ? ` → ${next.node}` : ""}) →`)
        : el("span.muted", "The preemptor has not been retried yet: it waits for the victims to terminate.")));
  }

  /** Node × plugin: the winner, the feasible nodes, then the rejected ones grouped by the
   *  plugin that rejected them, then those not evaluated; long tables draw a window. */
  filterMatrix(cycle) {
    const trails = filterTrails(cycle);
    const plugins = [];
    for (const trail of Object.values(trails)) {
      for (const e of trail) if (!plugins.includes(e.plugin)) plugins.push(e.plugin);
    }
    // While the walk has not reached Score, the winner and the totals stay hidden.
    const order = filterOrder(cycle, this.ctx.nodes, { ranked: this.ctx.cursor > POINT_INDEX.score });
    const evaluated = Object.keys(trails).length;
    const tools = el("div.detail-tools",
      el("span", el("b.code-Success", `${order.feasible.length} feasible`), ` of ${evaluated} evaluated`,
        order.notEvaluated.length ? `, ${order.notEvaluated.length} not evaluated` : ""),
      order.groups.map((g) => el("span.badge", { title: g.plugin }, `${shortPlugin(g.plugin)}: ${g.count}`)),
      el("label.inline", el("input", {
        type: "checkbox", checked: this.onlyRejected, "aria-label": "Show only rejected nodes",
        onchange: (e) => { this.onlyRejected = e.target.checked; this.rerender(); },
      }), "only rejected"),
      el("label.inline", "node", el("input", {
        type: "search", value: this.matrixFilter, "aria-label": "Filter matrix rows by node name", size: 10,
        oninput: (e) => { this.matrixFilter = e.target.value; this.rerenderSoon(); },
      })));
    const pre = entries(cycle, "preFilter").filter((e) => isRejection(e.code) || e.code === "Skip");
    const q = this.matrixFilter.trim().toLowerCase();
    const rejected = order.groups.flatMap((g) => g.names);
    const names = (this.onlyRejected ? rejected : [...order.feasible, ...rejected, ...order.notEvaluated])
      .filter((name) => !q || name.toLowerCase().includes(q));
    const head = `<thead><tr><th scope="col">node</th>${plugins.map((p) => `<th scope="col" class="vert" title="${esc(p)}">${esc(shortPlugin(p))}</th>`).join("")}<th scope="col">verdict</th></tr></thead>`;
    const rowHtml = (i) => {
      const name = names[i];
      const trail = trails[name];
      const last = trail ? trail[trail.length - 1] : null;
      const ok = trail && (!last || last.code === "Success");
      const byPlugin = Object.fromEntries((trail || []).map((e) => [e.plugin, e]));
      const cells = plugins.map((p) => {
        const e = byPlugin[p];
        if (!e) return '<td class="cell none" title="not run">·</td>';
        if (e.code === "Success") return '<td class="cell ok" title="Success">✓</td>';
        const why = (e.reasons || []).join("; ") || e.code;
        return `<td class="cell bad" title="${esc(e.code)}: ${esc(why)}">✗ ${esc(why)}</td>`;
      }).join("");
      const verdict = !trail ? '<span class="muted">not evaluated</span>'
        : ok ? '<span class="code-Success">feasible</span>' : `<span class="code-Unschedulable" title="${esc(last.plugin)}">${esc(shortPlugin(last.plugin))}</span>`;
      const focus = name === this.ctx.focusNode ? ' class="focus-row"' : "";
      return `<tr data-node="${esc(name)}"${focus}><th scope="row"><button type="button" class="link-btn" data-node="${esc(name)}">${esc(name)}</button></th>${cells}<td>${verdict}</td></tr>`;
    };
    const wrap = el("div.matrix-wrap");
    fillRows(wrap, {
      tableOpen: `<table class="data matrix" aria-label="Filter results: node by plugin" aria-rowcount="${names.length + 1}">${head}`,
      count: names.length, rowHtml, cols: plugins.length + 2,
    });
    wrap.addEventListener("click", (event) => {
      const b = event.target.closest("button[data-node]");
      if (b) this.onNode(b.dataset.node);
    });
    return el("div", pre.length ? el("p.small", "PreFilter results: ", pre.map((e) => `${e.plugin} ${e.code} ${(e.reasons || []).join("; ")}`).join(" · ")) : null, tools, wrap);
  }

  /** A Score plugin's weight: the profile's (a weight of 0 runs as 1, as in kube-scheduler),
   *  else what the trace's arithmetic shows. */
  weightOf(cycle, plugin) {
    const profile = (this.ctx.weights || {})[cycle.profile || "default-scheduler"] || {};
    if (profile[plugin] !== undefined) return profile[plugin] || 1;
    const any = Object.values(cycle.score[plugin] || {}).find((c) => c.normalized);
    return any ? any.weighted / any.normalized : null;
  }

  scoreTable(cycle) {
    const plugins = Object.keys(cycle.score || {});
    const totals = cycle.totalScore || {};
    const nodes = Object.keys(totals);
    if (!nodes.length) return el("p.muted", "No scores recorded.");
    const winner = cycle.node;
    const best = winner in totals ? totals[winner] : Math.max(...Object.values(totals));
    const modes = this.scoreMode === "all" ? ["raw", "normalized", "weighted"] : [this.scoreMode];
    const value = (node, key) => {
      if (key === "total") return totals[node];
      if (key === "node") return node;
      const [plugin, kind] = key.split("\u0000");
      const cell = (cycle.score[plugin] || {})[node];
      return cell ? cell[kind] : null;
    };
    const { key, dir } = this.scoreSort;
    const sorted = nodes.slice().sort((a, b) => {
      const va = value(a, key), vb = value(b, key);
      if (typeof va === "string") return dir * va.localeCompare(vb);
      // Among equal totals the winner (the seed's pick among the ties) comes first.
      return dir * ((va ?? -Infinity) - (vb ?? -Infinity)) || (b === winner) - (a === winner) || a.localeCompare(b);
    });
    const sortTh = (label, k, attrs = {}) => el("th", {
      scope: "col", class: k === "node" ? "" : "num",
      "aria-sort": key === k ? (dir > 0 ? "ascending" : "descending") : "none", ...attrs,
    }, el("button.sort", {
      type: "button", "aria-label": `Sort by ${label.replace("\n", " ")}`,
      onclick: () => {
        this.scoreSort = { key: k, dir: key === k ? -dir : (k === "node" ? 1 : -1) };
        this.rerender();
      },
    }, wordBreaks(label)));
    const weights = Object.fromEntries(plugins.map((p) => [p, this.weightOf(cycle, p)]));
    const head1 = el("tr", el("td", ""),
      plugins.map((p) => el("th", { scope: "colgroup", colspan: modes.length, class: "num group" },
        wordBreaks(p), weights[p] ? el("span.muted", ` ×${weights[p]}`) : null)),
      el("td", ""));
    const short = { raw: "raw", normalized: "norm", weighted: "wtd" };
    const head2 = el("tr", sortTh("node", "node"), plugins.flatMap((p) => modes.map((m) =>
      sortTh(modes.length > 1 ? short[m] : `${p}${weights[p] ? ` ×${weights[p]}` : ""}`, `${p}\u0000${m}`, { title: `${p} ${m}` }))),
    sortTh("total", "total"));
    const rowHtml = (i) => {
      const n = sorted[i];
      const isWinner = n === winner;
      const tie = !isWinner && totals[n] === best;
      const cells = plugins.flatMap((p) => modes.map((m) => {
        const cell = (cycle.score[p] || {})[n];
        return `<td class="num">${cell ? esc(cell[m]) : "–"}</td>`;
      })).join("");
      return `<tr class="${isWinner ? "winner" : tie ? "tie" : ""}" data-node="${esc(n)}"><th scope="row"><button type="button" class="link-btn" data-node="${esc(n)}">${esc(n)}</button>${isWinner ? " ★" : tie ? " =" : ""}</th>${cells}<td class="num"><b>${esc(totals[n])}</b></td></tr>`;
    };
    const ties = nodes.filter((n) => n !== winner && totals[n] === best).length;
    const tools = el("div.detail-tools",
      el("span", "Show"),
      ["raw", "normalized", "weighted", "all"].map((m) => el("label.inline", el("input", {
        type: "radio", name: "score-mode", value: m, checked: this.scoreMode === m,
        "aria-label": `Show ${m} scores`,
        onchange: () => { this.scoreMode = m; this.userMode = true; this.rerender(); },
      }), m)),
      winner ? el("span", "★ winner ", el("b", winner), ties ? `, = ${ties} tie(s) broken by the seed` : "") : null);
    const wrap = el("div.score-wrap");
    const thead = el("thead", modes.length > 1 ? [head1, head2] : [head2]);
    fillRows(wrap, {
      tableOpen: `<table class="data scores" aria-label="Score table" aria-rowcount="${sorted.length + 1}">`,
      count: sorted.length, rowHtml, cols: plugins.length * modes.length + 2,
    });
    // The head keeps its sort buttons' handlers: it goes in as elements, not markup.
    wrap.querySelector("table").prepend(thead);
    wrap.addEventListener("click", (event) => {
      const b = event.target.closest("tbody button[data-node]");
      if (b) this.onNode(b.dataset.node);
    });
    return el("div", tools, wrap);
  }

  renderFocus(cycle, name) {
    const box = this.dom.focus;
    if (!name) {
      box.replaceChildren();
      return;
    }
    const trail = filterTrails(cycle)[name];
    const scores = Object.entries(cycle.score || {}).map(([p, byNode]) => [p, byNode[name]]).filter(([, c]) => c);
    box.replaceChildren(el("div.panel", { style: "margin-top:.6rem" },
      el("h3", `Node ${name} in cycle #${cycle.index}`,
        el("button.icon", { type: "button", "aria-label": "Close node detail", onclick: () => this.onNode(null), style: "float:right" }, "✕")),
      trail ? statusList(trail.map((e) => ({ ...e, node: undefined })), "filter")
        : el("p.muted", this.ctx.full ? "Not evaluated by Filter in this cycle." : "Loading…"),
      scores.length ? el("p", "Scores: ", scores.map(([p, c]) => `${p} ${c.raw}→${c.normalized} (×=${c.weighted})`).join(" · "),
        ` · total ${cycle.totalScore[name]}`) : null));
  }

  rerender() {
    if (this.ctx) this.renderDetail(this.ctx.cycle, this.ctx.point);
  }

  rerenderSoon() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const active = document.activeElement;
      const wasSearch = active && active.type === "search" && this.dom.detail.contains(active);
      this.rerender();
      if (wasSearch) {
        const input = this.dom.detail.querySelector('input[type="search"]');
        if (input) {
          input.focus();
          input.setSelectionRange(input.value.length, input.value.length);
        }
      }
    }, 150);
  }
}

export { POINT_INDEX };

/** The pod group scheduling cycle (v1.36+, the cycle's `podGroup`): the group's members were
 * tried together, and the group's verdict decided whether this pod's placement was kept. */
function podGroupBox(group) {
  if (!group) return null;
  const head = el("p.pod-group-head", "Pod group ", el("b", group.name),
    ` (scheduled together from cycle #${group.cycle}: `, group.members.join(", "), "): ",
    el("b", group.result), group.message ? ` \u2014 ${group.message}` : ".");
  const calls = (group.placementFeasible || []).map((call) => el("li",
    `PlacementFeasible ${call.plugin}: ${call.code}`,
    call.reasons.length ? ` (${call.reasons.join(", ")})` : ` (${call.scheduled} scheduled, ${call.remaining} remaining)`));
  for (const call of group.permit || []) {
    calls.push(el("li", `Permit in the group's attempt, ${call.pod} on ${call.node}: ${call.code}`,
      call.reasons.length ? ` (${call.reasons.join(", ")})` : ""));
  }
  return el("div.pod-group-box", head, calls.length ? el("ul.vol-list", calls) : null);
}

/** OpportunisticBatching (v1.35+, the cycle's `batch`): whether the previous cycle's ranking
 * gave this pod its node, so Filter ran on that node alone and nothing was scored. */
function batchBox(batch) {
  if (!batch) return null;
  const lines = [];
  if (batch.hint) {
    const prev = batch.previousNode;
    lines.push(el("p", "OpportunisticBatching: same signature as the previous pod, whose node ",
      prev ? el("b", prev.node) : "", prev ? ` now rejects it (${prev.plugin}: ${(prev.reasons || []).join(", ")})` : "",
      "; the previous ranking's next node ", el("b", batch.hint), " is tried alone",
      batch.result === "hint_used" ? ": it passed, so the pod goes there without scoring." : "."));
  } else {
    lines.push(el("p.small.muted", `OpportunisticBatching: signed, no hint (${batch.noHint}).`));
  }
  return el("div.batch-box", lines);
}
