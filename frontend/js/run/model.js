// What a cycle's trace (the simulate contract's CYCLE object) says at each extension point.
import { POINT_LABELS } from "../config-model.js";
import { shortPlugin } from "./decisions.js";

// A cycle's points in the order they run; their labels are the configuration's own.
const TRACE_POINTS = ["queueSort", "preEnqueue", "preFilter", "filter", "postFilter", "preScore",
  "score", "normalizeScore", "reserve", "permit", "preBind", "bind", "postBind", "unreserve"];
export const POINTS = TRACE_POINTS.map((id) => ({ id, label: POINT_LABELS[id] }));
export const POINT_INDEX = Object.fromEntries(POINTS.map((p, i) => [p.id, i]));
export const WHOLE = POINTS.length; // "the whole cycle": every point revealed

const FAIL = new Set(["Error", "Unschedulable", "UnschedulableAndUnresolvable"]);
export const isRejection = (code) => FAIL.has(code);

/** The entries of a list-shaped point, from a full trace or a stream summary. */
export function entries(cycle, id) {
  if (!cycle) return [];
  if (Array.isArray(cycle[id])) return cycle[id];
  const points = cycle.points || {};
  return Array.isArray(points[id]) ? points[id] : [];
}

/** For each node, the filter plugins that ran in order; the last one decided. */
export function filterTrails(cycle) {
  return cycle && cycle.filter && !("feasible" in cycle.filter) ? cycle.filter : {};
}

export function feasibleNodes(cycle) {
  return Object.entries(filterTrails(cycle))
    .filter(([, trail]) => trail.length === 0 || trail[trail.length - 1].code === "Success")
    .map(([name]) => name);
}

function preFilterRejection(cycle) {
  return entries(cycle, "preFilter").find((e) => isRejection(e.code)) || null;
}

/** How an extension point went in this cycle: ran, failed, waited, or notrun (with why). */
export function pointState(cycle, id) {
  if (!cycle) return { state: "future", note: "" };
  const outcome = cycle.outcome;
  const list = entries(cycle, id);
  const bad = list.some((e) => isRejection(e.code));
  switch (id) {
    case "queueSort":
      return { state: "ran", note: cycle.queueSort ? `${cycle.queueSort.plugin}: ${cycle.queueSort.why}.`
        : "The pod was the head of activeQ." };
    case "preEnqueue":
      return { state: "ran", note: cycle.preEnqueue && cycle.preEnqueue.length
        ? `Passed ${cycle.preEnqueue.map((e) => e.plugin).join(", ")} on its way into activeQ.`
        : "The pod passed PreEnqueue when it was added to the queue." };
    case "preFilter":
      return { state: bad ? "failed" : "ran", note: "" };
    case "filter": {
      if (preFilterRejection(cycle)) return { state: "notrun", note: "PreFilter rejected the pod: no node was filtered." };
      const trails = filterTrails(cycle);
      const summary = cycle.filter && "feasible" in cycle.filter ? cycle.filter : null;
      const feasible = summary ? summary.feasible : feasibleNodes(cycle).length;
      const evaluated = summary ? feasible + Object.values(summary.rejected).reduce((a, b) => a + b, 0)
        : Object.keys(trails).length;
      if (!evaluated && cycle.node) return { state: "ran", note: "" };
      return { state: feasible ? "ran" : "failed", note: "" };
    }
    case "postFilter":
      if (!list.length) {
        return { state: "notrun", note: outcome === "Unschedulable" ? "No PostFilter plugin ran." : "PostFilter runs only when no node is feasible." };
      }
      return { state: cycle.preemption ? "ran" : "failed", note: "" };
    case "score":
    case "normalizeScore": {
      const scored = cycle.score ? Object.keys(cycle.score).length : 0;
      if (scored) return { state: "ran", note: "" };
      if (cycle.topScores && cycle.topScores.length) return { state: "ran", note: "" };
      const feasible = cycle.filter && "feasible" in cycle.filter ? cycle.filter.feasible : feasibleNodes(cycle).length;
      return {
        state: "notrun",
        note: feasible === 1 ? "Only one node was feasible: the framework skips scoring." : "No node reached scoring.",
      };
    }
    default:
      if (!list.length) return { state: "notrun", note: notRunNote(cycle, id) };
      if (list.some((e) => e.code === "Wait")) return { state: bad ? "failed" : "waited", note: "" };
      return { state: bad ? "failed" : "ran", note: "" };
  }
}

