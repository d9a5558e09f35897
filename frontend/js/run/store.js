// What the run view knows about its run: the run row, the engine state, cycle records,
// summaries and full traces, and where the viewer is (cycle and point). Plain data and
// plain methods, no DOM and no fetching: the controller feeds it, the panels read it.
import { applyPodEvent, cycleRecord, recordOf } from "./history.js";
import { WHOLE } from "./model.js";

const DETAIL_CACHE = 300;

export class RunStore {
  constructor() {
    this.run = null;
    this.state = null;
    this.live = new Map(); // node -> {name, resources, pods: [{pod, terminating}]} from the engine
    this.meta = { nodes: {}, pods: {} };
    this.nodeNames = [];
    this.records = []; // by index: {index, time, pod, outcome, node, preemption}
    this.summaries = new Map();
    this.details = new Map();
    this.latest = -1;
    this.viewIndex = null; // null: follow the latest cycle
    this.cursor = WHOLE; // how far into the viewed cycle the walk has got
    this.point = null; // the point whose detail is shown (null: a sensible default)
    this.held = false; // the viewed cycle is held part-walked (RunController.conceal)
    this.version = 0; // counts the changes to the data above (not to where the viewer is)
  }

  setMeta(meta) {
    this.version += 1;
    this.meta = meta;
    this.nodeNames = Object.keys(meta.nodes);
  }

  get viewed() {
    return this.viewIndex === null ? this.latest : this.viewIndex;
  }

  get inHistory() {
    return this.viewIndex !== null && this.viewIndex < this.latest;
  }

  /** Whether the nodes and queues are drawn as the records leave them at the viewed cycle,
   *  not from the engine's live state (which shows what came after: a held cycle's outcome). */
  get rebuilt() {
    return this.inHistory || this.held;
  }

  get finished() {
    return Boolean((this.state && this.state.finished) || (this.run && this.run.status === "finished"));
  }

  /** The records that exist, in index order. */
  get history() {
    return this.records.filter(Boolean);
  }

  /** The richest view of cycle `index` known: its trace, its summary, or its record. */
  cycle(index) {
    if (index < 0) return null;
    const detail = this.details.get(index);
    const summary = this.summaries.get(index);
    // QueueSort and PreEnqueue are recorded in the live summary only, not in the full trace.
    if (detail && summary && summary.queueSort && !detail.queueSort) {
      detail.queueSort = summary.queueSort;
      detail.preEnqueue = summary.preEnqueue;
    }
    return detail || summary || this.records[index] || null;
  }

  hasDetail(index) {
    return this.details.has(index);
  }

  addRecord(cycle) {
    this.version += 1;
    this.records[cycle.index] = recordOf(cycle);
    if (cycle.index > this.latest) this.latest = cycle.index;
  }

  /** The timeline helper's rows: every stored cycle. */
  setTimeline(rows) {
    this.version += 1;
    this.records = rows.map(cycleRecord);
    // Cycles the stream brought after the rows were read stay.
    for (const c of this.summaries.values()) if (!this.records[c.index]) this.records[c.index] = recordOf(c);
    this.latest = Math.max(this.latest, this.records.length - 1);
  }

  /** A cycle's summary from the stream. A cycle that waited on Permit comes again once the
   *  wait is over (`late`): its outcome and the points after Permit are new, so a cached
   *  trace of it is out of date. */
  takeSummary(c) {
    const known = this.details.get(c.index);
    if (known && (known.outcome || null) !== (c.outcome || null)) this.details.delete(c.index);
    this.summaries.set(c.index, c);
    this.addRecord(c);
  }

  remember(trace) {
    if (!trace || typeof trace.index !== "number") return;
    // Only the stream knows when a Permit wait ended; the stored trace does not say.
    const summary = this.summaries.get(trace.index);
    if (summary && summary.endTime !== undefined && trace.endTime === undefined) trace.endTime = summary.endTime;
    this.version += 1;
    this.details.delete(trace.index);
    this.details.set(trace.index, trace);
    if (this.details.size > DETAIL_CACHE) this.details.delete(this.details.keys().next().value);
    if (!this.records[trace.index]) this.addRecord(trace);
  }

  /**
   * The engine's state. Its node list may be partial (a capped snapshot of a large
   * cluster): the nodes it leaves out are rebuilt from the records (history.livePlacement).
   * Returns true when the state has more cycles than the records (the timeline is behind).
   */
  applyState(state) {
    if (!state) return false;
    this.version += 1;
    this.state = state;
    if (Array.isArray(state.nodes)) {
      this.live = new Map(state.nodes.map((n) => [n.name, n]));
      this.addStateNodes(state.nodes);
    }
    return typeof state.cycles === "number" && state.cycles - 1 > this.latest && state.cycles - 1 >= this.records.length;
  }

  /**
   * Nodes the engine has and the run's objects do not: nodes a timeline added (a cluster's
   * Timeline, a step taken on a paused run; the objects are the run's documents at its
   * creation). They join the grid and the map after the others, described by the timeline's
   * manifest (the objects' `addedNodes`: labels, taints, cordon, volumes) and the state
   * (allocatable).
   */
  addStateNodes(nodes) {
    const added = nodes.filter((n) => !Object.hasOwn(this.meta.nodes, n.name));
    if (!added.length) return;
    const nodesMeta = { ...this.meta.nodes };
    const described = this.meta.addedNodes || {};
    for (const n of added) {
      const allocatable = Object.fromEntries(Object.entries(n.resources || {}).map(([k, [, a]]) => [k, a]));
      nodesMeta[n.name] = { labels: {}, taints: [], unschedulable: false, volumes: [],
        ...described[n.name], allocatable, added: true };
    }
    this.setMeta({ ...this.meta, nodes: nodesMeta });
  }

  /** A pod's event from the stream: the live placement follows it. */
  applyPodEvent(event) {
    this.version += 1;
    applyPodEvent(this.live, this.meta, event);
  }

  /** Forget cycles from `count` on (a reset, or a snapshot from before them). */
  truncate(count) {
    this.version += 1;
    this.records.length = Math.min(this.records.length, count);
    for (const map of [this.summaries, this.details]) {
      for (const key of Array.from(map.keys())) if (key >= count) map.delete(key);
    }
    this.latest = count - 1;
    if (this.viewIndex !== null && this.viewIndex >= count) this.viewIndex = null;
    this.cursor = WHOLE;
    this.point = null;
  }

  /** Show cycle `index` whole (the latest one: follow new cycles again). */
  seek(index) {
    if (index < 0 || index > this.latest) return false;
    this.viewIndex = index >= this.latest ? null : index;
    this.cursor = WHOLE;
    this.point = null;
    return true;
  }

  /** The records of one pod's attempts up to `upTo`, oldest first. */
  attempts(pod, upTo = this.latest) {
    return this.history.filter((r) => r.pod === pod && r.index <= upTo);
  }
}
