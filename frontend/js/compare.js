// Compare: the cluster scheduled under two weight sets with the same seed; which pods land
// differently, and each node's utilization under both.
import { api } from "./api.js";
import { argsFor, blankConfig, clone, profileAt, setScoreWeight, tidy } from "./config-model.js";
import { urls } from "./urls.js";
import { $, el, fmtQty, pct, setStatus } from "./util.js";

const root = $("#compare-page");
const clusterId = Number(root.dataset.cluster);
const STRATEGIES = ["LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"];
let base = null; // the cluster's configuration
let weights = {}; // its effective score weights
let fitArgs = {}; // its NodeResourcesFit args (defaulted)
const sides = {};

function sideForm(key, title, strategy) {
  const inputs = {};
  const rows = Object.entries(weights).map(([name, w]) => {
    inputs[name] = el("input.weight", {
      type: "number", min: "0", step: "1", value: String(w), required: true, "aria-label": `Side ${key.toUpperCase()}: weight of ${name}`,
      oninput: (e) => e.target.classList.toggle("invalid", !/^\d+$/.test(e.target.value)),
    });
    return el("tr", el("td", el("code", name)), el("td.num", inputs[name]));
  });
  const select = el("select", { "aria-label": `Side ${key.toUpperCase()}: NodeResourcesFit scoring strategy` },
    STRATEGIES.map((s) => el("option", { value: s, selected: s === strategy }, s)));
  const name = el("input", { value: title, "aria-label": `Name of side ${key.toUpperCase()}` });
  sides[key] = { inputs, select, name };
  return el("section.panel", { "aria-label": `Side ${key.toUpperCase()}` },
    el("div.row", { style: "align-items:center" }, el("h2", { style: "margin:0" }, `Side ${key.toUpperCase()}`), name),
    el("label.inline", "NodeResourcesFit scoring", select),
    el("table.data", { style: "margin-top:.5rem" }, el("thead", el("tr", el("th", "Score plugin"), el("th.num", "weight"))), el("tbody", rows)));
}

function configFor(key) {
  const side = sides[key];
  const config = clone(base);
  const profile = profileAt(config, 0);
  for (const [name, input] of Object.entries(side.inputs)) {
    const w = Number(input.value);
    if (w !== weights[name]) setScoreWeight(profile, name, w);
  }
  if (side.select.value !== ((fitArgs.scoringStrategy || {}).type || "LeastAllocated")) {
    const args = argsFor(profile, "NodeResourcesFit", fitArgs);
    args.scoringStrategy = { ...(args.scoringStrategy || {}), type: side.select.value };
    if (side.select.value === "RequestedToCapacityRatio" && !args.scoringStrategy.requestedToCapacityRatio) {
      args.scoringStrategy.requestedToCapacityRatio = { shape: [{ utilization: 0, score: 10 }, { utilization: 100, score: 0 }] };
    }
  }
  return tidy(config);
}

function usageOf(result) {
  let cpu = 0, cpuAlloc = 0, mem = 0, memAlloc = 0, used = 0;
  for (const u of Object.values(result.usage)) {
    cpu += u.cpu[0]; cpuAlloc += u.cpu[1]; mem += u.memory[0]; memAlloc += u.memory[1];
    if (u.pods[0] > 0) used += 1;
  }
  return { cpu: pct(cpu, cpuAlloc), mem: pct(mem, memAlloc), used };
}

function bar(name, pair, side) {
  const [u, a] = pair;
  const p = pct(u, a);
  return el("div.pair",
    el(`span.node-${side}`, side.toUpperCase()),
    el(`span.bar.${side === "b" ? "side-b" : name}${p >= 100 ? ".full" : ""}`, { role: "meter", "aria-label": `${name} ${side.toUpperCase()}`, "aria-valuenow": String(u), "aria-valuemax": String(a) },
      el("span", { style: `width:${p}%` })),
    el("span.small", `${p}%`));
}

