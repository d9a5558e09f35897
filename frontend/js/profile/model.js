// The profile editor's pure parts: where a kube-scheduler message points, the args forms'
// tables and walks, what a check says each extension point runs. Plain data in and out,
// tested by node --test (frontend/js/tests/profile-model.test.js).
import { clone, tidy } from "../config-model.js";

export const TABS = ["plugins", "args", "general", "yaml"];

/**
 * "profiles[0].plugins.score.enabled[1].weight: Invalid value: ..." -> its field path. Go's
 * "cannot unmarshal" names the path without list indexes: `config` (the document checked)
 * gives them back.
 */
export function messagePath(message, config) {
  const typed = unmarshalPath(message, config);
  if (typed !== null) return typed;
  const strict = strictDecodingPath(message);
  if (strict !== null) return strict;
  const m = /^([A-Za-z0-9_.[\]*-]+?)(?:: )/.exec(message);
  return m ? m[1] : "";
}

/**
 * The field kube-scheduler's strict decoder names first: `unknown field "profiles[0].plugin"`
 * (a path from the top), or an entry's `decoding .profiles[0].pluginConfig[1]: ... unknown
 * field "bogus"` (a path inside that entry's args); an apiVersion it does not serve points at
 * apiVersion. null when the message is none of these.
 */
function strictDecodingPath(message) {
  if (/is registered for version/.test(message)) return "apiVersion";
  const first = /unknown field "([^"]+)"|decoding \.(profiles\[\d+\]\.pluginConfig\[\d+\])/.exec(message);
  if (!first) return null;
  if (first[1] !== undefined) return first[1];
  const rest = message.slice(first.index + first[0].length);
  const inner = /^[^,]*?unknown field "([^"]+)"/.exec(rest);
  return inner ? `${first[2]}.args.${inner[1]}` : `${first[2]}.args`;
}

function kindOf(value) {
  if (Array.isArray(value)) return "array";
  return value === null ? "null" : { boolean: "bool" }[typeof value] || typeof value;
}

/**
 * The indexed path of the first value along `keys` under `value` that `wrong` picks (the
 * decoder reports the first in document order), or null.
 */
function firstWrong(value, keys, wrong, path) {
  if (!keys.length) return wrong(value) ? path : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = firstWrong(value[i], keys, wrong, `${path}[${i}]`);
      if (found !== null) return found;
    }
    return null;
  }
  if (!value || typeof value !== "object" || !(keys[0] in value)) return null;
  return firstWrong(value[keys[0]], keys.slice(1), wrong, path ? `${path}.${keys[0]}` : keys[0]);
}

/**
 * "json: cannot unmarshal string into Go struct field Plugin.profiles.plugins.score.enabled.weight
 * of type int32" (after "decoding .profiles[0].pluginConfig[1]: " for args) -> the indexed path
 * of that value in `config`: the first one along the path of the kind it names ("number 50.5":
 * that number). "" when config cannot tell; null when the message is not one.
 */
function unmarshalPath(message, config) {
  const m = /cannot unmarshal (\w+)(?: (\S+))? into Go (?:struct field \w+\.([\w.]+)|value) of type/.exec(message);
  if (!m) return null;
  const wrong = (v) => kindOf(v) === m[1] && (m[2] === undefined || String(v) === m[2]);
  const entry = /^decoding \.(profiles\[(\d+)\]\.pluginConfig\[(\d+)\])/.exec(message);
  if (entry) {
    const args = config?.profiles?.[entry[2]]?.pluginConfig?.[entry[3]]?.args;
    const found = m[3] && args !== undefined ? firstWrong(args, m[3].split("."), wrong, "") : null;
    return found === null ? `${entry[1]}.args` : `${entry[1]}.args.${found}`;
  }
  return (m[3] && config ? firstWrong(config, m[3].split("."), wrong, "") : null) ?? "";
}

export function setDeep(obj, key, value) {
  const parts = key.split(".");
  let o = obj;
  for (const k of parts.slice(0, -1)) o = o[k] = o[k] || {};
  if (value === undefined) delete o[parts[parts.length - 1]];
  else o[parts[parts.length - 1]] = value;
}

