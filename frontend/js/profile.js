// The profile editor: plugins per extension point (add, remove, reorder, enable/disable the
// defaults), Score weights, typed plugin args, percentageOfNodesToScore, extenders, and a
// YAML tab kept in sync both ways. Every change is checked by the engine's validation
// (/api/profiles/check/); saving shows the API's kube-scheduler messages next to their fields.
import { api } from "./api.js";
import {
  POINTS, POINT_LABELS, argsFor, blankConfig, clone, pluginConfigIndex, pluginSet, profileAt, tidy,
} from "./config-model.js";
import { configHints, pathToLine } from "./schema-hints.js";
import { urls } from "./urls.js";
import { $, $$, debounce, el, setStatus } from "./util.js";
import { createEditor } from "../vendor/codemirror/editor.js";

const root = $("#profile-page");
const clusterId = Number(root.dataset.cluster);
const TABS = ["plugins", "args", "general", "yaml"];

let saved = null; // the config as stored
let config = null; // the working copy
let catalog = []; // /api/plugins/
let byName = {};
let check = null; // the last /api/profiles/check/ answer
let index = 0; // the profile being edited
let writable = true;
let yamlError = "";
let tab = "plugins";
let editor = null; // the YAML tab's CodeMirror, made once the plugin names are known

const prof = () => profileAt(config, index);
const path = (rest) => `profiles[${index}].${rest}`;

// --- checking -------------------------------------------------------------------------------

const recheck = debounce(async () => {
  try {
    check = await api.post(urls.profileCheck, { config: tidy(clone(config)), release: $("#release-select").value });
  } catch (err) {
    check = { ok: false, errors: [err.message] };
  }
  showErrors(check.ok ? [] : check.errors, "check");
  updateEffective();
}, 250);

function changed({ structure = false } = {}) {
  showErrors([], "save"); // the API's verdict was about the profile before this change
  setStatus($("#save-status"), JSON.stringify(tidy(clone(config))) === JSON.stringify(saved) ? "" : "Unsaved changes.", "busy");
  if (structure) renderTab();
  recheck();
}

/** "profiles[0].plugins.score.enabled[1].weight: Invalid value: ..." -> its field path. */
function messagePath(message) {
  const m = /^([A-Za-z0-9_.[\]*-]+?)(?:: )/.exec(message);
  return m ? m[1] : "";
}

function fieldFor(p, message) {
  if (!p) return null;
  const fields = $$("[data-path]", root);
  const alt = p.replace(/pluginConfig\[([A-Za-z]\w*)\]/, (_, name) => `pluginConfig[${pluginConfigIndex(prof(), name)}]`);
  let best = null;
  for (const f of fields) {
    const fp = f.dataset.path;
    for (const candidate of [p, alt]) {
      if ((candidate === fp || candidate.startsWith(`${fp}.`) || candidate.startsWith(`${fp}[`))
        && (!best || fp.length > best.dataset.path.length)) best = f;
    }
  }
  if (best) return best;
  const named = /"([A-Za-z][\w-]*)"/.exec(message);
  if (named) return $(`[data-plugin="${named[1]}"][data-field]`, root);
  return null;
}

/** Messages next to their fields (and all of them in the box under the save bar). */
function showErrors(messages, source) {
  for (const e of $$(`.field-error[data-source="${source}"]`, root)) e.remove();
  for (const f of $$(`[data-invalid-source="${source}"]`, root)) {
    f.classList.remove("invalid");
    f.removeAttribute("aria-invalid");
    delete f.dataset.invalidSource;
  }
  const counts = {};
  const general = [];
  for (const message of messages) {
    const field = fieldFor(messagePath(message), message);
    if (!field) {
      general.push(message);
      continue;
    }
    field.classList.add("invalid");
    field.setAttribute("aria-invalid", "true");
    field.dataset.invalidSource = source;
    const note = el("div.field-error", { role: "alert", dataset: { source } }, message);
    note.id = `err-${Math.random().toString(36).slice(2)}`;
    field.setAttribute("aria-describedby", note.id);
    const holder = field.closest("li, .field, label") || field;
    holder.after(note);
    const panel = field.closest('[role="tabpanel"]');
    if (panel) counts[panel.id] = (counts[panel.id] || 0) + 1;
  }
  for (const t of TABS) {
    const button = $(`#tab-${t}`);
    button.textContent = button.textContent.replace(/ \(\d+ errors?\)$/, "");
    const n = $$(".field-error", $(`#panel-${t}`)).length;
    if (n) button.textContent += ` (${n} error${n > 1 ? "s" : ""})`;
  }
  // The same messages as lint markers on the YAML lines their field paths point at.
  if (editor && !yamlError) {
    editor.setProblems(messages.map((m) => ({ line: pathToLine(editor.value, messagePath(m)), message: m })));
  }
  if (source === "save") {
    $("#errors").textContent = messages.length ? `kube-scheduler rejected the profile:\n${messages.join("\n")}` : "";
  } else if (!$("#errors").textContent.startsWith("kube-scheduler")) {
    $("#errors").textContent = general.join("\n");
  }
  return counts;
}

