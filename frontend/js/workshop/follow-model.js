// What the attendee page knows of the run it shows (the presenter's, or their own when
// detached), built from the run stream's frames. Pure: tested with node --test.

export const MAX_CYCLES = 200;

export class FollowModel {
  constructor() {
    this.reset();
  }

  reset() {
    this.run = null;
    this.cycles = new Map(); // index -> summary (maybe {hidden: true})
    this.bindings = {};
    this.hidden = false;
  }

  /** Applies one frame; returns true when the view should redraw. */
  apply(frame) {
    if (frame.type === "snapshot") {
      this.reset();
      this.run = { ...frame.run };
      this.hidden = Boolean(frame.run && frame.run.hidden);
      for (const c of frame.cycles || []) this.cycles.set(c.index, c);
      // A copy: later cycles add to it, the frame stays as it came.
      this.bindings = { ...((frame.state && frame.state.bindings) || {}) };
      return true;
    }
    if (frame.type !== "batch" || !this.run) return false;
    for (const e of frame.events) {
      if (e.kind === "cycle") {
        this.cycles.set(e.index, e);
        if (e.outcome === "Bound" && e.node) this.bindings[e.pod] = e.node;
      } else if (e.kind === "progress") {
        this.run.cycle_count = e.cycles;
        this.run.status = e.status;
        this.hidden = Boolean(e.hidden);
        this.run.pods_bound = e.hidden ? null : e.podsBound;
      }
    }
    this.trim();
    return true;
  }

  trim() {
    const keys = [...this.cycles.keys()].sort((a, b) => a - b);
    for (const k of keys.slice(0, Math.max(0, keys.length - MAX_CYCLES))) this.cycles.delete(k);
  }

  /** The cycles newest first. */
  recent() {
    return [...this.cycles.values()].sort((a, b) => b.index - a.index);
  }

  /** {cycles, bound, pending} for the header; bound and pending null while hidden. */
  counts(podCount) {
    if (!this.run) return { cycles: null, bound: null, pending: null };
    const bound = this.hidden ? null : this.run.pods_bound;
    return { cycles: this.run.cycle_count, bound,
             pending: bound === null || podCount === null ? null : Math.max(0, podCount - bound) };
  }
}
