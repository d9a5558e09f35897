// The plugins tab: per extension point, the default plugins (on or off), the ones enabled
// there in order, Score weights, and what the point runs after the check.
import { POINTS, POINT_LABELS, pluginSet } from "../config-model.js";
import { $, el } from "../util.js";
import { changed } from "./check.js";
import { path, prof, s } from "./state.js";

function implementing(point) {
  return s.catalog.filter((p) => point === "multiPoint" || p.extension_points.includes(point));
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
  const defaults = s.catalog.filter((p) => p.enabled_by_default && (point === "multiPoint" || p.extension_points.includes(point)));
  const scoreSet = (profile.plugins && profile.plugins.score && profile.plugins.score.enabled) || [];
  const label = POINT_LABELS[point];

  const defaultRows = defaults.map((p) => {
    const off = star || disabled.includes(p.name);
    const override = point === "score" ? scoreSet.find((e) => e.name === p.name) : null;
    const box = el("input", {
      type: "checkbox", checked: !off, disabled: star || !s.writable,
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
        }, { "data-default-of": p.name, disabled: off || !s.writable });
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
      el("span.pname", { "data-path": path(`plugins.${point}.enabled[${i}].name`) }, e.name, s.byName[e.name] ? "" : " (unknown)"),
      point === "score" || point === "multiPoint"
        ? weightInput(e.name, e.weight, path(`plugins.${point}.enabled[${i}].weight`), (w) => {
          const s = pluginSet(prof(), point);
          if (w === undefined) delete s.enabled[i].weight;
          else s.enabled[i].weight = w;
          changed();
        }, { disabled: !s.writable })
        : null,
      el("button.icon", { type: "button", disabled: i === 0 || !s.writable, "aria-label": `Move ${e.name} up at ${label}`, onclick: () => move(-1) }, "↑"),
      el("button.icon", { type: "button", disabled: i === enabled.length - 1 || !s.writable, "aria-label": `Move ${e.name} down at ${label}`, onclick: () => move(1) }, "↓"),
      el("button.icon", {
        type: "button", disabled: !s.writable, "aria-label": `Remove ${e.name} from ${label}`,
        onclick: () => { pluginSet(prof(), point).enabled.splice(i, 1); changed({ structure: true }); },
      }, "✕"));
  });

  const choices = implementing(point).filter((p) => !enabled.some((e) => e.name === p.name));
  const select = el("select", { "aria-label": `Plugin to add at ${label}`, disabled: !s.writable },
    choices.map((p) => el("option", { value: p.name }, p.name)));
  const add = el("button.small", {
    type: "button", disabled: !choices.length || !s.writable, "aria-label": `Add plugin at ${label}`,
    onclick: () => {
      const entry = { name: select.value };
      if (point === "score" && s.byName[select.value]) entry.weight = s.byName[select.value].default_weight ?? 1;
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
        type: "checkbox", checked: star, disabled: !s.writable, "aria-label": `Disable all default plugins at ${label}`,
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

export function renderPlugins() {
  $("#points").replaceChildren(...["multiPoint", ...POINTS].map(pointSection));
}