function updateEffective() {
  const p = check && check.ok ? check.profiles[Math.min(index, check.profiles.length - 1)] : null;
  for (const box of $$(".effective[data-point]", root)) {
    const point = box.dataset.point;
    if (!p) {
      box.textContent = "runs: (fix the errors to see the pipeline)";
      continue;
    }
    const names = point === "multiPoint" ? [] : p.points[point] || [];
    box.textContent = point === "multiPoint" ? "" : `runs: ${names.length ? names.map((n) => (point === "score" ? `${n}×${p.weights[n] ?? 1}` : n)).join(" → ") : "(nothing)"}`;
  }
  for (const input of $$("input.weight[data-default-of]", root)) {
    if (p && document.activeElement !== input && p.weights[input.dataset.defaultOf] !== undefined) {
      input.value = p.weights[input.dataset.defaultOf];
    }
  }
}

// --- plugins tab ----------------------------------------------------------------------------

function implementing(point) {
  return catalog.filter((p) => point === "multiPoint" || p.extension_points.includes(point));
}

/** kube-scheduler's framework runs a Score weight of 0 as 1 ("a weight of zero is not
 *  permitted, plugins can be disabled explicitly"): say so where a 0 is typed. */
function zeroWeightNote(input) {
  const box = input.parentElement;
  if (!box) return;
  const note = box.querySelector(".weight-note");
  const zero = input.value.trim() !== "" && Number(input.value) === 0;
  if (!zero) {
    if (note) note.remove();
  } else if (!note) {
    box.append(el("div.weight-note.small", "0 runs as 1: kube-scheduler does not permit a weight of zero; disable the plugin to leave it out"));
  }
}

function weightInput(name, value, p, onCommit, extra = {}) {
  const input = el("input.weight", {
    type: "number", step: "1", min: "0", value: value ?? "", "aria-label": `Weight of ${name}`,
    "data-plugin": name, "data-field": "weight", ...(p ? { "data-path": p } : {}), ...extra,
  });
  input.addEventListener("input", () => {
    const v = input.value.trim();
    const ok = v === "" || /^-?\d+$/.test(v);
    const note = input.parentElement.querySelector('.field-error[data-source="inline"]');
    if (note) note.remove();
    input.classList.toggle("invalid", !ok || Number(v) < 0);
    if (!ok) input.parentElement.append(el("div.field-error", { dataset: { source: "inline" } }, "a weight must be a whole number"));
    else if (Number(v) < 0) input.parentElement.append(el("div.field-error", { dataset: { source: "inline" } }, "a weight must not be negative"));
    zeroWeightNote(input);
  });
  requestAnimationFrame(() => zeroWeightNote(input));
  input.addEventListener("change", () => {
    const v = input.value.trim();
    onCommit(v === "" ? undefined : /^-?\d+$/.test(v) ? Number(v) : v);
  });
  return input;
}

