// The scheduling queues side by side: activeQ in QueueSort order, backoffQ with remaining
// backoff, unschedulable with reason, gated, and pods waiting on Permit with a countdown on
// the virtual clock.
import { fmtTime } from "../util.js";
import { esc } from "./nodes.js";

const MAX_ROWS = 200;

function row(pod, meta, reason, extraCls = "") {
  const reasonHtml = reason ? `<span class="reason">${esc(reason)}</span>` : "";
  const cls = reason ? `stack-item ${extraCls}` : extraCls;
  return `<li tabindex="0" class="${cls}" data-pod="${esc(pod)}" title="${esc(reason || pod)}">`
    + `<span class="qrow"><span class="pod">${esc(pod)}</span><span class="meta">${esc(meta)}</span></span>${reasonHtml}</li>`;
}

export class QueuesView {
  constructor(root, { onPick } = {}) {
    this.root = root;
    this.lists = {};
    this.sigs = {};
    for (const box of root.querySelectorAll(".queue")) {
      this.lists[box.dataset.queue] = { ol: box.querySelector("ol"), count: box.querySelector("[data-count]") };
    }
    root.addEventListener("click", (event) => {
      const li = event.target.closest("li[data-pod]");
      if (li && onPick) onPick(li.dataset.pod);
    });
    root.addEventListener("keydown", (event) => {
      const li = event.target.closest("li[data-pod]");
      if (li && event.key === "Enter" && onPick) onPick(li.dataset.pod);
    });
  }

  /** queues: RunSession.state()["queues"]; now: the virtual clock the numbers are relative to. */
  update(queues, now, stateTime) {
    const q = queues || {};
    const elapsed = Math.max(0, (now || 0) - (stateTime || 0));
    this.fill("activeQ", q.activeQ, (e, i) => row(e.pod, `#${i + 1} · prio ${e.priority ?? 0}${e.attempts ? ` · ${e.attempts} att.` : ""}`,
      e.nominatedNode ? `nominated to ${e.nominatedNode}` : ""));
    this.fill("backoffQ", q.backoffQ, (e) => {
      const left = Math.max(0, (e.remaining ?? 0) - elapsed);
      return row(e.pod, `${fmtTime(left)} left`, e.nominatedNode ? `nominated to ${e.nominatedNode}` : "");
    });
    this.fill("unschedulablePods", q.unschedulablePods, (e) =>
      row(e.pod, e.plugin ? e.plugin : `prio ${e.priority ?? 0}`, e.reason || ""));
    this.fill("gated", q.gated, (e) => row(e.pod, e.plugin || "gated", e.reason || ""));
    this.fill("waitingOnPermit", q.waitingOnPermit, (e) => {
      const plugins = Object.entries(e.plugins || {}).map(([p, t]) => `${p} ${fmtTime(Math.max(0, t - elapsed))}`);
      // v1.35+ (NominatedNodeNameForExpectation): the pod's status.nominatedNodeName names the node while it waits.
      const nominated = e.nominatedNode ? ` · nominatedNodeName ${e.nominatedNode}` : "";
      return row(e.pod, e.node ? `→ ${e.node}` : "", `${plugins.length ? `waiting: ${plugins.join(", ")}` : ""}${nominated}`, "waiting");
    });
  }

  fill(name, entries, render) {
    const target = this.lists[name];
    if (!target) return;
    const list = entries || [];
    const html = list.length
      ? list.slice(0, MAX_ROWS).map(render).join("") + (list.length > MAX_ROWS ? `<li class="empty">… ${list.length - MAX_ROWS} more</li>` : "")
      : '<li class="empty">empty</li>';
    if (target.count.textContent !== String(list.length)) target.count.textContent = String(list.length);
    if (this.sigs[name] === html) return;
    this.sigs[name] = html;
    target.ol.innerHTML = html;
  }
}
