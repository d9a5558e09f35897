// The args tab: a form per plugin that takes arguments, following its default arguments from
// the plugins API, with the choices, ranges and hints of model.js.
import { argsFor, clone, pluginConfigIndex } from "../config-model.js";
import { $, el } from "../util.js";
import { changed } from "./check.js";
import { field } from "./fields.js";
import {
  ARG_CHOICES, ARG_HINTS, ARG_LABELS, ARG_ON_CHOICE, ARG_RANGES, ARG_RESOURCE_WEIGHTS, getDeep,
  isFlatObjectList, isResourceList, setDeep,
} from "./model.js";
import { path, prof, s } from "./state.js";

function currentArgs(name) {
  const profile = prof();
  const i = pluginConfigIndex(profile, name);
  if (i >= 0) return [profile.pluginConfig[i].args || {}, i];
  const defaulted = s.check && s.check.ok && s.check.profiles[s.index] && s.check.profiles[s.index].pluginConfig[name];
  return [clone(defaulted || (s.byName[name] && s.byName[name].default_args) || {}), (profile.pluginConfig || []).length];
}

function argsPath(i, rest) {
  return path(`pluginConfig[${i}].args.${rest}`);
}

function numberInput(name, key, p, value, { min, max, label }) {
  const input = el("input", {
    type: "number", step: "1", value: value ?? "", "data-path": p, "aria-label": `${name} ${label}`,
    min: min ?? null, max: max ?? null, disabled: !s.writable,
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

function resourceRows(name, listKey, resources, i, { weightMin = 1, weightMax = 100 } = {}) {
  const rows = (resources || []).map((r, j) => el("div.row", { "data-path": argsPath(i, `${listKey}[${j}]`) },
    el("input", {
      value: r.name || "", "aria-label": `${name} resource ${j + 1} name`, disabled: !s.writable,
      "data-path": argsPath(i, `${listKey}[${j}].name`),
      onchange: (e) => { editList(name, listKey, (list) => { list[j].name = e.target.value.trim(); }); },
    }),
    el("input", {
      type: "number", step: "1", min: weightMin, max: weightMax, value: r.weight ?? "", disabled: !s.writable,
      "aria-label": `${name} resource ${j + 1} weight`, "data-path": argsPath(i, `${listKey}[${j}].weight`),
      onchange: (e) => { editList(name, listKey, (list) => { list[j].weight = e.target.value === "" ? 0 : Number(e.target.value); }); },
    }),
    el("button.icon", {
      type: "button", disabled: !s.writable, "aria-label": `Remove ${name} resource ${r.name || j + 1}`,
      onclick: () => editList(name, listKey, (list) => list.splice(j, 1), true),
    }, "✕")));
  return el("div.res-rows", el("div.small.muted", "resource name · weight"), rows,
    el("div.row", el("button.small", {
      type: "button", disabled: !s.writable, "aria-label": `Add a resource to ${name}`,
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
      type: "button", disabled: !s.writable, "aria-label": `Reset ${name} args to defaults`,
      onclick: () => { prof().pluginConfig.splice(i, 1); changed({ structure: true }); },
    }, "Use defaults") : el("span.badge", "defaults")),
    body);
}

function choiceInput(name, key, value, i) {
  const id = `${name}.${key}`;
  return el("select", {
    "aria-label": ARG_LABELS[id] || `${name} ${key}`, "data-path": argsPath(i, key), disabled: !s.writable,
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
      disabled: !s.writable, onchange: (e) => commit(e.target.checked),
    });
  }
  if (Array.isArray(fallback)) {
    return el("input", {
      value: (value || []).join(", "), "aria-label": `${name} ${key}`, "data-path": argsPath(i, key), disabled: !s.writable,
      placeholder: "comma-separated", onchange: (e) => commit(e.target.value.split(",").map((x) => x.trim()).filter(Boolean)),
    });
  }
  return el("input", {
    value: value ?? "", "aria-label": `${name} ${key}`, "data-path": argsPath(i, key), disabled: !s.writable,
    onchange: (e) => commit(e.target.value.trim() === "" ? undefined : e.target.value.trim()),
  });
}

/** Rows of small objects of numbers (a RequestedToCapacityRatio shape). */
function objectRows(name, key, list, i) {
  return el("div", el("div.small.muted", `${key}: ${Object.keys(list[0] || {}).join(" · ")}`),
    list.map((pt, j) => el("div.row", Object.keys(pt).map((k) => el("input", {
      type: "number", step: "1", value: pt[k] ?? "", "aria-label": `${name} ${key} ${j + 1} ${k}`, disabled: !s.writable,
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

export function renderArgs() {
  const cards = Object.values(s.byName).filter((p) => p.default_args && Object.keys(p.default_args).length).map((p) => {
    const [args, i] = currentArgs(p.name);
    return argsCard(p.name, el("div.stack", argFields(p.name, args, p.default_args, i)));
  });
  $("#args").replaceChildren(...cards);
}