function pointSection(point) {
  const profile = prof();
  const set = (profile.plugins && profile.plugins[point]) || {};
  const enabled = set.enabled || [];
  const disabled = (set.disabled || []).map((d) => d.name);
  const star = disabled.includes("*");
  const defaults = catalog.filter((p) => p.enabled_by_default && (point === "multiPoint" || p.extension_points.includes(point)));
  const scoreSet = (profile.plugins && profile.plugins.score && profile.plugins.score.enabled) || [];
  const label = POINT_LABELS[point];

  const defaultRows = defaults.map((p) => {
    const off = star || disabled.includes(p.name);
    const override = point === "score" ? scoreSet.find((e) => e.name === p.name) : null;
    const box = el("input", {
      type: "checkbox", checked: !off, disabled: star || !writable,
      "aria-label": `Default plugin ${p.name} enabled at ${label}`,
      onchange: (e) => {
        const s = pluginSet(prof(), point);
        s.disabled = s.disabled.filter((d) => d.name !== p.name);
        if (!e.target.checked) s.disabled.push({ name: p.name });
        changed({ structure: true });
      },
    });
    let weight = null;
    if (point === "score") {
      weight = override
        ? el("span.small.muted", `weight ${override.weight ?? 1} (set below)`)
        : weightInput(p.name, p.default_weight, null, (w) => {
          if (w === undefined) return;
          pluginSet(prof(), "score").enabled.push({ name: p.name, weight: w });
          changed({ structure: true });
        }, { "data-default-of": p.name, disabled: off || !writable });
    }
    return el(`li${off ? ".off" : ""}`, box, el("span.pname", p.name), weight);
  });

  const enabledRows = enabled.map((e, i) => {
    const move = (delta) => {
      const s = pluginSet(prof(), point);
      const [item] = s.enabled.splice(i, 1);
      s.enabled.splice(i + delta, 0, item);
      changed({ structure: true });
    };
    return el("li", { dataset: { plugin: e.name } },
      el("span.pname", { "data-path": path(`plugins.${point}.enabled[${i}].name`) }, e.name, byName[e.name] ? "" : " (unknown)"),
      point === "score" || point === "multiPoint"
        ? weightInput(e.name, e.weight, path(`plugins.${point}.enabled[${i}].weight`), (w) => {
          const s = pluginSet(prof(), point);
          if (w === undefined) delete s.enabled[i].weight;
          else s.enabled[i].weight = w;
          changed();
        }, { disabled: !writable })
        : null,
      el("button.icon", { type: "button", disabled: i === 0 || !writable, "aria-label": `Move ${e.name} up at ${label}`, onclick: () => move(-1) }, "↑"),
      el("button.icon", { type: "button", disabled: i === enabled.length - 1 || !writable, "aria-label": `Move ${e.name} down at ${label}`, onclick: () => move(1) }, "↓"),
      el("button.icon", {
        type: "button", disabled: !writable, "aria-label": `Remove ${e.name} from ${label}`,
        onclick: () => { pluginSet(prof(), point).enabled.splice(i, 1); changed({ structure: true }); },
      }, "✕"));
  });

  const choices = implementing(point).filter((p) => !enabled.some((e) => e.name === p.name));
  const select = el("select", { "aria-label": `Plugin to add at ${label}`, disabled: !writable },
    choices.map((p) => el("option", { value: p.name }, p.name)));
  const add = el("button.small", {
    type: "button", disabled: !choices.length || !writable, "aria-label": `Add plugin at ${label}`,
    onclick: () => {
      const entry = { name: select.value };
      if (point === "score" && byName[select.value]) entry.weight = byName[select.value].default_weight ?? 1;
      pluginSet(prof(), point).enabled.push(entry);
      changed({ structure: true });
    },
  }, "Add");

  return el("section.panel.point-form", { dataset: { point }, "aria-label": `${label} plugins` },
    el("h3", label), el("p.effective", { dataset: { point }, "aria-live": "polite" }),
    point === "multiPoint" ? el("p.small.muted", "MultiPoint enables a plugin at every extension point it implements. The defaults below are kube-scheduler's v1 default profile.") : null,
    defaults.length ? el("div",
      el("div.small.muted", point === "multiPoint" ? "Default plugins" : "Defaults from multiPoint"),
      el("ul.plugin-list", defaultRows),
      el("label.inline.small", el("input", {
        type: "checkbox", checked: star, disabled: !writable, "aria-label": `Disable all default plugins at ${label}`,
        onchange: (e) => {
          const s = pluginSet(prof(), point);
          s.disabled = s.disabled.filter((d) => d.name !== "*");
          if (e.target.checked) s.disabled.push({ name: "*" });
          changed({ structure: true });
        },
      }), "disable all defaults (*)")) : null,
    el("div.small.muted", { style: "margin-top:.4rem" }, point === "multiPoint" ? "Enabled at every point they implement" : "Enabled here (in order, before the defaults)"),
    enabledRows.length ? el("ul.plugin-list", enabledRows) : el("p.small.muted", "none"),
    choices.length ? el("div.row", select, add) : el("p.small.muted", `No other plugin implements ${label}.`));
}

function renderPlugins() {
  $("#points").replaceChildren(...["multiPoint", ...POINTS].map(pointSection));
}

// --- args tab -------------------------------------------------------------------------------

