// Compare: the cluster scheduled under two saved profiles (each side starts from any cluster's
// profile, or from a sweep's variant; the score weights of each of its profiles and its
// NodeResourcesFit strategy adjustable) with the same seed, or
// two stored runs of the cluster; which pods land differently, and each side's utilization.
import { api, getAll } from "./api.js";
import { differences, scoreWeights, strategyOf } from "./compare-model.js";
import { argsFor, blankConfig, clone, profileAt, setScoreWeight, tidy } from "./config-model.js";
import { urls } from "./urls.js";
import { $, el, fmtQty, pct, setStatus } from "./util.js";

const root = $("#compare-page");
const clusterId = Number(root.dataset.cluster);
const STRATEGIES = ["LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"];
const STRATEGY_LABELS = { LeastAllocated: "spread", MostAllocated: "bin-pack", RequestedToCapacityRatio: "capacity ratio" };
// Past these the page shows what changed, not everything: 5,000 node cards would bury it.
const MAX_ROWS = 500;
const MAX_CARDS = 200;
const sides = {};
let clusters = [];

// A side's strategy is its first profile's; a strategy picked is set in every profile.
const sideStrategy = (check) => strategyOf(check.profiles[0]);

async function loadProfile(cid) {
  const profile = await api.get(urls.profile(cid));
  const config = profile.config && Object.keys(profile.config).length ? profile.config : blankConfig();
  const check = await api.post(urls.profileCheck, { config });
  const source = (clusters.find((c) => c.id === cid) || { name: `cluster ${cid}` }).name;
  if (!check.ok) throw new Error(`The profile of ${source} is invalid: ${check.errors.join("; ")}`);
  return { config, check };
}

/** The side's label follows its strategy until the user names the side themselves. */
function autoName(side) {
  if (side.name.dataset.auto === "1") side.name.value = `${side.source} · ${STRATEGY_LABELS[side.select.value]}`;
}

/** The weights of one profile of the side; inputs[name] gets each weight's input. */
function weightTable(key, expanded, inputs, several) {
  const of = several ? ` in ${expanded.schedulerName}` : "";
  const rows = Object.entries(scoreWeights(expanded)).map(([name, w]) => {
    // kube-scheduler's framework runs a Score weight of 0 as 1 (framework.go: "a weight of zero
    // is not permitted, plugins can be disabled explicitly"): say so where it is typed.
    const note = el("div.weight-note.small", { hidden: true }, "0 runs as 1: disable the plugin to leave it out");
    inputs[name] = el("input.weight", {
      type: "number", min: "0", step: "1", value: String(w), required: true, "aria-label": `Side ${key.toUpperCase()}: weight of ${name}${of}`,
      oninput: (e) => {
        e.target.classList.toggle("invalid", !/^\d+$/.test(e.target.value));
        note.hidden = Number(e.target.value) !== 0 || e.target.value === "";
      },
    });
    return el("tr", el("td", el("code", name)), el("td.num", inputs[name], note));
  });
  return el("table.data.side-weights", { style: "margin-top:.5rem", dataset: { profile: expanded.schedulerName } },
    several ? el("caption", `Profile ${expanded.schedulerName}`) : "",
    el("thead", el("tr", el("th", "Score plugin"), el("th.num", "weight"))), el("tbody", rows));
}

/** Every profile of the side's configuration (a sweep's variant changes them all alike). */
function drawSide(key, strategy) {
  const side = sides[key];
  const several = side.check.profiles.length > 1;
  side.inputs = side.check.profiles.map(() => ({}));
  side.select.replaceChildren(...STRATEGIES.map((s) => el("option", { value: s, selected: s === strategy }, s)));
  side.select.value = strategy;
  autoName(side);
  side.table.replaceChildren(...side.check.profiles.map((p, i) => weightTable(key, p, side.inputs[i], several)));
}

async function useSource(key, cid, strategy) {
  const side = sides[key];
  // The first load and a quick change of the saved profile race: the last choice wins.
  const ticket = side.ticket = (side.ticket || 0) + 1;
  const loaded = await loadProfile(cid);
  if (ticket !== side.ticket) return;
  Object.assign(side, loaded, { cid });
  side.source = cid === clusterId ? "this profile" : (clusters.find((c) => c.id === cid) || {}).name;
  drawSide(key, strategy || sideStrategy(side.check));
}

