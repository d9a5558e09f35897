// What a plugin call's `detail` says, made readable: VolumeBinding's volume decisions at
// Reserve, Unreserve and PreBind, an extender's HTTP exchange (verdicts, scores, latency),
// DefaultPreemption's candidates and the criterion that picked the node; any other detail as
// a compact key/value block.
import { el } from "../util.js";
import { claimDecisions, isClaimsDetail } from "./claims.js";

export const isExtender = (plugin) => typeof plugin === "string" && plugin.startsWith("extender:");

/** "extender:http://127.0.0.1:8888/scheduler" -> "extender 127.0.0.1:8888/scheduler". */
export function shortPlugin(plugin) {
  if (!isExtender(plugin)) return plugin;
  return `extender ${plugin.slice("extender:".length).replace(/^https?:\/\//, "")}`;
}

const VOLUME_KEYS = ["assumed", "reverted", "bound", "provisioned"];
export const isVolumeDetail = (d) => Boolean(d) && typeof d === "object" && !Array.isArray(d)
  && VOLUME_KEYS.every((k) => Array.isArray(d[k]));

// --- generic ----------------------------------------------------------------------------------

function scalar(v) {
  if (v === null || v === undefined) return "–";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/** One record of a list (e.g. {pv, pvc}) on one line. */
function recordLine(rec) {
  if (rec === null || typeof rec !== "object") return scalar(rec);
  return Object.entries(rec).map(([k, v]) => `${k}=${scalar(v)}`).join(" · ");
}

/** Any detail object as a compact key/value block (nested objects one level deep). */
export function kvBlock(detail, depth = 0) {
  if (detail === null || typeof detail !== "object") return el("span", scalar(detail));
  const rows = [];
  for (const [key, value] of Object.entries(detail)) {
    let shown;
    if (Array.isArray(value)) {
      if (!value.length) shown = el("span.muted", "none");
      else if (value.every((v) => v === null || typeof v !== "object")) shown = value.map(scalar).join(", ");
      else shown = el("ul.kv-list", value.map((v) => el("li", recordLine(v))));
    } else if (value && typeof value === "object") {
      shown = depth < 1 ? kvBlock(value, depth + 1) : JSON.stringify(value);
    } else {
      shown = scalar(value);
    }
    rows.push(el("dt", key), el("dd", shown));
  }
  return el("dl.kv", rows);
}

// --- VolumeBinding ----------------------------------------------------------------------------

function pvcName(key) {
  return key || "?";
}

function volumeLine(kind, rec, context = false) {
  if (!rec || typeof rec !== "object") return el("li", { "data-kind": kind }, scalar(rec));
  const tag = el(`span.vol-tag.${kind}`, context ? "Reserve assumed" : kind);
  let text;
  if (kind === "assumed" || kind === "reverted") {
    if (rec.kind === "PersistentVolume") {
      text = kind === "assumed"
        ? ["PV ", el("b", rec.name), " for claim ", el("b", pvcName(rec.claim)), context ? "" : " (claimRef set in the scheduler's memory only)"]
        : ["PV ", el("b", rec.name), " released by claim ", el("b", pvcName(rec.claim)), ": Available again"];
    } else if (rec.kind === "PersistentVolumeClaim") {
      text = kind === "assumed"
        ? ["claim ", el("b", rec.name), " to be provisioned on ", el("b", rec.selectedNode || "?"), context ? "" : " (selected-node, in memory)"]
        : ["claim ", el("b", rec.name), ": selected-node annotation dropped"];
    } else {
      text = [recordLine(rec)];
    }
  } else if (kind === "bound") {
    text = ["claim ", el("b", pvcName(rec.pvc)), " bound to PV ", el("b", rec.pv), " (written to the API)"];
  } else if (kind === "provisioned") {
    text = ["claim ", el("b", pvcName(rec.pvc)), " → new PV ", el("b", rec.pv || "?"),
      rec.node ? [" on ", el("b", rec.node)] : "", rec.provisioner ? ` by ${rec.provisioner}` : ""];
  } else {
    text = [recordLine(rec)];
  }
  return el("li", { "data-kind": kind, class: context ? "context" : null }, tag, " ", text);
}

const POINT_VOLUME_KINDS = {
  reserve: [["assumed", "Reserve assumed"]],
  unreserve: [["reverted", "Unreserve reverted"], ["assumed", "what Reserve had assumed"]],
  preBind: [["bound", "PreBind bound"], ["provisioned", "PreBind asked to provision"], ["assumed", "what Reserve had assumed"]],
};

const EMPTY_VOLUME_NOTE = {
  reserve: "Nothing to assume: the pod's claims are all bound already, or it has none.",
  unreserve: "Nothing to revert: Reserve had assumed no volume.",
  preBind: "Nothing to write: every claim was bound already.",
};

/** VolumeBinding's decisions at a point: a small list, the point's own kinds first. */
export function volumeDecisions(point, detail) {
  const kinds = POINT_VOLUME_KINDS[point] || VOLUME_KEYS.map((k) => [k, k]);
  const items = [];
  for (const [kind] of kinds) {
    // "what Reserve had assumed" is context only when the point's own list is not empty.
    if (kind === "assumed" && point !== "reserve" && !(detail.reverted.length || detail.bound.length || detail.provisioned.length)) continue;
    const context = kind === "assumed" && point !== "reserve";
    for (const rec of detail[kind] || []) items.push(volumeLine(kind, rec, context));
  }
  const own = kinds[0][0];
  const empty = !(detail[own] || []).length && !(point === "preBind" && detail.provisioned.length);
  return el("div.volume-decisions", { "data-point": point },
    el("h4", "Volume decisions"),
    empty ? el("p.small.muted", EMPTY_VOLUME_NOTE[point] || "No volume decision.") : null,
    items.length ? el("ul.vol-list", items) : null);
}

// --- extenders --------------------------------------------------------------------------------

/** One HTTP exchange with an extender: verb, latency, what was sent and received, the error. */
export function extenderCall(detail, extra = null) {
  if (!detail || typeof detail !== "object") return null;
  const known = ["verb", "url", "request", "response", "latencyMs", "error", "ignored", "note"];
  const rest = Object.fromEntries(Object.entries(detail).filter(([k]) => !known.includes(k)));
  return el("div.extender-call",
    el("p.small",
      detail.verb ? el("span.badge", detail.verb) : null, " ",
      detail.latencyMs !== undefined ? el("span.latency", `${detail.latencyMs} ms`) : null,
      detail.url ? [" · ", el("code", detail.url)] : null),
    extra,
    el("dl.kv",
      detail.request ? [el("dt", "sent"), el("dd", detail.request)] : null,
      detail.response ? [el("dt", "received"), el("dd", detail.response)] : null,
      detail.error ? [el("dt", "error"), el("dd.code-Error", detail.error)] : null,
      detail.ignored ? [el("dt", "ignored"), el("dd", detail.ignored)] : null,
      detail.note ? [el("dt", "note"), el("dd", detail.note)] : null),
    Object.keys(rest).length ? kvBlock(rest) : null);
}

/** The extenders' filter verdicts of a cycle: per extender, which nodes passed or failed. */
export function extenderFilterBox(trails) {
  const byExt = new Map();
  for (const [node, trail] of Object.entries(trails || {})) {
    for (const e of trail) {
      if (!isExtender(e.plugin)) continue;
      if (!byExt.has(e.plugin)) byExt.set(e.plugin, { passed: [], failed: [], details: [] });
      const x = byExt.get(e.plugin);
      (e.code === "Success" ? x.passed : x.failed).push([node, e]);
      const key = JSON.stringify(e.detail || null);
      if (e.detail && !x.details.some((d) => d[0] === key)) x.details.push([key, e.detail]);
    }
  }
  if (!byExt.size) return null;
  return el("div.extenders-box", el("h4", "Extenders (after the Filter plugins)"),
    [...byExt.entries()].map(([plugin, x]) => el("div.ext-result", { "data-plugin": plugin },
      el("p", el("code", shortPlugin(plugin)), " ",
        el("span.code-Success", `${x.passed.length} passed`), ", ",
        el(x.failed.length ? "span.code-Unschedulable" : "span", `${x.failed.length} failed`)),
      x.failed.length ? el("ul.statuses", x.failed.map(([node, e]) => el("li",
        el("b", node), el(`span.code-${e.code}`, e.code), el("span", (e.reasons || []).join("; "))))) : null,
      x.details.map(([, d]) => extenderCall(d)))));
}

/** The extenders' prioritize scores of a cycle, with their calls. */
export function extenderScoreBox(score) {
  const plugins = Object.keys(score || {}).filter(isExtender);
  if (!plugins.length) return null;
  return el("div.extenders-box", el("h4", "Extenders (prioritize)"),
    plugins.map((plugin) => {
      const byNode = score[plugin];
      const cells = Object.entries(byNode);
      const first = cells.find(([, c]) => c.detail);
      const weight = cells.find(([, c]) => c.normalized);
      return el("div.ext-result", { "data-plugin": plugin },
        el("p", el("code", shortPlugin(plugin)),
          weight ? el("span.muted", ` ×${weight[1].weighted / weight[1].normalized}`) : null),
        el("p.small", "raw → weighted: ", cells.map(([node, c], i) => el("span", i ? " · " : "", `${node} `, el("b", String(c.raw)),
          ` → ${c.weighted}`))),
        first ? extenderCall(first[1].detail) : null);
    }));
}

// --- DefaultPreemption ------------------------------------------------------------------------

const REJECTED_NAMES = 12;

/** The candidates DefaultPreemption found, their victims and PDB violations, and why one won. */
export function preemptionCandidates(pre) {
  const candidates = pre.candidates || [];
  const decision = pre.decision || null;
  const parts = [];
  if (pre.potentialNodes !== undefined) {
    parts.push(el("p.small",
      `Dry run on ${pre.potentialNodes} node(s) that failed with Unschedulable`,
      pre.numCandidates !== undefined ? `, looking for up to ${pre.numCandidates} candidate(s)` : "",
      pre.offset !== undefined ? ` from offset ${pre.offset}` : "", "."));
  }
  if (candidates.length) {
    const chosen = decision ? decision.node : pre.nominatedNode;
    // The deciding criterion's values get a column, unless it is the PDB column already.
    const extra = decision && decision.values && !/PDB/.test(decision.criterion || "");
    parts.push(el("table.data.candidates", { "aria-label": "Preemption candidates" },
      el("thead", el("tr", el("th", { scope: "col" }, "candidate node"), el("th", { scope: "col" }, "victims"),
        el("th.num", { scope: "col" }, "PDB violations"),
        extra ? el("th.num", { scope: "col" }, decision.criterion) : null)),
      el("tbody", candidates.map((c) => el("tr", {
        "data-node": c.node, class: c.node === chosen ? "winner" : c.node === (decision && decision.runnerUp) ? "runner-up" : "",
      },
      el("th", { scope: "row" }, c.node, c.node === chosen ? " ★" : c.node === (decision && decision.runnerUp) ? " (runner-up)" : ""),
      el("td", (c.victims || []).map((v, i) => el("span", i ? " " : "", el("span.chip.victim-name", v)))),
      el("td.num", c.pdbViolations ? el("b.code-Unschedulable", String(c.pdbViolations)) : "0"),
      extra ? el("td.num", c.node in decision.values ? scalar(decision.values[c.node]) : "") : null)))));
  }
  if (decision) {
    let why;
    if (decision.runnerUp && decision.values) {
      why = ["Why ", el("b", decision.node), " won over ", el("b", decision.runnerUp), ": ",
        el("b", decision.criterion), ` (${scalar(decision.values[decision.node])} vs ${scalar(decision.values[decision.runnerUp])}).`];
    } else if (decision.runnerUp) {
      why = ["Why ", el("b", decision.node), " won over ", el("b", decision.runnerUp), ": ", el("b", decision.criterion), "."];
    } else {
      why = [el("b", decision.node), ` won: ${decision.criterion}.`];
    }
    parts.push(el("p.decision", { "data-criterion": decision.criterion }, why),
      decision.why && !decision.values ? el("p.small.muted", decision.why) : null);
  }
  if (pre.afterExtenders) parts.push(el("p.small", "Left by the extenders: ", pre.afterExtenders.join(", ") || "none"));
  const rejected = Object.entries(pre.rejected || {});
  if (rejected.length) {
    // Grouped by reason: thousands of nodes share a handful of them.
    const byWhy = new Map();
    for (const [node, why] of rejected) byWhy.set(why, [...(byWhy.get(why) || []), node]);
    const shown = (nodes) => `${nodes.slice(0, REJECTED_NAMES).join(", ")}${nodes.length > REJECTED_NAMES ? ` … +${nodes.length - REJECTED_NAMES}` : ""}`;
    parts.push(el("details.small", el("summary", `${rejected.length} node(s) where no victims would help`),
      el("ul.kv-list", [...byWhy.entries()].sort((a, b) => b[1].length - a[1].length).map(([why, nodes]) =>
        el("li", el("b", `${nodes.length} node(s)`), `: ${why} — `, el("span.muted", shown(nodes)))))));
  }
  return parts;
}

// --- any entry ---------------------------------------------------------------------------------

/** The block under a status line for its `detail`, by what it looks like. */
export function entryDetail(point, entry) {
  const d = entry.detail;
  if (!d || typeof d !== "object") return null;
  if (isVolumeDetail(d)) return volumeDecisions(point, d);
  if (isClaimsDetail(d)) return claimDecisions(point, d);
  if (isExtender(entry.plugin)) return extenderCall(d);
  return kvBlock(d);
}