function currentArgs(name) {
  const profile = prof();
  const i = pluginConfigIndex(profile, name);
  if (i >= 0) return [profile.pluginConfig[i].args || {}, i];
  const defaulted = check && check.ok && check.profiles[index] && check.profiles[index].pluginConfig[name];
  return [clone(defaulted || (byName[name] && byName[name].default_args) || {}), (profile.pluginConfig || []).length];
}

function argsPath(i, rest) {
  return path(`pluginConfig[${i}].args.${rest}`);
}

function field(labelText, input, hint) {
  return el("label.field", labelText, input, hint ? el("span.small.muted", hint) : null);
}

function numberInput(name, key, p, value, { min, max, label }) {
  const input = el("input", {
    type: "number", step: "1", value: value ?? "", "data-path": p, "aria-label": `${name} ${label}`,
    min: min ?? null, max: max ?? null, disabled: !writable,
  });
  input.addEventListener("input", () => {
    const v = input.value === "" ? null : Number(input.value);
    input.classList.toggle("invalid", v !== null && (!Number.isInteger(v) || (min !== undefined && v < min) || (max !== undefined && v > max)));
  });
  input.addEventListener("change", () => {
    const args = argsFor(prof(), name, currentArgs(name)[0]);
    setDeep(args, key, input.value === "" ? undefined : Number(input.value));
    changed();
  });
  return input;
}

function setDeep(obj, key, value) {
  const parts = key.split(".");
  let o = obj;
  for (const k of parts.slice(0, -1)) o = o[k] = o[k] || {};
  if (value === undefined) delete o[parts[parts.length - 1]];
  else o[parts[parts.length - 1]] = value;
}

function resourceRows(name, listKey, resources, i, { weightMin = 1, weightMax = 100 } = {}) {
  const rows = (resources || []).map((r, j) => el("div.row", { "data-path": argsPath(i, `${listKey}[${j}]`) },
    el("input", {
      value: r.name || "", "aria-label": `${name} resource ${j + 1} name`, disabled: !writable,
      "data-path": argsPath(i, `${listKey}[${j}].name`),
      onchange: (e) => { editList(name, listKey, (list) => { list[j].name = e.target.value.trim(); }); },
    }),
    el("input", {
      type: "number", step: "1", min: weightMin, max: weightMax, value: r.weight ?? "", disabled: !writable,
      "aria-label": `${name} resource ${j + 1} weight`, "data-path": argsPath(i, `${listKey}[${j}].weight`),
      onchange: (e) => { editList(name, listKey, (list) => { list[j].weight = e.target.value === "" ? 0 : Number(e.target.value); }); },
    }),
    el("button.icon", {
      type: "button", disabled: !writable, "aria-label": `Remove ${name} resource ${r.name || j + 1}`,
      onclick: () => editList(name, listKey, (list) => list.splice(j, 1), true),
    }, "✕")));
  return el("div.res-rows", el("div.small.muted", "resource name · weight"), rows,
    el("div.row", el("button.small", {
      type: "button", disabled: !writable, "aria-label": `Add a resource to ${name}`,
      onclick: () => editList(name, listKey, (list) => list.push({ name: "", weight: 1 }), true),
    }, "Add resource")));
}

function editList(name, key, fn, structure = false) {
  const args = argsFor(prof(), name, currentArgs(name)[0]);
  const parts = key.split(".");
  let o = args;
  for (const k of parts.slice(0, -1)) o = o[k] = o[k] || {};
  const last = parts[parts.length - 1];
  o[last] = o[last] || [];
  fn(o[last]);
  changed({ structure });
}

function argsCard(name, body) {
  const i = pluginConfigIndex(prof(), name);
  return el("section.panel", { "aria-label": `${name} args`, dataset: { plugin: name } },
    el("h3", name, i >= 0 ? el("button.small", {
      type: "button", disabled: !writable, "aria-label": `Reset ${name} args to defaults`,
      onclick: () => { prof().pluginConfig.splice(i, 1); changed({ structure: true }); },
    }, "Use defaults") : el("span.badge", "defaults")),
    body);
}