function sideForm(key) {
  const K = key.toUpperCase();
  const side = sides[key] = {
    select: el("select", { "aria-label": `Side ${K}: NodeResourcesFit scoring strategy`, onchange: () => autoName(side) }),
    name: el("input", { "aria-label": `Name of side ${K}`, dataset: { auto: "1" }, oninput: (e) => { e.target.dataset.auto = ""; } }),
    table: el("div.side-profiles"),
  };
  const source = el("select", {
    "aria-label": `Side ${K}: saved profile to start from`,
    onchange: async (e) => {
      side.chosen = true;
      try { await useSource(key, Number(e.target.value)); } catch (err) { setStatus($("#compare-status"), err.message, "error"); }
    },
  }, clusters.map((c) => el("option", { value: String(c.id), selected: c.id === clusterId }, c.id === clusterId ? `${c.name} (this cluster)` : c.name)));
  return el("section.panel", { "aria-label": `Side ${K}` },
    el("div.row", { style: "align-items:center" }, el("h2", { style: "margin:0" }, `Side ${K}`), side.name),
    el("label.inline", "Profile of", source),
    el("label.inline", "NodeResourcesFit scoring", side.select),
    side.table);
}

function configFor(key) {
  const side = sides[key];
  const config = clone(side.config);
  const pickedStrategy = side.select.value !== sideStrategy(side.check);
  side.check.profiles.forEach((expanded, i) => {
    const profile = profileAt(config, i);
    const weights = scoreWeights(expanded);
    for (const [name, input] of Object.entries(side.inputs[i])) {
      const w = Number(input.value);
      if (w !== weights[name]) setScoreWeight(profile, name, w);
    }
    if (!pickedStrategy) return;
    const args = argsFor(profile, "NodeResourcesFit", expanded.pluginConfig.NodeResourcesFit || {});
    args.scoringStrategy = { ...(args.scoringStrategy || {}), type: side.select.value };
    if (side.select.value === "RequestedToCapacityRatio" && !args.scoringStrategy.requestedToCapacityRatio) {
      args.scoringStrategy.requestedToCapacityRatio = { shape: [{ utilization: 0, score: 10 }, { utilization: 100, score: 0 }] };
    }
  });
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

const where = (r, p) => r.bindings[p] || el("span.code-Unschedulable", `pending${r.pending[p] ? `: ${r.pending[p].slice(0, 120)}` : ""}`);

function placementTable(a, b, names, pods, moved) {
  let showAll = false;
  const movedSet = new Set(moved);
  const box = el("div.table-wrap");
  const draw = () => {
    const list = showAll ? pods : moved;
    box.replaceChildren(el("table.data", { "aria-label": "Pod placement under A and B" },
      el("thead", el("tr", el("th", "pod"), el("th", `A · ${names.a}`), el("th", `B · ${names.b}`))),
      el("tbody", list.length ? list.slice(0, MAX_ROWS).map((p) => el("tr", { class: movedSet.has(p) ? "moved" : "" },
        el("td", p), el("td", where(a, p)), el("td", where(b, p))))
        : el("tr", el("td", { colspan: 3 }, "Every pod lands on the same node under both.")))),
    list.length > MAX_ROWS ? el("p.small.muted#rows-note", `The first ${MAX_ROWS} of ${list.length} pods.`) : "");
  };
  draw();
  return el("section", el("h2", "Placement"),
    el("label.inline.small", el("input", {
      type: "checkbox", "aria-label": "Show every pod, not only the ones that moved",
      onchange: (e) => { showAll = e.target.checked; draw(); },
    }), "show every pod"), box);
}

function utilization(a, b, changedNodes) {
  const nodes = Object.keys(a.usage);
  const shown = nodes.length > MAX_CARDS ? nodes.filter((n) => changedNodes.has(n)).slice(0, MAX_CARDS) : nodes;
  return el("section", el("h2", "Utilization per node"),
    el("p.small.muted", "cpu and memory requested under A (blue) and B (orange); outlined nodes got different pods."),
    shown.length < nodes.length ? el("p.small.muted#cards-note", `${shown.length} of ${nodes.length} nodes: the ones whose pods differ.`) : "",
    el("div.util-grid", shown.map((n) => el(`div.util-node${changedNodes.has(n) ? ".changed" : ""}`, { title: n },
      el("b", n),
      el("div.small.muted", `cpu ${fmtQty("cpu", a.usage[n].cpu[0])} · ${fmtQty("cpu", b.usage[n].cpu[0])} / ${fmtQty("cpu", a.usage[n].cpu[1])}`),
      bar("cpu", a.usage[n].cpu, "a"), bar("cpu", b.usage[n].cpu, "b"),
      el("div.small.muted", `memory ${fmtQty("memory", a.usage[n].memory[0])} · ${fmtQty("memory", b.usage[n].memory[0])}`),
      bar("memory", a.usage[n].memory, "a"), bar("memory", b.usage[n].memory, "b")))));
}

function render(data, names, diffs) {
  const a = data.a, b = data.b;
  const pods = Object.keys({ ...a.bindings, ...b.bindings }).sort();
  const moved = pods.filter((p) => (a.bindings[p] || null) !== (b.bindings[p] || null));
  const ua = usageOf(a), ub = usageOf(b);
  const bound = (r) => Object.values(r.bindings).filter(Boolean).length;
  const changedNodes = new Set(moved.flatMap((p) => [a.bindings[p], b.bindings[p]]).filter(Boolean));
  $("#results").replaceChildren(
    el("div.compare-summary",
      el("div.stat", el("span.muted", "pods placed differently"), el("b#moved-count", String(moved.length)), el("span.small", `of ${pods.length} pods`)),
      el("div.stat", el("span.muted", "pods bound"), el("b", `${bound(a)} · ${bound(b)}`), el("span.small", "A · B")),
      el("div.stat", el("span.muted", "nodes in use"), el("b#nodes-used", `${ua.used} · ${ub.used}`), el("span.small", `of ${Object.keys(a.usage).length}`)),
      el("div.stat", el("span.muted", "cluster cpu requested"), el("b", `${ua.cpu}% · ${ub.cpu}%`), el("span.small", "A · B")),
      el("div.stat", el("span.muted", "cluster memory requested"), el("b", `${ua.mem}% · ${ub.mem}%`), el("span.small", "A · B"))),
    el("section#differences", { "aria-label": "What differs between A and B" },
      el("h2", `A · ${names.a} against B · ${names.b}`),
      diffs.length ? el("ul.small", diffs.map((d) => el("li", el("code", d)))) : el("p.small.muted", "The two sides are the same configuration.")),
    el("div.two-col", placementTable(a, b, names, pods, moved), utilization(a, b, changedNodes)));
}

$("#compare-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const status = $("#compare-status");
  const bad = Object.values(sides).flatMap((s) => s.inputs.flatMap(Object.values)).filter((i) => !/^\d+$/.test(i.value));
  if (bad.length) {
    setStatus(status, "Weights must be whole numbers ≥ 0.", "error");
    bad[0].focus();
    return;
  }
  setStatus(status, "Scheduling the cluster twice…", "busy");
  try {
    const configs = { a: configFor("a"), b: configFor("b") };
    const releases = { a: e.target.elements.release_a.value, b: e.target.elements.release_b.value };
    const gates = { a: e.target.elements.feature_gates_a.value.trim(), b: e.target.elements.feature_gates_b.value.trim() };
    const [data, ca, cb] = await Promise.all([
      api.post(urls.compare(clusterId), {
        ...configs, release_a: releases.a, release_b: releases.b, feature_gates_a: gates.a, feature_gates_b: gates.b,
        seed: Number(e.target.elements.seed.value || 0) }),
      api.post(urls.profileCheck, { config: configs.a, release: releases.a, feature_gates: gates.a }),
      api.post(urls.profileCheck, { config: configs.b, release: releases.b, feature_gates: gates.b })]);
    const diffs = ca.ok && cb.ok ? differences(ca.profiles, cb.profiles) : [];
    if (data.a.feature_gates !== data.b.feature_gates) diffs.unshift(`feature gates: ${data.a.feature_gates || "defaults"} · ${data.b.feature_gates || "defaults"}`);
    if (releases.a !== releases.b) diffs.unshift(`kube-scheduler release: v${releases.a} · v${releases.b}`);
    for (const side of ["a", "b"]) for (const w of data[side].warnings || []) diffs.push(`${side.toUpperCase()} warning: ${w}`);
    render(data, { a: sides.a.name.value || "A", b: sides.b.name.value || "B" }, diffs);
    setStatus(status, `Done: ${data.a.cycles} and ${data.b.cycles} cycles.`, "ok");
  } catch (err) {
    const messages = err.status === 400 ? err.fieldErrors().map((x) => `${x.path.split(/[.[]/)[0].toUpperCase()}: ${x.message}`) : [err.message];
    setStatus(status, messages.join("\n"), "error");
  }
});

