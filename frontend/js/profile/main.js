// The profile editor: plugins per extension point (add, remove, reorder, enable/disable the
// defaults), Score weights, typed plugin args, percentageOfNodesToScore, extenders, and a
// YAML tab kept in sync both ways. Every change is checked by the engine's validation
// (/api/profiles/check/); saving shows the API's kube-scheduler messages next to their fields.
// This module is the frame: tabs, the profile picker, save and revert, loading; one module per
// tab draws it (plugins-panel, args-panel, general-panel, yaml-panel) from the state (state.js).
import { api } from "../api.js";
import { blankConfig, clone, tidy } from "../config-model.js";
import { configHints } from "../schema-hints.js";
import { urls } from "../urls.js";
import { $, el, setStatus } from "../util.js";
import { createEditor } from "../../vendor/codemirror/editor.js";
import { renderArgs } from "./args-panel.js";
import { changed, recheck, showErrors, updateEffective } from "./check.js";
import { renderGeneral } from "./general-panel.js";
import { TABS, nextTab } from "./model.js";
import { renderPlugins } from "./plugins-panel.js";
import { redraw, root, s } from "./state.js";
import { parseYaml, showYaml } from "./yaml-panel.js";

function renderProfileSelect() {
  const names = (s.config.profiles && s.config.profiles.length ? s.config.profiles : [{ schedulerName: "default-scheduler" }])
    .map((p, i) => p.schedulerName || `profile ${i + 1}`);
  $("#profile-select").replaceChildren(...names.map((n, i) => el("option", { value: String(i), selected: i === s.index }, n)));
}

function renderTab() {
  if (s.tab === "plugins") renderPlugins();
  else if (s.tab === "args") renderArgs();
  else if (s.tab === "general") renderGeneral();
  else showYaml();
  updateEffective();
  if (s.check && !s.check.ok) showErrors(s.check.errors, "check");
}

function selectTab(name) {
  if (s.tab === "yaml" && name !== "yaml" && s.yamlError) {
    setStatus($("#yaml-status"), `Fix the YAML first: ${s.yamlError}`, "error");
    return;
  }
  s.tab = name;
  for (const t of TABS) {
    $(`#tab-${t}`).setAttribute("aria-selected", String(t === name));
    $(`#tab-${t}`).tabIndex = t === name ? 0 : -1;
    $(`#panel-${t}`).hidden = t !== name;
  }
  // A tab picked before the profile has loaded is drawn once it has (the loader selects it).
  if (s.config) renderTab();
}

redraw.tab = renderTab;
redraw.profileSelect = renderProfileSelect;

for (const t of TABS) $(`#tab-${t}`).addEventListener("click", () => selectTab(t));
$(".tabs").addEventListener("keydown", (e) => {
  if (e.key !== "ArrowRight" && e.key !== "ArrowLeft") return;
  const next = nextTab(s.tab, e.key);
  selectTab(next);
  $(`#tab-${next}`).focus();
});
$("#profile-select").addEventListener("change", (e) => {
  s.index = Number(e.target.value);
  renderTab();
  recheck();
});
// The check (and the effective plugins it shows) follows the chosen kube-scheduler release.
$("#release-select").addEventListener("change", () => recheck());
$("#gates-input").addEventListener("input", () => recheck());

$("#save").addEventListener("click", async () => {
  if (s.yamlError) {
    setStatus($("#save-status"), `Fix the YAML first: ${s.yamlError}`, "error");
    return;
  }
  setStatus($("#save-status"), "Saving…", "busy");
  try {
    const result = await api.put(urls.profile(s.clusterId), { config: tidy(clone(s.config)) });
    s.saved = tidy(clone(result.config));
    showErrors([], "save");
    setStatus($("#save-status"), "Saved. New runs use this profile.", "ok");
  } catch (err) {
    const messages = err.status === 400 ? err.fieldErrors().map((e) => e.message) : [err.message];
    const counts = showErrors(messages, "save");
    const first = Object.keys(counts)[0];
    if (first && s.tab !== "yaml" && !$(`#${first}`).contains(document.activeElement)) {
      const name = first.replace("panel-", "");
      if (name !== s.tab) selectTab(name);
      showErrors(messages, "save");
    }
    setStatus($("#save-status"), err.status === 400 ? "Not saved: kube-scheduler rejected the profile (see the messages next to the fields)." : `Not saved: ${err.message}`, "error");
  }
});

$("#revert").addEventListener("click", () => {
  s.config = clone(s.saved);
  s.index = 0;
  s.yamlError = "";
  showErrors([], "save");
  renderProfileSelect();
  changed({ structure: true });
  setStatus($("#save-status"), "Changes discarded.");
});

(async () => {
  try {
    const [profile, plugins, cluster] = await Promise.all([
      api.get(urls.profile(s.clusterId)), api.get(urls.plugins), api.get(urls.cluster(s.clusterId))]);
    s.catalog = Array.isArray(plugins) ? plugins : plugins.results || [];
    s.byName = Object.fromEntries(s.catalog.map((p) => [p.name, p]));
    s.editor = createEditor($("#yaml"), {
      label: "KubeSchedulerConfiguration as YAML", hints: configHints(Object.keys(s.byName)),
      onChange: () => { if (s.editor.hasFocus) parseYaml(); },
    });
    s.config = profile.config && Object.keys(profile.config).length ? profile.config : blankConfig();
    s.saved = tidy(clone(s.config));
    s.writable = cluster.writable !== false;
    if (!s.writable) {
      $("#save").disabled = true;
      setStatus($("#save-status"), `Read-only: this cluster is shared by ${cluster.owner}. Clone it to change its profile.`);
    }
    renderProfileSelect();
    s.check = await api.post(urls.profileCheck, { config: s.config });
    root.dataset.ready = "true";
    selectTab(s.tab);
  } catch (err) {
    setStatus($("#save-status"), err.message, "error");
  }
})();
