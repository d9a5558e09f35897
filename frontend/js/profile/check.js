// Checking the working copy: the engine's validation (/api/profiles/check/) after every
// change, its messages (and the API's, on save) next to their fields, what each point runs.
import { api } from "../api.js";
import { clone, pluginConfigIndex, tidy } from "../config-model.js";
import { pathToLine } from "../schema-hints.js";
import { urls } from "../urls.js";
import { $, $$, debounce, el, setStatus } from "../util.js";
import { TABS, effectiveText, messagePath, tabLabel, unsaved } from "./model.js";
import { prof, redraw, root, s } from "./state.js";

export const recheck = debounce(async () => {
  try {
    s.check = await api.post(urls.profileCheck, {
      config: tidy(clone(s.config)), release: $("#release-select").value, feature_gates: $("#gates-input").value.trim() });
  } catch (err) {
    s.check = { ok: false, errors: [err.message] };
  }
  showErrors(s.check.ok ? [] : s.check.errors, "check");
  updateEffective();
}, 250);

export function changed({ structure = false } = {}) {
  showErrors([], "save"); // the API's verdict was about the profile before this change
  setStatus($("#save-status"), unsaved(s.config, s.saved) ? "Unsaved changes." : "", "busy");
  if (structure) redraw.tab();
  recheck();
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
export function showErrors(messages, source) {
  for (const e of $$(`.field-error[data-source="${source}"]`, root)) e.remove();
  for (const f of $$(`[data-invalid-source="${source}"]`, root)) {
    f.classList.remove("invalid");
    f.removeAttribute("aria-invalid");
    delete f.dataset.invalidSource;
  }
  const counts = {};
  const general = [];
  for (const message of messages) {
    const field = fieldFor(messagePath(message, s.config), message);
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
    button.textContent = tabLabel(button.textContent, $$(".field-error", $(`#panel-${t}`)).length);
  }
  // The same messages as lint markers on the YAML lines their field paths point at.
  if (s.editor && !s.yamlError) {
    s.editor.setProblems(messages.map((m) => ({ line: pathToLine(s.editor.value, messagePath(m, s.config)), message: m })));
  }
  if (source === "save") {
    $("#errors").textContent = messages.length ? `kube-scheduler rejected the profile:\n${messages.join("\n")}` : "";
  } else if (!$("#errors").textContent.startsWith("kube-scheduler")) {
    $("#errors").textContent = general.join("\n");
  }
  return counts;
}

export function updateEffective() {
  const p = s.check && s.check.ok ? s.check.profiles[Math.min(s.index, s.check.profiles.length - 1)] : null;
  for (const box of $$(".effective[data-point]", root)) box.textContent = effectiveText(p, box.dataset.point);
  for (const input of $$("input.weight[data-default-of]", root)) {
    if (p && document.activeElement !== input && p.weights[input.dataset.defaultOf] !== undefined) {
      input.value = p.weights[input.dataset.defaultOf];
    }
  }
}
