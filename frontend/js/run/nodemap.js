// The node map for large clusters: one canvas, a tile per node, grouped by zone or by a label
// the user picks, coloured by the node's verdict in the viewed cycle, by the plugin that
// rejected it (with a legend counting the nodes per plugin: why, at a glance) or by its
// utilization. Hover shows the node's detail; a click selects it and its detail (the
// rejecting plugin's reason) stays under the map. Thousands of nodes cost one element.
import { el } from "../util.js";
import { utilization } from "./history.js";

const TILE = 11;
const GAP = 2;
const HEAD = 18; // a group's caption line
const ZONE = "topology.kubernetes.io/zone";
const VERDICT_VAR = {
  selected: "--sel", nominated: "--nom", feasible: "--ok", filtered: "--bad", skipped: "--border",
};

const VERDICT_WORD = { filtered: "filtered out", skipped: "not evaluated" };

// Colours of the plugins that rejected nodes, in the order of their counts (Tableau 10).
const PLUGIN_COLOURS = ["#e15759", "#f28e2b", "#b07aa1", "#edc948", "#76b7b2", "#9c755f",
  "#ff9da7", "#4e79a7", "#bab0ac", "#59a14f"];

/** [plugin, count] of the nodes each plugin rejected, the most first (then by name). */
export function rejectionCounts(models) {
  const counts = new Map();
  for (const vm of models) {
    const plugin = vm.verdict && vm.verdict.cls === "filtered" && vm.verdict.plugin;
    if (plugin) counts.set(plugin, (counts.get(plugin) || 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

function css(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || "#888";
}

/** Green to red as a node fills up. */
function heat(u) {
  const hue = Math.round(130 * (1 - u));
  return `hsl(${hue} 65% ${u > 0 ? 45 : 80}%)`;
}

/** Groups of model indexes by the value of label `key` (in first-seen order of values). */
export function groupBy(models, meta, key) {
  const groups = new Map();
  models.forEach((vm, i) => {
    const labels = (meta.nodes[vm.name] || {}).labels || {};
    const value = key ? labels[key] ?? "(no label)" : "all nodes";
    if (!groups.has(value)) groups.set(value, []);
    groups.get(value).push(i);
  });
  return [...groups.entries()].sort((a, b) => a[0].localeCompare(b[0]));
}

export class NodeMap {
  constructor(container, { onSelect, meta }) {
    this.container = container;
    this.onSelect = onSelect;
    this.meta = meta;
    this.models = [];
    this.groupKey = ZONE;
    this.colour = "verdict";
    this.focus = null;
    this.filter = "";
    this.tiles = []; // [x, y, model index]
    this.canvas = el("canvas.node-map", { role: "img", "aria-label": "Node map" });
    this.tip = el("div.map-tip", { role: "tooltip", hidden: true });
    this.groupSelect = el("select", { "aria-label": "Group nodes by label", onchange: (e) => { this.groupKey = e.target.value; this.draw(); } });
    this.colourSelect = el("select", { "aria-label": "Colour nodes by", onchange: (e) => { this.colour = e.target.value; this.draw(); } },
      el("option", { value: "verdict" }, "verdict in the cycle"),
      el("option", { value: "plugin" }, "first rejecting plugin"),
      el("option", { value: "utilization" }, "utilization"));
    this.summary = el("p.small.muted.map-summary");
    this.legend = el("ul.map-legend", { "aria-label": "Nodes per rejecting plugin", hidden: true });
    this.detail = el("p.map-detail", { "aria-live": "polite", hidden: true });
    container.replaceChildren(
      el("div.map-tools", el("label.inline.small", "Group by ", this.groupSelect), el("label.inline.small", "Colour by ", this.colourSelect), this.summary),
      this.legend,
      el("div.map-wrap", this.canvas, this.tip),
      this.detail);
    this.canvas.addEventListener("mousemove", (e) => this.hover(e));
    this.canvas.addEventListener("mouseleave", () => { this.tip.hidden = true; });
    this.canvas.addEventListener("click", (e) => {
      const vm = this.at(e);
      if (vm) this.onSelect(vm.name);
    });
    new ResizeObserver(() => this.draw()).observe(container);
  }

  setMeta(meta) {
    this.meta = meta;
    const keys = new Set();
    for (const m of Object.values(meta.nodes)) for (const k of Object.keys(m.labels || {})) keys.add(k);
    // Per-node labels (the hostname) would make a group per node: offer the shared ones.
    const shared = [...keys].filter((k) => k !== "kubernetes.io/hostname").sort();
    if (!shared.includes(ZONE)) this.groupKey = "";
    this.groupSelect.replaceChildren(el("option", { value: "" }, "(none)"),
      ...shared.map((k) => el("option", { value: k, selected: k === this.groupKey }, k)));
  }

  update(models) {
    this.models = models;
    this.draw();
  }

  setFocus(name) {
    this.focus = name;
    this.draw();
  }

  setFilter(text) {
    this.filter = text.trim().toLowerCase();
    this.draw();
  }

  colourOf(vm, palette) {
    if (this.colour === "utilization") return heat(utilization(vm.resources));
    const cls = (vm.verdict && vm.verdict.cls) || "";
    if (this.colour === "plugin" && cls === "filtered") return palette.plugins.get(vm.verdict.plugin) || palette.filtered;
    return palette[cls] || palette[""];
  }

  /** The plugin legend: a swatch, the plugin and how many nodes it rejected. */
  drawLegend(counts, palette, feasible) {
    this.legend.hidden = this.colour !== "plugin";
    if (this.legend.hidden) return;
    const item = (colour, text, plugin) => el("li", { dataset: plugin ? { plugin } : {} },
      el("span.swatch", { style: `background:${colour}`, "aria-hidden": "true" }), text);
    const items = counts.map(([plugin, n]) => item(palette.plugins.get(plugin), `${plugin} ${n}`, plugin));
    items.push(item(palette.feasible, `feasible ${feasible}`));
    if (!counts.length) items.push(el("li.muted", "no node rejected in this cycle"));
    this.legend.replaceChildren(...items);
  }

  /** The selected node's detail, under the map: readable without hovering. */
  drawDetail() {
    const vm = this.focus && this.models.find((m) => m.name === this.focus);
    this.detail.hidden = !vm;
    if (!vm) return;
    const why = vm.verdict && vm.verdict.title ? vm.verdict.title : vm.verdict ? vm.verdict.text : "no verdict in this cycle";
    this.detail.dataset.node = vm.name;
    this.detail.replaceChildren(el("b", vm.name), `: ${why}`);
  }

  draw() {
    const width = Math.max(200, this.container.clientWidth - 4);
    const perRow = Math.max(1, Math.floor((width + GAP) / (TILE + GAP)));
    const groups = groupBy(this.models, this.meta, this.groupKey);
    let height = 0;
    for (const [, idx] of groups) height += HEAD + Math.ceil(idx.length / perRow) * (TILE + GAP) + 6;
    const dpr = window.devicePixelRatio || 1;
    const c = this.canvas;
    c.width = Math.round(width * dpr);
    c.height = Math.round(Math.max(height, 20) * dpr);
    c.style.width = `${width}px`;
    c.style.height = `${Math.max(height, 20)}px`;
    const g = c.getContext("2d");
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.font = "12px system-ui, sans-serif";
    g.textBaseline = "top";
    // The theme's colours, read once per drawing (not per tile).
    const palette = Object.fromEntries(Object.entries(VERDICT_VAR).map(([k, v]) => [k, css(v)]));
    palette[""] = css("--card-2");
    const rejected = rejectionCounts(this.models);
    palette.plugins = new Map(rejected.map(([plugin], i) => [plugin, PLUGIN_COLOURS[i % PLUGIN_COLOURS.length]]));
    const text = css("--muted");
    const focus = css("--focus");
    const counts = {};
    this.tiles = [];
    let y = 0;
    for (const [value, idx] of groups) {
      g.fillStyle = text;
      g.fillText(`${value} · ${idx.length}`, 0, y + 2);
      y += HEAD;
      idx.forEach((i, k) => {
        const vm = this.models[i];
        const x = (k % perRow) * (TILE + GAP);
        const ty = y + Math.floor(k / perRow) * (TILE + GAP);
        const dim = this.filter && !vm.search.includes(this.filter);
        g.globalAlpha = dim ? 0.15 : 1;
        g.fillStyle = this.colourOf(vm, palette);
        g.fillRect(x, ty, TILE, TILE);
        if (vm.name === this.focus) {
          g.strokeStyle = focus;
          g.lineWidth = 2;
          g.strokeRect(x - 1, ty - 1, TILE + 2, TILE + 2);
        }
        this.tiles.push([x, ty, i]);
        const cls = (vm.verdict && vm.verdict.cls) || "none";
        counts[cls] = (counts[cls] || 0) + 1;
      });
      g.globalAlpha = 1;
      y += Math.ceil(idx.length / perRow) * (TILE + GAP) + 6;
    }
    const said = Object.entries(counts).filter(([k]) => k !== "none").map(([k, n]) => `${n} ${VERDICT_WORD[k] || k}`).join(", ");
    this.summary.textContent = `${this.models.length} nodes${said ? `: ${said}` : ""}. Hover a tile for its detail, click to select it.`;
    this.drawLegend(rejected, palette, (counts.feasible || 0) + (counts.selected || 0));
    this.drawDetail();
    this.canvas.setAttribute("aria-label", `Node map: ${this.summary.textContent}`);
    this.canvas.dataset.drawn = String(this.models.length);
  }

  at(event) {
    const r = this.canvas.getBoundingClientRect();
    const x = event.clientX - r.left;
    const y = event.clientY - r.top;
    const hit = this.tiles.find(([tx, ty]) => x >= tx && x < tx + TILE + GAP && y >= ty && y < ty + TILE + GAP);
    return hit ? this.models[hit[2]] : null;
  }

  hover(event) {
    const vm = this.at(event);
    if (!vm) {
      this.tip.hidden = true;
      this.canvas.style.cursor = "";
      return;
    }
    this.canvas.style.cursor = "pointer";
    const u = Math.round(utilization(vm.resources) * 100);
    this.tip.textContent = `${vm.title}\nutilization ${u}%`;
    this.tip.dataset.node = vm.name;
    const r = this.canvas.getBoundingClientRect();
    this.tip.style.left = `${Math.min(event.clientX - r.left + 14, r.width - 260)}px`;
    this.tip.style.top = `${event.clientY - r.top + 14}px`;
    this.tip.hidden = false;
  }

  /** Where a node's tile is (for tests and presenters): client coordinates of its centre. */
  tileCentre(name) {
    const hit = this.tiles.find(([, , i]) => this.models[i].name === name);
    if (!hit) return null;
    const r = this.canvas.getBoundingClientRect();
    return { x: r.left + hit[0] + TILE / 2, y: r.top + hit[1] + TILE / 2 };
  }

  scrollTo(name) {
    const c = this.tileCentre(name);
    if (c) this.canvas.scrollIntoView({ block: "nearest" });
  }
}