// The args forms follow each plugin's default arguments from the plugins API: a number, a
// switch, a choice or text per field, rows for resource lists, nested fields in groups. What
// the defaults cannot say (the allowed values of an enum, ranges, a hint) is in the tables
// below, by "Plugin.field.path".
const ARG_CHOICES = {
  "NodeResourcesFit.scoringStrategy.type": ["LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"],
  "PodTopologySpread.defaultingType": ["System", "List"],
};
const ARG_LABELS = {
  "NodeResourcesFit.scoringStrategy.type": "NodeResourcesFit scoring strategy",
};
const ARG_RANGES = {
  "InterPodAffinity.hardPodAffinityWeight": [0, 100],
  "DefaultPreemption.minCandidateNodesPercentage": [0, 100],
  "Coscheduling.podGroupRejectPercentage": [0, 100],
};
const ARG_HINTS = {
  "NodeResourcesFit.scoringStrategy.type": "LeastAllocated spreads, MostAllocated bin-packs.",
  "InterPodAffinity.hardPodAffinityWeight": "0–100: the score an existing pod's required affinity gives to nodes it matches.",
  "PodTopologySpread.defaultingType": "System: kube-scheduler's built-in default constraints. List: the defaultConstraints below (edit them in the YAML tab).",
  "DefaultPreemption.minCandidateNodesPercentage": "0–100",
  "DefaultPreemption.minCandidateNodesAbsolute": "≥ 0",
  "NodeResourcesBalancedAllocation.resources": "Resources whose usage fractions should be balanced (each weight must be 1).",
};
const ARG_RESOURCE_WEIGHTS = { "NodeResourcesBalancedAllocation.resources": { weightMin: 1, weightMax: 1 } };
// Changing a choice may bring fields with it, or make some meaningless.
const ARG_ON_CHOICE = {
  "NodeResourcesFit.scoringStrategy.type": (args, value) => {
    if (value === "RequestedToCapacityRatio" && !args.scoringStrategy.requestedToCapacityRatio) {
      args.scoringStrategy.requestedToCapacityRatio = { shape: [{ utilization: 0, score: 0 }, { utilization: 100, score: 10 }] };
    }
  },
  "PodTopologySpread.defaultingType": (args, value) => {
    if (value === "System") delete args.defaultConstraints;
  },
};

const isResourceList = (v) => Array.isArray(v) && v.every((r) => r && typeof r === "object" && "name" in r && "weight" in r);
const isFlatObjectList = (v) => Array.isArray(v) && v.length > 0 && v.every((r) => r && typeof r === "object" && Object.values(r).every((x) => typeof x === "number"));

function getDeep(obj, key) {
  return key.split(".").reduce((o, k) => (o && typeof o === "object" ? o[k] : undefined), obj);
}

function choiceInput(name, key, value, i) {
  const id = `${name}.${key}`;
  return el("select", {
    "aria-label": ARG_LABELS[id] || `${name} ${key}`, "data-path": argsPath(i, key), disabled: !writable,
    onchange: (e) => {
      const a = argsFor(prof(), name, currentArgs(name)[0]);
      setDeep(a, key, e.target.value);
      ARG_ON_CHOICE[id]?.(a, e.target.value);
      changed({ structure: true });
    },
  }, ARG_CHOICES[id].map((t) => el("option", { value: t, selected: value === t }, t)));
}

function scalarInput(name, key, value, fallback, i) {
  const id = `${name}.${key}`;
  if (ARG_CHOICES[id]) return choiceInput(name, key, value ?? fallback, i);
  if (typeof fallback === "number") {
    const [min, max] = ARG_RANGES[id] || [0, undefined];
    return numberInput(name, key, argsPath(i, key), value, { min, max, label: key });
  }
  const commit = (v) => {
    setDeep(argsFor(prof(), name, currentArgs(name)[0]), key, v);
    changed();
  };
  if (typeof fallback === "boolean") {
    return el("input", {
      type: "checkbox", checked: Boolean(value), "aria-label": `${name} ${key}`, "data-path": argsPath(i, key),
      disabled: !writable, onchange: (e) => commit(e.target.checked),
    });
  }
  if (Array.isArray(fallback)) {
    return el("input", {
      value: (value || []).join(", "), "aria-label": `${name} ${key}`, "data-path": argsPath(i, key), disabled: !writable,
      placeholder: "comma-separated", onchange: (e) => commit(e.target.value.split(",").map((x) => x.trim()).filter(Boolean)),
    });
  }
  return el("input", {
    value: value ?? "", "aria-label": `${name} ${key}`, "data-path": argsPath(i, key), disabled: !writable,
    onchange: (e) => commit(e.target.value.trim() === "" ? undefined : e.target.value.trim()),
  });
}