const runLabel = (r) => `${r.name || `run ${r.id}`} · ${r.profile} · ${r.status}, ${r.pods_bound} bound`;

async function setupRuns() {
  const runs = (await getAll(`${urls.runs}?cluster=${clusterId}`, { max: 200 })).filter((r) => r.cluster === clusterId);
  const form = $("#runs-form");
  if (runs.length < 2) {
    form.replaceChildren(el("p.small.muted", "Start two runs of this cluster to diff them here."));
    return;
  }
  const pick = (key, i) => el("select", { name: key, "aria-label": `Run ${key.toUpperCase()}` },
    runs.map((r, j) => el("option", { value: String(r.id), selected: j === i }, runLabel(r))));
  form.prepend(el("label.inline", "A", pick("a", 1)), el("label.inline", "B", pick("b", 0)));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const status = $("#runs-status");
    setStatus(status, "Reading both runs…", "busy");
    try {
      const data = await api.get(urls.compareRuns(form.elements.a.value, form.elements.b.value));
      const diffs = data.a.run.profile === data.b.run.profile ? [] : [`profile: ${data.a.run.profile} · ${data.b.run.profile}`];
      if (data.a.run.release !== data.b.run.release) diffs.push(`kube-scheduler release: v${data.a.run.release} · v${data.b.run.release}`);
      if (data.a.run.feature_gates !== data.b.run.feature_gates) diffs.push(`feature gates: ${data.a.run.feature_gates || "defaults"} · ${data.b.run.feature_gates || "defaults"}`);
      render(data, { a: data.a.run.name, b: data.b.run.name }, diffs);
      setStatus(status, `Done: runs at ${data.a.cycles} and ${data.b.cycles} cycles.`, "ok");
    } catch (err) {
      setStatus(status, err.message, "error");
    }
  });
}