function notRunNote(cycle, id) {
  if (id === "unreserve") return "Unreserve runs only when Reserve, Permit or binding fails.";
  if (!cycle.node && ["preScore", "reserve", "permit", "preBind", "bind", "postBind"].includes(id)) {
    return "The cycle ended before this point: no node was selected.";
  }
  return "No plugin at this point in this profile.";
}

/** The points a "next point" step walks through: those that ran, plus the filtering core. */
export function walkable(cycle) {
  return POINTS.map((p, i) => [p, i]).filter(([p]) => {
    if (["queueSort", "preEnqueue", "preFilter", "filter"].includes(p.id)) return true;
    const st = pointState(cycle, p.id).state;
    return st !== "notrun";
  }).map(([, i]) => i);
}

/**
 * Each node's look at a point of the cycle: {cls, text, score, title}.
 * upTo is a POINT_INDEX (WHOLE for the finished cycle).
 */
export function nodeVerdicts(cycle, upTo, allNodes) {
  const out = new Map();
  if (!cycle || upTo < POINT_INDEX.filter) return out;
  const trails = filterTrails(cycle);
  const pre = preFilterRejection(cycle);
  const evaluated = Object.keys(trails).length;
  if (pre) {
    for (const name of allNodes) {
      out.set(name, { cls: "filtered", text: `✗ ${pre.plugin}`, plugin: pre.plugin, title: `PreFilter ${pre.plugin}: ${(pre.reasons || []).join("; ")}` });
    }
  } else if (evaluated || cycle.node) {
    for (const name of allNodes) {
      const trail = trails[name];
      if (!trail) {
        out.set(name, { cls: "skipped", text: evaluated ? "not evaluated" : "", title: "Not evaluated in this cycle (PreFilter narrowed the nodes, or enough feasible nodes were found)." });
        continue;
      }
      const last = trail[trail.length - 1];
      if (!last || last.code === "Success") {
        out.set(name, { cls: "feasible", text: "✓ feasible", title: "Passed every Filter plugin." });
      } else {
        out.set(name, {
          cls: "filtered", text: `✗ ${shortPlugin(last.plugin)}`, plugin: last.plugin,
          title: `${last.plugin}: ${last.code}${last.reasons && last.reasons.length ? ` — ${last.reasons.join("; ")}` : ""}`,
        });
      }
    }
  }
  if (upTo >= POINT_INDEX.postFilter && cycle.preemption && cycle.preemption.nominatedNode) {
    const v = out.get(cycle.preemption.nominatedNode) || {};
    out.set(cycle.preemption.nominatedNode, {
      ...v, cls: "nominated", text: "⚑ nominated",
      title: `Nominated for ${cycle.pod} by preemption; victims: ${(cycle.preemption.victims || []).join(", ")}`,
    });
  }
  if (upTo >= POINT_INDEX.score && cycle.totalScore) {
    for (const [name, total] of Object.entries(cycle.totalScore)) {
      const v = out.get(name) || { cls: "feasible", text: "", title: "" };
      out.set(name, { ...v, score: total });
    }
  }
  if (upTo >= POINT_INDEX.reserve && cycle.node) {
    const v = out.get(cycle.node) || {};
    const bound = cycle.outcome === "Bound";
    out.set(cycle.node, {
      ...v, cls: "selected", text: bound || upTo < WHOLE ? "★ selected" : `★ ${cycle.outcome}`,
      title: `Selected for ${cycle.pod}${bound ? "" : ` (${cycle.outcome})`}`,
    });
  }
  return out;
}

