// The sweep page: POST a grid to /api/clusters/<id>/sweeps/, poll /api/sweeps/<id>/ for each
// variant's status and measures, cancel, sort the results, chart one measure, and open any
// two variants in the compare page.
import { api } from "../api.js";
import { $, clear, el, setStatus } from "../util.js";
import { barChart } from "./sweep-chart.js";

const POLL_MS = 500;
const page = $("#sweep-page");
const clusterId = Number(page.dataset.cluster);
const status = $("#sweep-status");
const ENDED = new Set(["done", "cancelled"]);
// Each measure, its column header, and whether more is better (for the chart's highlight).
const MEASURES = [
  ["bound", "bound", true], ["pending", "pending", false],
  ["cpuSpread", "CPU spread", false], ["memorySpread", "memory spread", false],
  ["fragmentation", "fragmentation", false], ["preemptions", "preemptions", false],
  ["placementScore", "placement score", true],
];
const view = { sweep: null, sortKey: "index", ascending: true, picked: new Set(), ticket: 0 };

const valueOf = (v, key) => (key === "index" ? v.index : key === "label" ? v.label
  : key === "status" ? v.status : v.metrics ? v.metrics[key] : null);

function sorted(variants) {
  const { sortKey, ascending } = view;
  return [...variants].sort((a, b) => {
    const x = valueOf(a, sortKey), y = valueOf(b, sortKey);
    if (x == null || y == null) return (x == null) - (y == null);   // no value: last
    const order = typeof x === "string" ? x.localeCompare(y) : x - y;
    return (ascending ? order : -order) || a.index - b.index;
  });
}

function header(key, text) {
  const active = view.sortKey === key;
  return el("th", { scope: "col", "aria-sort": active ? (view.ascending ? "ascending" : "descending") : "none" },
    el("button.sort", { type: "button", dataset: { sort: key }, onclick: () => {
      view.ascending = active ? !view.ascending : true;
      view.sortKey = key;
      render();
    } }, text));
}

function row(v) {
  const pick = el("input", { type: "checkbox", checked: view.picked.has(v.index), disabled: !v.metrics,
    "aria-label": `Pick variant ${v.index} to compare`, onchange: (e) => {
      if (e.target.checked) view.picked.add(v.index); else view.picked.delete(v.index);
      drawCompare();
    } });
  const cells = MEASURES.map(([key]) => el("td.num", v.metrics ? String(v.metrics[key]) : ""));
  return el("tr", { dataset: { index: v.index, status: v.status } },
    el("td", pick), el("td.num", String(v.index)), el("td", v.label),
    el("td", v.status === "failed" ? el("span.error", { title: v.error }, `failed: ${v.error}`) : v.status,
      warned(v)),
    ...cells);
}

/** The variant's warnings (input its release or gates do not honour), one line each. */
function warned(v) {
  const lines = v.warnings || [];
  if (!lines.length) return "";
  return el("details.variant-warnings", el("summary", `${lines.length} warning${lines.length > 1 ? "s" : ""}`),
    el("ul.small", lines.map((w) => el("li", w))));
}

function drawCompare() {
  const button = $("#sweep-compare");
  const [a, b] = [...view.picked].sort((x, y) => x - y);
  button.disabled = view.picked.size !== 2;
  button.dataset.href = view.picked.size === 2
    ? `/clusters/${clusterId}/compare/?sweep=${view.sweep.id}&a=${a}&b=${b}` : "";
}

function drawChart() {
  const key = $("#sweep-measure").value;
  const [, text, more] = MEASURES.find(([k]) => k === key);
  const bars = view.sweep.variants.map((v) => ({ index: v.index, label: v.label,
                                                 value: v.metrics ? v.metrics[key] : null }));
  const values = bars.filter((b) => b.value != null);
  const best = values.length ? values.reduce((p, b) => ((more ? b.value > p.value : b.value < p.value) ? b : p)).index : null;
  $("#sweep-chart").replaceChildren(barChart(bars, { title: `${text} per variant`, best }),
    el("p.small.muted", best == null ? "No variant has ended yet."
      : `Best ${text} (${more ? "highest" : "lowest"}): variant ${best}.`));
}

function render() {
  const s = view.sweep;
  const ended = s.counts.done + s.counts.failed + s.counts.skipped;
  const bar = $("#sweep-progress");
  bar.max = s.total;
  bar.value = ended;
  $("#sweep-counts").textContent = `${ended} of ${s.total} variants ended · ${s.counts.done} done, `
    + `${s.counts.failed} failed, ${s.counts.skipped} skipped, ${s.counts.running} running`;
  $("#sweep-cancel").disabled = ENDED.has(s.status);
  $("#sweep-table").replaceChildren(
    el("thead", el("tr", el("th", "Compare"), header("index", "#"), header("label", "Variant"), header("status", "Status"),
      ...MEASURES.map(([key, text]) => header(key, text)))),
    el("tbody", sorted(s.variants).map(row)));
  drawChart();
  drawCompare();
}

async function follow(id) {
  const ticket = ++view.ticket;
  for (;;) {
    const sweep = await api.get(`/api/sweeps/${id}/`);
    if (ticket !== view.ticket) return;
    if (!view.sweep || view.sweep.id !== sweep.id) view.picked.clear();
    view.sweep = sweep;
    $("#sweep-results").hidden = false;
    render();
    if (ENDED.has(sweep.status)) {
      setStatus(status, `Sweep ${sweep.id} ${sweep.status}.`, "ok");
      return;
    }
    setStatus(status, `Sweep ${sweep.id} ${sweep.status}…`, "busy");
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

$("#sweep-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const data = new FormData(event.target);
  setStatus(status, "Checking the grid…", "busy");
  try {
    const sweep = await api.post(`/api/clusters/${clusterId}/sweeps/`,
                                 { grid: data.get("grid"), seed: Number(data.get("seed") || 0) });
    await follow(sweep.id);
  } catch (err) {
    const messages = err.status === 400 ? err.fieldErrors().map((x) => x.message) : [err.message];
    setStatus(status, messages.join("\n"), "error");
  }
});

$("#sweep-cancel").addEventListener("click", async () => {
  try {
    await api.post(`/api/sweeps/${view.sweep.id}/cancel/`, {});
  } catch (err) {
    setStatus(status, err.message, "error");
  }
});

$("#sweep-measure").replaceChildren(...MEASURES.map(([key, text]) => el("option", { value: key }, text)));
$("#sweep-measure").addEventListener("change", () => view.sweep && drawChart());
$("#sweep-compare").addEventListener("click", (e) => { location.href = e.target.dataset.href; });

(async () => {
  // The newest sweep of the cluster, if any, is shown (and followed while it runs).
  try {
    const [latest] = await api.get(`/api/clusters/${clusterId}/sweeps/`);
    if (latest && !view.sweep) await follow(latest.id);
  } catch (err) {
    setStatus(status, err.message, "error");
  }
})();
