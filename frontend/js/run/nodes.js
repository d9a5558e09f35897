// The nodes grid: one card per node, rebuilt only when what it shows changed, at most once
// per animation frame. 500 nodes stay cheap: unchanged cards are never touched, and cards
// off screen skip layout and paint (content-visibility in the stylesheet).
import { fmtQty, pct, rafBatch } from "../util.js";

const MAX_CHIPS = 10;
const RES_ORDER = ["cpu", "memory", "pods"];
const RES_LABEL = { cpu: "cpu", memory: "memory", pods: "pods", "ephemeral-storage": "ephemeral" };

export function esc(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

function barClass(name) {
  if (name === "cpu" || name === "memory" || name === "pods") return name;
  return "ext";
}

function resourceRows(resources) {
  const names = Object.keys(resources || {});
  names.sort((a, b) => {
    const ia = RES_ORDER.indexOf(a), ib = RES_ORDER.indexOf(b);
    return (ia < 0 ? 9 : ia) - (ib < 0 ? 9 : ib) || a.localeCompare(b);
  });
  return names.filter((n) => resources[n][1] > 0 || resources[n][0] > 0).map((name) => {
    const [used, alloc, pending] = resources[name];
    const p = pct(used, alloc);
    const full = p >= 100 ? " full" : "";
    const label = RES_LABEL[name] || name.split("/").pop();
    const extra = pending ? `<i style="left:${pct(used, alloc)}%;width:${Math.max(0, Math.min(100 - p, pct(pending, alloc)))}%"></i>` : "";
    return `<span class="rn" title="${esc(name)}">${esc(label)}</span>`
      + `<span class="bar ${barClass(name)}${full}" role="meter" aria-label="${esc(name)} requested" aria-valuemin="0" aria-valuemax="${alloc}" aria-valuenow="${used}"><span style="width:${p}%"></span>${extra}</span>`
      + `<span class="rv">${esc(fmtQty(name, used))}/${esc(fmtQty(name, alloc))}</span>`;
  }).join("");
}

function tagsHtml(tags) {
  return (tags || []).map((t) => `<span class="tag${t.cls ? ` ${t.cls}` : ""}" title="${esc(t.title)}">${esc(t.text)}</span>`).join("");
}

function chips(pods) {
  const shown = pods.slice(0, MAX_CHIPS).map((p) =>
    `<span class="chip${p.cls ? ` ${p.cls}` : ""}" title="${esc(p.title || p.pod)}">${esc(p.label || p.pod.split("/").pop())}</span>`);
  if (pods.length > MAX_CHIPS) shown.push(`<span class="chip more">+${pods.length - MAX_CHIPS}</span>`);
  return shown.join("");
}

/** A card's parts, each redrawn only when its own markup changed: stepping a cycle changes
 *  every card's verdict but the usage and pods of one node only. */
function cardParts(vm) {
  const v = vm.verdict || {};
  const score = v.score !== undefined ? ` <span class="score">${esc(v.score)}</span>` : "";
  return [
    esc(vm.name),
    `${esc(v.text || "")}${score}`,
    esc(vm.marks || ""),
    tagsHtml(vm.tags),
    resourceRows(vm.resources),
    chips(vm.pods || []),
  ];
}

// [tag, class, inside the card's header]: the name and the verdict are apart, so that a new
// verdict leaves the name's element alone.
const PART_TAGS = [["span", "name", true], ["span", "verdict", true], ["div", "marks"], ["div", "tags"], ["div", "res"], ["div", "pods"]];

/** Markup without a tag or an entity is its own text: set as text, no HTML parser (a step
 *  sets 500 verdicts). */
function setMarkup(part, markup) {
  if (/[<&]/.test(markup)) part.innerHTML = markup;
  else part.textContent = markup;
}

export class NodeGrid {
  constructor(container, { onSelect } = {}) {
    this.container = container;
    this.cards = new Map(); // name -> {el, sig}
    this.models = [];
    this.filter = "";
    this.focus = null;
    this.render = rafBatch(() => this.flush());
    container.addEventListener("click", (event) => {
      const card = event.target.closest(".node");
      if (card && onSelect) onSelect(card.dataset.name);
    });
    container.addEventListener("keydown", (event) => {
      if ((event.key === "Enter" || event.key === " ") && event.target.classList.contains("node")) {
        event.preventDefault();
        event.stopPropagation();
        onSelect?.(event.target.dataset.name);
      }
    });
  }

  /** models: [{name, resources, pods, verdict, marks, tags, rank, title, unschedulable, search}].
   *  Drawn at once: the page calls it from its own animation frame, so that the cards and the
   *  cycle panel are laid out together, not in two frames. */
  update(models) {
    this.models = models;
    this.flush();
  }

  setFilter(text) {
    this.filter = text.trim().toLowerCase();
    this.render();
  }

  setFocus(name) {
    this.focus = name;
    this.render();
  }

  flush() {
    const seen = new Set();
    let previous = null;
    for (const vm of this.models) {
      seen.add(vm.name);
      let entry = this.cards.get(vm.name);
      if (!entry) {
        const el = document.createElement("article");
        el.className = "node";
        el.tabIndex = 0;
        el.setAttribute("role", "listitem");
        el.dataset.name = vm.name;
        const header = document.createElement("header");
        const parts = PART_TAGS.map(([tag, cls, inHeader]) => {
          const part = document.createElement(tag);
          part.className = cls;
          (inHeader ? header : el).append(part);
          if (inHeader && !header.parentNode) el.append(header);
          return part;
        });
        entry = { el, parts, html: PART_TAGS.map(() => null), cls: null, rank: null, hidden: null, title: null, label: null };
        this.cards.set(vm.name, entry);
      }
      // Keep DOM order equal to model order without moving cards that are already placed.
      const expected = previous ? previous.nextSibling : this.container.firstChild;
      if (expected !== entry.el) this.container.insertBefore(entry.el, expected);
      previous = entry.el;

      const hidden = this.filter && !vm.search.includes(this.filter);
      const v = vm.verdict || {};
      const cls = `node${v.cls ? ` ${v.cls}` : ""}${vm.unschedulable ? " unschedulable" : ""}${this.focus === vm.name ? " focus" : ""}`;
      const html = cardParts(vm);
      // Touch only what changed: a new class alone does not rebuild the card's contents.
      if (entry.cls !== cls) entry.el.className = entry.cls = cls;
      // The grid lays cards out by verdict (CSS order), so no card has to move in the DOM.
      if (entry.rank !== vm.rank) entry.el.style.order = entry.rank = vm.rank;
      if (entry.hidden !== Boolean(hidden)) entry.el.hidden = entry.hidden = Boolean(hidden);
      if (entry.title !== vm.title) entry.el.title = entry.title = vm.title || "";
      const label = `${vm.name}${v.text ? `: ${v.text}` : ""}`;
      if (entry.label !== label) {
        entry.label = label;
        entry.el.setAttribute("aria-label", label);
      }
      html.forEach((markup, k) => {
        if (entry.html[k] !== markup) setMarkup(entry.parts[k], entry.html[k] = markup);
      });
    }
    for (const [name, entry] of this.cards) {
      if (!seen.has(name)) {
        entry.el.remove();
        this.cards.delete(name);
      }
    }
  }

  scrollTo(name) {
    const entry = this.cards.get(name);
    if (entry) entry.el.scrollIntoView({ block: "nearest", behavior: "smooth" });
  }
}
