// One cycle of the followed run for the attendee page: Filter's verdict per node, the Score
// table (weighted points per plugin, the total) and the outcome, each part saying so when
// the open question conceals it.

import { el, wordBreaks } from "../util.js";

const HIDDEN = "hidden until the reveal";

function filterPart(cycle) {
  if (!cycle.filter) {
    return el("p.muted", "Filter: ", cycle.nodes ? `${cycle.nodes.length} nodes evaluated, verdicts ${HIDDEN}` : HIDDEN);
  }
  const rows = Object.entries(cycle.filter).map(([node, trail]) => {
    const last = trail[trail.length - 1];
    const ok = !last || last.code === "Success";
    return el("li", el(ok ? "b.outcome-Bound" : "b.outcome-Unschedulable", ok ? "✓ " : "✗ "), node,
      ok ? "" : el("span.muted", ` ${last.plugin}: ${(last.reasons || []).join("; ") || last.code}`));
  });
  return el("div", el("h4", "Filter"), el("ul.verdicts", rows));
}

function scorePart(cycle) {
  if (!("totalScore" in cycle)) return el("p.muted", `Score: ${HIDDEN}`);
  const plugins = Object.keys(cycle.score || {});
  const nodes = Object.keys(cycle.totalScore || {});
  if (!nodes.length) return el("p.muted", "Score: did not run (one feasible node or none)");
  return el("div", el("h4", "Score (weighted)"), el("table.table.score-mini",
    el("thead", el("tr", el("th", "node"), plugins.map((p) => el("th", { title: p }, wordBreaks(p))), el("th", "total"))),
    el("tbody", nodes.map((n) => el("tr", el("td", n),
      plugins.map((p) => el("td", String((cycle.score[p][n] || {}).weighted ?? ""))),
      el("td", el("b", String(cycle.totalScore[n]))))))));
}

/** The cycle's detail as elements. */
export function cycleDetail(cycle) {
  const outcome = "outcome" in cycle
    ? el("p", el(`b.outcome-${cycle.outcome}`, cycle.outcome), cycle.node ? ` on ${cycle.node}` : "",
      cycle.message ? el("span.muted", ` ${cycle.message}`) : "")
    : el("p.hidden-pill", `outcome ${HIDDEN}`);
  return [el("h3", `Cycle #${cycle.index}: ${cycle.pod}`), filterPart(cycle), scorePart(cycle), outcome];
}