/** A side set to a sweep variant's configuration and release, named by its label. */
async function useVariant(key, variant) {
  const check = await api.post(urls.profileCheck, { config: variant.config, release: variant.release,
                                                    feature_gates: variant.feature_gates });
  if (!check.ok) throw new Error(`Variant ${variant.index} is invalid: ${check.errors.join("; ")}`);
  const side = sides[key];
  Object.assign(side, { config: variant.config, check, source: `variant ${variant.index}` });
  drawSide(key, sideStrategy(check));
  side.name.value = `variant ${variant.index} · ${variant.label}`;
  side.name.dataset.auto = "";
  $(`#release-${key}`).value = variant.release;
  $("#compare-form").elements[`feature_gates_${key}`].value = variant.feature_gates;
}

/** ?sweep=<id>&a=<index>&b=<index> (the sweep page's "open in compare"): both sides set to
 *  those variants, then compared. */
async function openVariants(params) {
  const sweep = await api.get(urls.sweep(params.get("sweep")));
  const pick = (key) => sweep.variants.find((v) => String(v.index) === params.get(key));
  const [a, b] = [pick("a"), pick("b")];
  if (!a || !b) throw new Error(`Sweep ${sweep.id} has no variants ${params.get("a")} and ${params.get("b")}.`);
  $("#compare-form").elements.seed.value = String(sweep.seed);
  await useVariant("a", a);
  await useVariant("b", b);
  $("#compare-form").requestSubmit();
}

(async () => {
  try {
    clusters = await getAll(urls.clusters, { max: 200 });
    $("#sides").replaceChildren(sideForm("a"), sideForm("b"));
    const params = new URLSearchParams(location.search);
    if (params.has("sweep")) {
      $("#compare-form button[type=submit]").disabled = false;
      await openVariants(params);
      await setupRuns();
      return;
    }
    await useSource("a", clusterId);
    // B starts as A with the other NodeResourcesFit strategy: spread against bin-pack, unless
    // the user picked B's saved profile while A was loading.
    const other = sideStrategy(sides.a.check) === "MostAllocated" ? "LeastAllocated" : "MostAllocated";
    if (!sides.b.chosen) await useSource("b", clusterId, other);
    // Both sides have their weights now: comparing before would read half-drawn sides.
    $("#compare-form button[type=submit]").disabled = false;
    await setupRuns();
  } catch (err) {
    setStatus($("#compare-status"), err.message, "error");
  }
})();
