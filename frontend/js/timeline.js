// The cluster page's timelines: list, edit and delete them (docs/TIMELINE.md).
// The steps are edited as YAML; the server checks them with the engine and a 400 names the
// step's index and field.

import { ApiError, api } from "./api.js";
import { $, clear, el, setStatus } from "./util.js";

const EXAMPLE = `- at: 60
  action: NodeNotReady
  node: NODE-NAME
- at: 120
  action: Scale
  kind: Deployment
  name: web
  replicas: 6
`;

/** Steps as the editor shows them: one YAML-like line per field, nested values as JSON. */
export function stepsToText(steps) {
  return steps.map((step) => Object.entries(step).map(([key, value], i) =>
    `${i ? "  " : "- "}${key}: ${typeof value === "object" ? JSON.stringify(value) : value}`,
  ).join("\n")).join("\n") + (steps.length ? "\n" : "");
}

export function describeStep(step) {
  const target = step.node || step.pod || (step.object && `${step.object.kind} ${step.object.metadata?.name}`)
    || (step.kind && `${step.kind} ${step.name}`) || "";
  const extra = step.replicas !== undefined ? ` → ${step.replicas}` : "";
  return `${step.at}s ${step.action} ${typeof target === "string" ? target : JSON.stringify(target)}${extra}`;
}

class TimelineEditor {
  constructor(root, clusterId) {
    this.root = root;
    this.base = `/api/clusters/${clusterId}/timelines/`;
    this.list = $("#timeline-list", root);
    this.form = $("#timeline-form", root);
    this.status = $("#timeline-status", root);
    this.editing = null;
    this.form.addEventListener("submit", (e) => { e.preventDefault(); this.save(); });
    $("#timeline-new", root).addEventListener("click", () => this.edit(null));
    $("#timeline-cancel", root).addEventListener("click", () => { this.form.hidden = true; });
  }

  async load() {
    this.timelines = await api.get(this.base);
    this.render();
  }

  render() {
    clear(this.list);
    if (!this.timelines.length) {
      this.list.append(el("p.muted", "No timelines yet: a run of this cluster has none."));
      return;
    }
    for (const t of this.timelines) {
      this.list.append(el("article.timeline-card", { dataset: { timeline: t.name } },
        el("h3", t.name, " ", el("span.badge", `${t.steps.length} steps`)),
        el("ol.timeline-steps", t.steps.map((s) => el("li", describeStep(s)))),
        el("div.row",
          el("button.small", { type: "button", "aria-label": `Edit timeline ${t.name}`,
            onclick: () => this.edit(t) }, "Edit"),
          el("button.small.danger", { type: "button", "aria-label": `Delete timeline ${t.name}`,
            onclick: () => this.remove(t) }, "Delete"))));
    }
  }

  edit(timeline) {
    this.editing = timeline;
    this.form.hidden = false;
    this.form.elements.name.value = timeline ? timeline.name : "";
    this.form.elements.text.value = timeline ? stepsToText(timeline.steps) : EXAMPLE;
    this.form.elements.name.focus();
  }

  async save() {
    const body = { name: this.form.elements.name.value, text: this.form.elements.text.value };
    try {
      if (this.editing) await api.put(`${this.base}${this.editing.id}/`, body);
      else await api.post(this.base, body);
      this.form.hidden = true;
      setStatus(this.status, `Timeline ${body.name} saved.`, "ok");
      await this.load();
    } catch (err) {
      setStatus(this.status, err instanceof ApiError ? err.message : String(err), "error");
    }
  }

  async remove(timeline) {
    if (!window.confirm(`Delete timeline ${timeline.name}?`)) return;
    await api.del(`${this.base}${timeline.id}/`);
    setStatus(this.status, `Timeline ${timeline.name} deleted.`, "ok");
    await this.load();
  }
}

const root = document.getElementById("timelines");
if (root) new TimelineEditor(root, root.dataset.cluster).load();