/** Rows of small objects of numbers (a RequestedToCapacityRatio shape). */
function objectRows(name, key, list, i) {
  return el("div", el("div.small.muted", `${key}: ${Object.keys(list[0] || {}).join(" · ")}`),
    list.map((pt, j) => el("div.row", Object.keys(pt).map((k) => el("input", {
      type: "number", step: "1", value: pt[k] ?? "", "aria-label": `${name} ${key} ${j + 1} ${k}`, disabled: !writable,
      "data-path": argsPath(i, `${key}[${j}].${k}`),
      onchange: (e) => editList(name, key, (rows) => { rows[j][k] = Number(e.target.value); }),
    })))));
}

/** The fields of `defaults` (and of `args` beyond them) under `prefix`, as form controls. */
function argFields(name, args, defaults, i, prefix = "") {
  const here = prefix ? getDeep(args, prefix.slice(0, -1)) : args;
  const keys = [...new Set([...Object.keys(defaults || {}), ...Object.keys(here || {})])];
  return keys.map((k) => {
    const key = `${prefix}${k}`;
    const id = `${name}.${key}`;
    const value = getDeep(args, key);
    const fallback = defaults && k in defaults ? defaults[k] : value;
    if (isResourceList(fallback) || isResourceList(value)) {
      return el("div.stack", ARG_HINTS[id] ? el("p.small.muted", ARG_HINTS[id]) : el("div.small.muted", key),
        resourceRows(name, key, value, i, ARG_RESOURCE_WEIGHTS[id]));
    }
    if (isFlatObjectList(value)) return objectRows(name, key, value, i);
    if (fallback && typeof fallback === "object" && !Array.isArray(fallback)) {
      return el("fieldset.arg-group", el("legend.small", key), argFields(name, args, fallback, i, `${key}.`));
    }
    if (Array.isArray(value) && value.some((x) => x && typeof x === "object")) {
      return field(key, el("pre.small.code", JSON.stringify(value, null, 1)), "Edit these in the YAML tab.");
    }
    return field(key, scalarInput(name, key, value, fallback, i), ARG_HINTS[id]);
  });
}

function renderArgs() {
  const cards = Object.values(byName).filter((p) => p.default_args && Object.keys(p.default_args).length).map((p) => {
    const [args, i] = currentArgs(p.name);
    return argsCard(p.name, el("div.stack", argFields(p.name, args, p.default_args, i)));
  });
  $("#args").replaceChildren(...cards);
}

// --- general tab ----------------------------------------------------------------------------

function topNumber(labelText, key, holder, p, { min, max, hint }) {
  const input = el("input", {
    type: "number", step: "1", value: holder()[key] ?? "", "data-path": p, "aria-label": labelText,
    min: min ?? null, max: max ?? null, disabled: !writable, placeholder: "default",
  });
  input.addEventListener("change", () => {
    if (input.value === "") delete holder()[key];
    else holder()[key] = Number(input.value);
    changed();
  });
  input.addEventListener("input", () => {
    const v = Number(input.value);
    input.classList.toggle("invalid", input.value !== "" && (!Number.isInteger(v) || (min !== undefined && v < min) || (max !== undefined && v > max)));
  });
  return field(labelText, input, hint);
}

const VERBS = ["filterVerb", "prioritizeVerb", "preemptVerb", "bindVerb"];

function extenderForm(ext, j) {
  const p = (k) => `extenders[${j}].${k}`;
  const edit = (k, v, structure = false) => {
    if (v === "" || v === undefined || v === false) delete config.extenders[j][k];
    else config.extenders[j][k] = v;
    changed({ structure });
  };
  const text = (k, label) => field(label, el("input", {
    value: ext[k] || "", "data-path": p(k), "aria-label": `Extender ${j + 1} ${label}`, disabled: !writable,
    onchange: (e) => edit(k, e.target.value.trim()),
  }));
  const check = (k, label) => el("label.inline", el("input", {
    type: "checkbox", checked: Boolean(ext[k]), "data-path": p(k), "aria-label": `Extender ${j + 1} ${label}`, disabled: !writable,
    onchange: (e) => edit(k, e.target.checked),
  }), label);
  return el("section.panel", { "aria-label": `Extender ${j + 1}` },
    el("h3", `Extender ${j + 1}`, el("button.small.danger", {
      type: "button", disabled: !writable, "aria-label": `Remove extender ${j + 1}`,
      onclick: () => { config.extenders.splice(j, 1); changed({ structure: true }); },
    }, "Remove")),
    el("div.extender",
      text("urlPrefix", "urlPrefix"),
      ...VERBS.map((v) => text(v, v)),
      field("weight", el("input", {
        type: "number", step: "1", min: "0", value: ext.weight ?? "", "data-path": p("weight"), disabled: !writable,
        "aria-label": `Extender ${j + 1} weight`, onchange: (e) => edit("weight", e.target.value === "" ? undefined : Number(e.target.value)),
      })),
      check("ignorable", "ignorable"), check("nodeCacheCapable", "nodeCacheCapable"), check("enableHTTPS", "enableHTTPS")));
}