/** The FitError-style "why" per node: the first plugin that rejected the pod there. */
export function rejections(cycle, allNodes) {
  const trails = filterTrails(cycle);
  const pre = preFilterRejection(cycle);
  return allNodes.map((name) => {
    if (pre) return { node: name, plugin: pre.plugin, point: "PreFilter", code: pre.code, reasons: pre.reasons || [] };
    const trail = trails[name];
    if (!trail) return { node: name, plugin: "", point: "", code: "", reasons: ["not evaluated in this cycle"] };
    const last = trail[trail.length - 1];
    if (!last || last.code === "Success") return { node: name, plugin: "", point: "Filter", code: "Success", reasons: [] };
    return { node: name, plugin: last.plugin, point: "Filter", code: last.code, reasons: last.reasons || [] };
  });
}

const VERDICT_RANK = { selected: 0, nominated: 1, feasible: 2, filtered: 3, skipped: 4 };

/** Where a node's verdict sorts: the winner, feasible nodes, rejected ones, then the rest. */
export const verdictRank = (verdict) => VERDICT_RANK[(verdict || {}).cls] ?? 5;

/**
 * The Filter matrix's rows: the winner, the feasible nodes (best total first), then the
 * rejected nodes grouped by the plugin that rejected them (biggest group first), then the
 * nodes not evaluated. groups: [{plugin, count, names}] in that order. Unless `ranked`
 * (the walk has not reached Score yet), the feasible nodes keep the cluster's order.
 */
export function filterOrder(cycle, allNodes, { ranked = true } = {}) {
  const trails = filterTrails(cycle);
  const totals = (cycle && cycle.totalScore) || {};
  const feasible = [];
  const byPlugin = new Map();
  const notEvaluated = [];
  for (const name of allNodes) {
    const trail = trails[name];
    if (!trail) {
      notEvaluated.push(name);
      continue;
    }
    const last = trail[trail.length - 1];
    if (!last || last.code === "Success") feasible.push(name);
    else byPlugin.set(last.plugin, [...(byPlugin.get(last.plugin) || []), name]);
  }
  const winner = cycle && cycle.node;
  if (ranked) feasible.sort((a, b) => (b === winner) - (a === winner) || (totals[b] ?? -1) - (totals[a] ?? -1));
  const groups = [...byPlugin.entries()].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]));
  return {
    feasible,
    groups: groups.map(([plugin, names]) => ({ plugin, count: names.length, names })),
    notEvaluated,
  };
}

/** The point a whole cycle opens on: where its story is told. */
export function defaultPoint(cycle) {
  if (!cycle) return null;
  if (cycle.preemption) return POINT_INDEX.postFilter;
  const scored = (cycle.score && Object.keys(cycle.score).length) || (cycle.topScores && cycle.topScores.length);
  if (cycle.outcome === "Bound" && scored) return POINT_INDEX.normalizeScore;
  if (!cycle.outcome && entries(cycle, "permit").some((e) => e.code === "Wait")) return POINT_INDEX.permit;
  if (cycle.outcome === "Rejected") {
    for (const id of ["permit", "reserve"]) if (entries(cycle, id).length) return POINT_INDEX[id];
  }
  return POINT_INDEX.filter;
}

/**
 * When the cycle's outcome was decided on the virtual clock. A pod that waited on Permit
 * gets its verdict later than the cycle began: the stream says when (endTime); a stored
 * trace only says how long the wait could last, which is when a timeout struck.
 */
export function endTime(cycle) {
  if (!cycle) return null;
  if (typeof cycle.endTime === "number") return cycle.endTime;
  const wait = entries(cycle, "permit").find((e) => e.code === "Wait");
  if (wait && cycle.outcome && cycle.outcome !== "Bound" && /timeout/.test(cycle.message || "")) {
    return cycle.time + (wait.timeout || 0);
  }
  return cycle.time;
}
