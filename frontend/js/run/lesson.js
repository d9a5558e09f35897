// The lesson beside the run: its notes (the cluster's section of docs/LESSONS.md, or its
// description, rendered by ../lesson-text.js) and the run's pods, each expanding to its
// requests and scheduling constraints (../kube-detail.js, as the workshop pages show them).
import { podEntry } from "../kube-detail.js";
import { lessonBlocks } from "../lesson-text.js";
import { clear, el, fmtQty } from "../util.js";

/** Pods listed; a larger run says how many more (the "why pending" box finds any pod). */
export const MAX_PODS = 200;

function readable(key, m) {
  const requests = Object.fromEntries(Object.entries(m.requests || {}).filter(([, v]) => v)
    .map(([name, v]) => [name, fmtQty(name, v)]));
  return { ...m, name: key, requests };
}

export class LessonPanel {
  constructor({ panel, notes, pods, text }) {
    this.panel = panel;
    this.pods = pods;
    this.meta = null;
    notes.append(...lessonBlocks(text.trim()));
  }

  /** The run's objects arrived (or changed): list its pods. */
  setMeta(meta) {
    if (meta === this.meta) return;
    this.meta = meta;
    const keys = Object.keys(meta.pods || {});
    clear(this.pods);
    this.pods.append(...keys.slice(0, MAX_PODS).map((k) => podEntry(readable(k, meta.pods[k]), meta.pods[k].node)));
    if (keys.length > MAX_PODS) this.pods.append(el("p.muted", `…and ${keys.length - MAX_PODS} more pods`));
  }

  /** Opens a pod's entry and brings it into view (a pod picked in the queues). */
  showPod(key) {
    const entry = [...this.pods.querySelectorAll("details")].find((d) => d.dataset.pod === key);
    if (!entry) return;
    for (const d of this.pods.querySelectorAll("details.focus")) d.classList.remove("focus");
    this.panel.open = true;
    entry.open = true;
    entry.classList.add("focus");
    entry.scrollIntoView({ block: "nearest" });
  }
}