function renderGeneral() {
  const profile = prof();
  const name = el("input", {
    value: profile.schedulerName || "default-scheduler", "data-path": path("schedulerName"),
    "aria-label": "schedulerName", disabled: !writable,
    onchange: (e) => { prof().schedulerName = e.target.value.trim(); renderProfileSelect(); changed(); },
  });
  $("#general").replaceChildren(
    el("div.two-col",
      el("section.panel", { "aria-label": "Configuration" }, el("h3", "Configuration"),
        el("div.stack",
          topNumber("percentageOfNodesToScore", "percentageOfNodesToScore", () => config, "percentageOfNodesToScore",
            { min: 0, max: 100, hint: "0 or empty: adaptive (50% minus 1% per 125 nodes, at least 5%); at least 100 nodes are always scored." }),
          topNumber("podInitialBackoffSeconds", "podInitialBackoffSeconds", () => config, "podInitialBackoffSeconds", { min: 1, hint: "default 1" }),
          topNumber("podMaxBackoffSeconds", "podMaxBackoffSeconds", () => config, "podMaxBackoffSeconds", { min: 1, hint: "default 10" }))),
      el("section.panel", { "aria-label": "This profile" }, el("h3", `Profile ${index + 1}`),
        el("div.stack",
          field("schedulerName", name, "Pods pick a profile with spec.schedulerName."),
          topNumber("profile percentageOfNodesToScore", "percentageOfNodesToScore", () => prof(), path("percentageOfNodesToScore"), { min: 0, max: 100, hint: "overrides the global value for this profile" }),
          el("div.row",
            el("button.small", {
              type: "button", disabled: !writable, "aria-label": "Add a profile",
              onclick: () => {
                prof();
                config.profiles.push({ schedulerName: `scheduler-${config.profiles.length + 1}` });
                index = config.profiles.length - 1;
                renderProfileSelect();
                changed({ structure: true });
              },
            }, "Add profile"),
            el("button.small.danger", {
              type: "button", disabled: !writable || !(config.profiles && config.profiles.length > 1), "aria-label": "Remove this profile",
              onclick: () => {
                config.profiles.splice(index, 1);
                index = 0;
                renderProfileSelect();
                changed({ structure: true });
              },
            }, "Remove profile"))))),
    el("h2", "Extenders"),
    el("p.small.muted", "HTTP webhooks kube-scheduler calls after its own Filter and Score plugins (filterVerb, prioritizeVerb), for preemption and for binding."),
    el("div.extenders", (config.extenders || []).map(extenderForm)),
    el("div.row", { style: "margin-top:.5rem" }, el("button", {
      type: "button", disabled: !writable, "aria-label": "Add an extender",
      onclick: () => {
        config.extenders = config.extenders || [];
        config.extenders.push({ urlPrefix: "http://127.0.0.1:8888/scheduler", filterVerb: "filter", weight: 1 });
        changed({ structure: true });
      },
    }, "Add extender")));
}

// --- YAML tab -------------------------------------------------------------------------------

async function showYaml() {
  try {
    const { text } = await api.post(urls.yaml, { data: tidy(clone(config)) });
    if (tab === "yaml" && !editor.hasFocus) editor.value = text;
    yamlError = "";
    setStatus($("#yaml-status"), "");
  } catch (err) {
    setStatus($("#yaml-status"), err.message, "error");
  }
}

const parseYaml = debounce(async () => {
  try {
    const { data, error, line } = await api.post(urls.yaml, { text: editor.value });
    if (error) throw Object.assign(new Error(error), { line });
    config = data;
    yamlError = "";
    if (!config.profiles || index >= config.profiles.length) index = 0;
    setStatus($("#yaml-status"), "YAML parsed: the forms follow it.", "ok");
    $("#yaml").classList.remove("invalid");
    editor.setProblems([]);
    renderProfileSelect();
    changed();
  } catch (err) {
    yamlError = err.body && err.body.error ? err.body.error : err.message;
    $("#yaml").classList.add("invalid");
    editor.setProblems([{ line: err.line, message: yamlError }]);
    setStatus($("#yaml-status"), `YAML error: ${yamlError}`, "error");
  }
}, 350);

