// What each node shows at the viewed position: its verdict in the cycle, pods (new, victim,
// waiting on Permit), usage and marks. Plain data for the card grid and the map.
import { nodeTags } from "../kube-detail.js";
import { fmtTime } from "../util.js";
import {
  livePlacement, nominations, permitWaiters, rebuiltPlacement, victimEnds,
} from "./history.js";
import { POINT_INDEX, nodeVerdicts, verdictRank } from "./model.js";

/** A node's tooltip: labels, taints, cordon. */
export function nodeTitle(name, m) {
  if (!m) return name;
  const labels = Object.entries(m.labels || {}).map(([k, v]) => `  ${k}=${v}`);
  const taints = (m.taints || []).map((t) => `  ${t.key}${t.value ? `=${t.value}` : ""}:${t.effect}`);
  return [name, m.unschedulable ? "unschedulable (cordoned)" : null, "labels:", ...(labels.length ? labels : ["  (none)"]),
    "taints:", ...(taints.length ? taints : ["  (none)"])].filter(Boolean).join("\n");
}

// A node's tags (zone, custom labels, taints, local volumes) and tooltip per meta entry: they
// change only with the run's objects, not at each step.
const tagCache = new WeakMap();
const titleCache = new WeakMap();

function tagsOf(m) {
  if (!m) return [];
  if (!tagCache.has(m)) tagCache.set(m, nodeTags({ ...m, unschedulable: false }));
  return tagCache.get(m);
}

function titleOf(name, m) {
  if (!m) return name;
  if (!titleCache.has(m)) titleCache.set(m, nodeTitle(name, m));
  return titleCache.get(m);
}

/** Verdicts per node. While a run streams by, only the selected node (the rest would
 *  flicker); for a cycle known by its summary only (its trace is on the way), the same: a
 *  summary has counts, not per-node verdicts. */
function verdictsAt(cycle, cursor, names, running) {
  const summary = Boolean(cycle && cycle.filter && "feasible" in cycle.filter);
  if (!running && !summary) return nodeVerdicts(cycle, cursor, names);
  const shown = cycle && cycle.node && cursor >= POINT_INDEX.reserve;
  return new Map(shown ? [[cycle.node, { cls: "selected", text: "★ selected", title: `Selected for ${cycle.pod}` }]] : []);
}

function podChip(p, ctx) {
  const { ends, now, waiting, cycle, showNew, name } = ctx;
  const short = p.pod.split("/").pop();
  if (p.terminating) {
    const end = ends.get(p.pod);
    const left = end ? Math.max(0, end.end - now) : null;
    return { pod: p.pod, cls: "victim", title: `${p.pod}: terminating (preempted${end ? ` by ${end.by}` : ""})${left !== null ? `, gone in ${fmtTime(left)}` : ""}`,
      label: `${short}${left !== null ? ` ${fmtTime(left)}` : ""}` };
  }
  const wait = waiting.get(p.pod);
  if (wait && wait.node === name) {
    return { pod: p.pod, cls: "waiting", title: `${p.pod}: waiting on Permit (assumed on this node, not bound)`, label: `⧗ ${short}` };
  }
  if (showNew && name === cycle.node && p.pod === cycle.pod) return { pod: p.pod, cls: "new", title: `${p.pod}: placed in cycle #${cycle.index}` };
  return { pod: p.pod, title: p.pod };
}

/**
 * One model per node, in the cluster's order:
 * {name, resources, pods, verdict, marks, tags, rank, unschedulable, title, search}.
 * store: the RunStore; cycle: the viewed cycle; running: a run streams by.
 */
export function nodeModels(store, cycle, { running = false, search = new Map() } = {}) {
  const S = store;
  const names = S.nodeNames;
  const verdicts = verdictsAt(cycle, S.cursor, names, running);
  const args = { meta: S.meta, records: S.records, index: S.viewed, cycle, cursor: S.cursor };
  const where = S.rebuilt || !S.live.size ? rebuiltPlacement(args) : livePlacement({ ...args, live: S.live });
  const queues = !S.rebuilt && S.state ? S.state.queues : null;
  const noms = nominations(queues);
  const ctx = {
    ends: victimEnds(S.records, S.meta, S.viewed),
    now: S.rebuilt ? (cycle ? cycle.time : 0) : (S.state ? S.state.time : 0),
    waiting: permitWaiters(queues),
    cycle,
    showNew: Boolean(cycle && S.cursor >= POINT_INDEX.reserve && cycle.node),
  };
  return names.map((name) => {
    const at = where.get(name) || { resources: {}, pods: [] };
    const pods = at.pods.map((p) => podChip(p, { ...ctx, name }));
    const nominated = noms.get(name);
    const m = S.meta.nodes[name];
    const marks = nominated ? `⚑ nominated: ${nominated.map((p) => p.split("/").pop()).join(", ")}`
      : m && m.unschedulable ? "cordoned (spec.unschedulable)" : "";
    let verdict = verdicts.get(name);
    if (nominated && !verdict) verdict = { cls: "nominated", text: "⚑ nominated" };
    return {
      // Cards sort by verdict (the winner and feasible nodes first) unless a run streams by.
      name, resources: at.resources, pods, verdict, marks, tags: tagsOf(m), rank: running ? 0 : verdictRank(verdict),
      unschedulable: Boolean(m && m.unschedulable),
      get title() {
        return `${titleOf(name, m)}${verdict && verdict.title ? `\n\n${verdict.title}` : ""}\npods: ${at.pods.map((p) => p.pod).join(", ") || "(none)"}`;
      },
      search: search.get(name) || name,
    };
  });
}