function render(data) {
  const a = data.a, b = data.b;
  const names = { a: sides.a.name.value || "A", b: sides.b.name.value || "B" };
  const pods = Object.keys({ ...a.bindings, ...b.bindings }).sort();
  const moved = pods.filter((p) => (a.bindings[p] || null) !== (b.bindings[p] || null));
  const ua = usageOf(a), ub = usageOf(b);
  const bound = (r) => Object.values(r.bindings).filter(Boolean).length;
  const changedNodes = new Set(moved.flatMap((p) => [a.bindings[p], b.bindings[p]]).filter(Boolean));
  let showAll = false;
  const tableBox = el("div.table-wrap");
  const drawTable = () => {
    const list = showAll ? pods : moved;
    tableBox.replaceChildren(el("table.data", { "aria-label": "Pod placement under A and B" },
      el("thead", el("tr", el("th", "pod"), el("th", `A · ${names.a}`), el("th", `B · ${names.b}`))),
      el("tbody", list.length ? list.map((p) => el("tr", { class: moved.includes(p) ? "moved" : "" },
        el("td", p), el("td", a.bindings[p] || el("span.code-Unschedulable", `pending${a.pending[p] ? `: ${a.pending[p].slice(0, 120)}` : ""}`)),
        el("td", b.bindings[p] || el("span.code-Unschedulable", `pending${b.pending[p] ? `: ${b.pending[p].slice(0, 120)}` : ""}`))))
        : el("tr", el("td", { colspan: 3 }, "Every pod lands on the same node under both.")))));
  };
  drawTable();
  const nodes = Object.keys(a.usage);
  $("#results").replaceChildren(
    el("div.compare-summary",
      el("div.stat", el("span.muted", "pods placed differently"), el("b#moved-count", String(moved.length)), el("span.small", `of ${pods.length} pending at the start`)),
      el("div.stat", el("span.muted", "pods bound"), el("b", `${bound(a)} · ${bound(b)}`), el("span.small", "A · B")),
      el("div.stat", el("span.muted", "nodes in use"), el("b", `${ua.used} · ${ub.used}`), el("span.small", `of ${nodes.length}`)),
      el("div.stat", el("span.muted", "cluster cpu requested"), el("b", `${ua.cpu}% · ${ub.cpu}%`), el("span.small", "A · B")),
      el("div.stat", el("span.muted", "cluster memory requested"), el("b", `${ua.mem}% · ${ub.mem}%`), el("span.small", "A · B"))),
    el("div.two-col",
      el("section", el("h2", "Placement"),
        el("label.inline.small", el("input", {
          type: "checkbox", "aria-label": "Show every pod, not only the ones that moved",
          onchange: (e) => { showAll = e.target.checked; drawTable(); },
        }), "show every pod"), tableBox),
      el("section", el("h2", "Utilization per node"),
        el("p.small.muted", "cpu and memory requested under A (blue) and B (orange); outlined nodes got different pods."),
        el("div.util-grid", nodes.map((n) => el(`div.util-node${changedNodes.has(n) ? ".changed" : ""}`, { title: n },
          el("b", n),
          el("div.small.muted", `cpu ${fmtQty("cpu", a.usage[n].cpu[0])} · ${fmtQty("cpu", b.usage[n].cpu[0])} / ${fmtQty("cpu", a.usage[n].cpu[1])}`),
          bar("cpu", a.usage[n].cpu, "a"), bar("cpu", b.usage[n].cpu, "b"),
          el("div.small.muted", `memory ${fmtQty("memory", a.usage[n].memory[0])} · ${fmtQty("memory", b.usage[n].memory[0])}`),
          bar("memory", a.usage[n].memory, "a"), bar("memory", b.usage[n].memory, "b")))))));
}

$("#compare-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const status = $("#compare-status");
  const bad = Object.values(sides).flatMap((s) => Object.values(s.inputs)).filter((i) => !/^\d+$/.test(i.value));
  if (bad.length) {
    setStatus(status, "Weights must be whole numbers ≥ 0.", "error");
    bad[0].focus();
    return;
  }
  setStatus(status, "Scheduling the cluster twice…", "busy");
  try {
    const data = await api.post(urls.compare(clusterId), { a: configFor("a"), b: configFor("b"), seed: Number(e.target.elements.seed.value || 0) });
    render(data);
    setStatus(status, `Done: ${data.a.cycles} and ${data.b.cycles} cycles.`, "ok");
  } catch (err) {
    const messages = err.status === 400 ? err.fieldErrors().map((x) => `${x.path.split(/[.[]/)[0].toUpperCase()}: ${x.message}`) : [err.message];
    setStatus(status, messages.join("\n"), "error");
  }
});

(async () => {
  try {
    const profile = await api.get(urls.profile(clusterId));
    base = profile.config && Object.keys(profile.config).length ? profile.config : blankConfig();
    const check = await api.post(urls.profileCheck, { config: base });
    if (!check.ok) throw new Error(`The cluster's profile is invalid: ${check.errors.join("; ")}`);
    weights = check.profiles[0].weights;
    fitArgs = check.profiles[0].pluginConfig.NodeResourcesFit || {};
    const current = (fitArgs.scoringStrategy || {}).type || "LeastAllocated";
    const other = current === "MostAllocated" ? "LeastAllocated" : "MostAllocated";
    $("#sides").replaceChildren(
      sideForm("a", current === "MostAllocated" ? "bin-pack" : "spread", current),
      sideForm("b", other === "MostAllocated" ? "bin-pack" : "spread", other));
  } catch (err) {
    setStatus($("#compare-status"), err.message, "error");
  }
})();