// --- frame ----------------------------------------------------------------------------------

function renderProfileSelect() {
  const names = (config.profiles && config.profiles.length ? config.profiles : [{ schedulerName: "default-scheduler" }])
    .map((p, i) => p.schedulerName || `profile ${i + 1}`);
  $("#profile-select").replaceChildren(...names.map((n, i) => el("option", { value: String(i), selected: i === index }, n)));
}

function renderTab() {
  if (tab === "plugins") renderPlugins();
  else if (tab === "args") renderArgs();
  else if (tab === "general") renderGeneral();
  else showYaml();
  updateEffective();
  if (check && !check.ok) showErrors(check.errors, "check");
}

function selectTab(name) {
  if (tab === "yaml" && name !== "yaml" && yamlError) {
    setStatus($("#yaml-status"), `Fix the YAML first: ${yamlError}`, "error");
    return;
  }
  tab = name;
  for (const t of TABS) {
    $(`#tab-${t}`).setAttribute("aria-selected", String(t === name));
    $(`#tab-${t}`).tabIndex = t === name ? 0 : -1;
    $(`#panel-${t}`).hidden = t !== name;
  }
  // A tab picked before the profile has loaded is drawn once it has (the loader selects it).
  if (config) renderTab();
}

for (const t of TABS) $(`#tab-${t}`).addEventListener("click", () => selectTab(t));
$(".tabs").addEventListener("keydown", (e) => {
  if (e.key !== "ArrowRight" && e.key !== "ArrowLeft") return;
  const next = TABS[(TABS.indexOf(tab) + (e.key === "ArrowRight" ? 1 : TABS.length - 1)) % TABS.length];
  selectTab(next);
  $(`#tab-${next}`).focus();
});
$("#profile-select").addEventListener("change", (e) => {
  index = Number(e.target.value);
  renderTab();
  recheck();
});
// The check (and the effective plugins it shows) follows the chosen kube-scheduler release.
$("#release-select").addEventListener("change", () => recheck());

$("#save").addEventListener("click", async () => {
  if (yamlError) {
    setStatus($("#save-status"), `Fix the YAML first: ${yamlError}`, "error");
    return;
  }
  setStatus($("#save-status"), "Saving…", "busy");
  try {
    const result = await api.put(urls.profile(clusterId), { config: tidy(clone(config)) });
    saved = tidy(clone(result.config));
    showErrors([], "save");
    setStatus($("#save-status"), "Saved. New runs use this profile.", "ok");
  } catch (err) {
    const messages = err.status === 400 ? err.fieldErrors().map((e) => e.message) : [err.message];
    const counts = showErrors(messages, "save");
    const first = Object.keys(counts)[0];
    if (first && tab !== "yaml" && !$(`#${first}`).contains(document.activeElement)) {
      const name = first.replace("panel-", "");
      if (name !== tab) selectTab(name);
      showErrors(messages, "save");
    }
    setStatus($("#save-status"), err.status === 400 ? "Not saved: kube-scheduler rejected the profile (see the messages next to the fields)." : `Not saved: ${err.message}`, "error");
  }
});

$("#revert").addEventListener("click", () => {
  config = clone(saved);
  index = 0;
  yamlError = "";
  showErrors([], "save");
  renderProfileSelect();
  changed({ structure: true });
  setStatus($("#save-status"), "Changes discarded.");
});

(async () => {
  try {
    const [profile, plugins, cluster] = await Promise.all([
      api.get(urls.profile(clusterId)), api.get(urls.plugins), api.get(urls.cluster(clusterId))]);
    catalog = Array.isArray(plugins) ? plugins : plugins.results || [];
    byName = Object.fromEntries(catalog.map((p) => [p.name, p]));
    editor = createEditor($("#yaml"), {
      label: "KubeSchedulerConfiguration as YAML", hints: configHints(Object.keys(byName)),
      onChange: () => { if (editor.hasFocus) parseYaml(); },
    });
    config = profile.config && Object.keys(profile.config).length ? profile.config : blankConfig();
    saved = tidy(clone(config));
    writable = cluster.writable !== false;
    if (!writable) {
      $("#save").disabled = true;
      setStatus($("#save-status"), `Read-only: this cluster is shared by ${cluster.owner}. Clone it to change its profile.`);
    }
    renderProfileSelect();
    check = await api.post(urls.profileCheck, { config });
    root.dataset.ready = "true";
    selectTab(tab);
  } catch (err) {
    setStatus($("#save-status"), err.message, "error");
  }
})();