export function getDeep(obj, key) {
  return key.split(".").reduce((o, k) => (o && typeof o === "object" ? o[k] : undefined), obj);
}

/** Whether the working copy differs from the profile as stored. */
export function unsaved(config, saved) {
  return JSON.stringify(tidy(clone(config))) !== JSON.stringify(saved);
}

/** What one profile of a check runs at `point`, as the plugins tab says it: "runs: A → B",
 *  with Score weights at score; "" for multiPoint; a note when the check failed (p null). */
export function effectiveText(p, point) {
  if (!p) return "runs: (fix the errors to see the pipeline)";
  if (point === "multiPoint") return "";
  const names = p.points[point] || [];
  return `runs: ${names.length ? names.map((n) => (point === "score" ? `${n}×${p.weights[n] ?? 1}` : n)).join(" → ") : "(nothing)"}`;
}

/** A tab's button text with its count of errors ("Args (2 errors)"), or without any. */
export function tabLabel(text, errors) {
  const bare = text.replace(/ \(\d+ errors?\)$/, "");
  return errors ? `${bare} (${errors} error${errors > 1 ? "s" : ""})` : bare;
}

/** The tab after (ArrowRight) or before (ArrowLeft) `tab`, round the ends. */
export function nextTab(tab, key) {
  return TABS[(TABS.indexOf(tab) + (key === "ArrowRight" ? 1 : TABS.length - 1)) % TABS.length];
}

// The args forms follow each plugin's default arguments from the plugins API: a number, a
// switch, a choice or text per field, rows for resource lists, nested fields in groups. What
// the defaults cannot say (the allowed values of an enum, ranges, a hint) is in the tables
// below, by "Plugin.field.path".
export const ARG_CHOICES = {
  "NodeResourcesFit.scoringStrategy.type": ["LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"],
  "PodTopologySpread.defaultingType": ["System", "List"],
};

export const ARG_LABELS = {
  "NodeResourcesFit.scoringStrategy.type": "NodeResourcesFit scoring strategy",
};

export const ARG_RANGES = {
  "InterPodAffinity.hardPodAffinityWeight": [0, 100],
  "DefaultPreemption.minCandidateNodesPercentage": [0, 100],
  "Coscheduling.podGroupRejectPercentage": [0, 100],
};

export const ARG_HINTS = {
  "NodeResourcesFit.scoringStrategy.type": "LeastAllocated spreads, MostAllocated bin-packs.",
  "InterPodAffinity.hardPodAffinityWeight": "0–100: the score an existing pod's required affinity gives to nodes it matches.",
  "PodTopologySpread.defaultingType": "System: kube-scheduler's built-in default constraints. List: the defaultConstraints below (edit them in the YAML tab).",
  "DefaultPreemption.minCandidateNodesPercentage": "0–100",
  "DefaultPreemption.minCandidateNodesAbsolute": "≥ 0",
  "NodeResourcesBalancedAllocation.resources": "Resources whose usage fractions should be balanced (each weight must be 1).",
};

export const ARG_RESOURCE_WEIGHTS = { "NodeResourcesBalancedAllocation.resources": { weightMin: 1, weightMax: 1 } };
// Changing a choice may bring fields with it, or make some meaningless.

export const ARG_ON_CHOICE = {
  "NodeResourcesFit.scoringStrategy.type": (args, value) => {
    if (value === "RequestedToCapacityRatio" && !args.scoringStrategy.requestedToCapacityRatio) {
      args.scoringStrategy.requestedToCapacityRatio = { shape: [{ utilization: 0, score: 0 }, { utilization: 100, score: 10 }] };
    }
  },
  "PodTopologySpread.defaultingType": (args, value) => {
    if (value === "System") delete args.defaultConstraints;
  },
};

export const isResourceList = (v) => Array.isArray(v) && v.every((r) => r && typeof r === "object" && "name" in r && "weight" in r);

export const isFlatObjectList = (v) => Array.isArray(v) && v.length > 0 && v.every((r) => r && typeof r === "object" && Object.values(r).every((x) => typeof x === "number"));

export const VERBS = ["filterVerb", "prioritizeVerb", "preemptVerb", "bindVerb"];
