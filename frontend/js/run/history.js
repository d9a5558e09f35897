// The run's history as plain data: cycle records, where every pod is at a viewed position,
// and which victims are still terminating. No DOM, no fetching: node --test runs it as is.
import { POINT_INDEX } from "./model.js";

const DEFAULT_GRACE = 30;

/** The timeline helper answers positional rows to stay small; the rest of the view reads
 *  named fields, so rows become records here, once. */
export function cycleRecord(row) {
  if (!Array.isArray(row)) return row;
  const [index, time, pod, outcome, node, preemption] = row;
  return { index, time, pod, outcome: outcome || null, node: node || null, preemption: preemption || null };
}

/** A stream summary or a full trace reduced to the record the history needs. */
export function recordOf(cycle) {
  return {
    index: cycle.index, time: cycle.time, pod: cycle.pod, outcome: cycle.outcome || null,
    node: cycle.node || null, preemption: cycle.preemption || null,
  };
}

const graceOf = (meta, pod) => ((meta.pods[pod] || {}).grace ?? DEFAULT_GRACE);

/** Victim pod -> {by: preemptor pod, end: virtual time its termination ends}, up to `index`. */
export function victimEnds(records, meta, index) {
  const ends = new Map();
  for (const r of records) {
    if (!r || !r.preemption || r.index > index) continue;
    for (const v of r.preemption.victims || []) ends.set(v, { by: r.pod, end: r.time + graceOf(meta, v) });
  }
  return ends;
}

/** The cycle being walked bound its pod; before Reserve the pod is not on the node yet. */
export function unplaced(cycle, cursor) {
  return cycle && cursor < POINT_INDEX.reserve && cycle.outcome === "Bound" ? cycle : null;
}

function addPod(usage, pod, requests, sign) {
  for (const [r, v] of Object.entries(requests)) {
    if (usage.resources[r]) usage.resources[r][0] += sign * v;
    else if (v && sign > 0) usage.resources[r] = [v, 0];
  }
  if (usage.resources.pods) usage.resources.pods[0] += sign;
}

function emptyUsage(nodeMeta) {
  const resources = {};
  for (const [r, alloc] of Object.entries(nodeMeta.allocatable || {})) resources[r] = [0, alloc];
  return { resources, pods: [] };
}

/**
 * Pods and usage per node rebuilt from the run's objects and cycle records: the pods that
 * ran from the start, plus every pod bound up to `index`, minus victims whose grace period
 * has passed. `cursor` is how far into cycle `index` the walk has got.
 */
export function rebuiltPlacement({ meta, records, index, cycle, cursor }) {
  const before = unplaced(cycle, cursor);
  const now = cycle ? cycle.time : 0;
  const where = new Map(); // pod -> node
  for (const [key, p] of Object.entries(meta.pods)) if (p.node) where.set(key, p.node);
  const terminating = new Set();
  for (const r of records) {
    if (!r || r.index > index) continue;
    if (r.outcome === "Bound" && r.node && !(r.index === index && before)) where.set(r.pod, r.node);
    if (r.preemption && (r.index < index || cursor >= POINT_INDEX.postFilter)) {
      for (const v of r.preemption.victims || []) {
        if (r.time + graceOf(meta, v) <= now) where.delete(v);
        else terminating.add(v);
      }
    }
  }
  const out = new Map();
  for (const [name, m] of Object.entries(meta.nodes)) out.set(name, emptyUsage(m));
  for (const [pod, name] of where) {
    const usage = out.get(name);
    if (!usage) continue;
    usage.pods.push({ pod, terminating: terminating.has(pod) });
    addPod(usage, pod, (meta.pods[pod] || {}).requests || {}, +1);
  }
  return out;
}

/**
 * Pods and usage per node at the latest position, from the engine's state. A node the state
 * did not carry (a partial state of a large cluster) is rebuilt from the records instead of
 * being left out.
 */
export function livePlacement({ meta, live, records, index, cycle, cursor }) {
  const before = unplaced(cycle, cursor);
  const out = new Map();
  let rebuilt = null;
  for (const name of Object.keys(meta.nodes)) {
    const n = live.get(name);
    if (!n) {
      rebuilt = rebuilt || rebuiltPlacement({ meta, records, index, cycle, cursor });
      out.set(name, rebuilt.get(name));
      continue;
    }
    const usage = { resources: {}, pods: n.pods.map((p) => ({ pod: p.pod, terminating: p.terminating })) };
    for (const [r, [used, alloc]] of Object.entries(n.resources)) usage.resources[r] = [used, alloc];
    if (before && before.node === name && usage.pods.some((p) => p.pod === before.pod)) {
      usage.pods = usage.pods.filter((p) => p.pod !== before.pod);
      addPod(usage, before.pod, (meta.pods[before.pod] || {}).requests || {}, -1);
    }
    out.set(name, usage);
  }
  return out;
}

/** Applies one pod event of the stream to the live nodes (usage follows without a refresh). */
export function applyPodEvent(live, meta, e) {
  const node = e.node && live.get(e.node);
  if (!node) return false;
  const requests = (meta.pods[e.pod] || {}).requests || {};
  if (e.event === "bound" && !node.pods.some((p) => p.pod === e.pod)) {
    node.pods.push({ pod: e.pod, terminating: false });
    addPod(node, e.pod, requests, +1);
  } else if (e.event === "preempted") {
    const p = node.pods.find((x) => x.pod === e.pod);
    if (p) p.terminating = true;
  } else if (e.event === "deleted") {
    const before = node.pods.length;
    node.pods = node.pods.filter((p) => p.pod !== e.pod);
    if (node.pods.length < before) addPod(node, e.pod, requests, -1);
  } else {
    return false;
  }
  return true;
}

/** Pods nominated per node by the queues' entries (preemptors waiting for their victims). */
export function nominations(queues) {
  const out = new Map();
  for (const list of Object.values(queues || {})) {
    for (const e of list || []) {
      if (e.nominatedNode) out.set(e.nominatedNode, [...(out.get(e.nominatedNode) || []), e.pod]);
    }
  }
  return out;
}

/** Pods waiting on Permit, by pod: they are on a node (assumed) but not bound yet. */
export function permitWaiters(queues) {
  return new Map(((queues || {}).waitingOnPermit || []).map((e) => [e.pod, e]));
}

/** The utilization (0..1) a node's map tile is coloured by: its busiest of cpu and memory. */
export function utilization(resources) {
  let most = 0;
  for (const r of ["cpu", "memory"]) {
    const [used, alloc] = (resources || {})[r] || [0, 0];
    if (alloc > 0) most = Math.max(most, used / alloc);
  }
  return Math.min(1, most);
}
