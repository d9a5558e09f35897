// Editing a KubeSchedulerConfiguration object in place, as the profile editor and the compare
// view do: plugin sets per extension point, score weights, plugin args.

export const API_VERSION = "kubescheduler.config.k8s.io/v1";
export const POINTS = ["queueSort", "preEnqueue", "preFilter", "filter", "postFilter", "preScore",
  "score", "reserve", "permit", "preBind", "bind", "postBind"];
export const POINT_LABELS = {
  multiPoint: "MultiPoint", queueSort: "QueueSort", preEnqueue: "PreEnqueue", preFilter: "PreFilter",
  filter: "Filter", postFilter: "PostFilter", preScore: "PreScore", score: "Score", reserve: "Reserve",
  permit: "Permit", preBind: "PreBind", bind: "Bind", postBind: "PostBind",
  // Points a cycle's trace shows but a configuration cannot name.
  normalizeScore: "NormalizeScore", unreserve: "Unreserve",
};

export function blankConfig() {
  return { apiVersion: API_VERSION, kind: "KubeSchedulerConfiguration" };
}

export function clone(value) {
  return JSON.parse(JSON.stringify(value));
}

/** profiles[i], created (with the default scheduler name) when the config has none. */
export function profileAt(config, i = 0) {
  if (!Array.isArray(config.profiles) || !config.profiles.length) {
    config.profiles = [{ schedulerName: "default-scheduler" }];
  }
  return config.profiles[Math.min(i, config.profiles.length - 1)];
}

export function pluginSet(profile, point) {
  profile.plugins = profile.plugins || {};
  const set = profile.plugins[point] || (profile.plugins[point] = {});
  set.enabled = set.enabled || [];
  set.disabled = set.disabled || [];
  return set;
}

/** Drops empty lists and sets so the YAML stays as short as a hand-written one. */
export function tidy(config) {
  for (const profile of config.profiles || []) {
    if (profile.plugins) {
      for (const [point, set] of Object.entries(profile.plugins)) {
        if (!set) continue;
        if (Array.isArray(set.enabled) && !set.enabled.length) delete set.enabled;
        if (Array.isArray(set.disabled) && !set.disabled.length) delete set.disabled;
        if (!Object.keys(set).length) delete profile.plugins[point];
      }
      if (!Object.keys(profile.plugins).length) delete profile.plugins;
    }
    if (Array.isArray(profile.pluginConfig) && !profile.pluginConfig.length) delete profile.pluginConfig;
  }
  if (Array.isArray(config.extenders) && !config.extenders.length) delete config.extenders;
  return config;
}

/** Sets a Score plugin's weight through plugins.score.enabled (kube-scheduler's way). */
export function setScoreWeight(profile, name, weight) {
  const set = pluginSet(profile, "score");
  const entry = set.enabled.find((p) => p.name === name);
  if (entry) entry.weight = weight;
  else set.enabled.push({ name, weight });
}

export function pluginConfigIndex(profile, name) {
  return (profile.pluginConfig || []).findIndex((pc) => pc && pc.name === name);
}

/** The plugin's pluginConfig args, created from `defaults` when the profile has none yet. */
export function argsFor(profile, name, defaults = {}) {
  profile.pluginConfig = profile.pluginConfig || [];
  let entry = profile.pluginConfig.find((pc) => pc && pc.name === name);
  if (!entry) {
    entry = { name, args: clone(defaults) };
    profile.pluginConfig.push(entry);
  }
  entry.args = entry.args || {};
  return entry.args;
}

/** The effective score weights of a profile from /api/profiles/check/ (name -> weight). */
export function effectiveWeights(check, i = 0) {
  return (check && check.ok && check.profiles[i]) ? check.profiles[i].weights : {};
}
