// What the code editors know of the YAML they edit: the keys of a KubeSchedulerConfiguration
// and of Node and Pod manifests, the values a few keys take, and where a field path from the
// server's validation (profiles[0].plugins.score.enabled[1].weight) sits in the text.
import { POINTS } from "./config-model.js";

const CONFIG_KEYS = {
  configuration: ["apiVersion", "kind", "profiles", "extenders", "percentageOfNodesToScore",
    "parallelism", "podInitialBackoffSeconds", "podMaxBackoffSeconds", "delayCacheUntilActive"],
  profile: ["schedulerName", "percentageOfNodesToScore", "plugins", "pluginConfig"],
  plugins: ["multiPoint", ...POINTS, "enabled", "disabled", "name", "weight", "args"],
  extender: ["urlPrefix", "filterVerb", "preemptVerb", "prioritizeVerb", "bindVerb", "weight",
    "enableHTTPS", "httpTimeout", "nodeCacheCapable", "managedResources", "ignorable"],
  args: ["scoringStrategy", "type", "resources", "requestedToCapacityRatio", "shape",
    "utilization", "score", "hardPodAffinityWeight", "defaultConstraints", "defaultingType",
    "addedAffinity", "bindTimeoutSeconds", "minCandidateNodesPercentage", "minCandidateNodesAbsolute"],
};

const OBJECT_KEYS = {
  object: ["apiVersion", "kind", "metadata", "spec", "status", "name", "namespace", "labels",
    "annotations"],
  node: ["taints", "key", "value", "effect", "unschedulable", "allocatable", "capacity", "images",
    "names", "sizeBytes", "cpu", "memory", "pods", "ephemeral-storage"],
  pod: ["containers", "initContainers", "image", "resources", "requests", "limits", "nodeName",
    "nodeSelector", "affinity", "nodeAffinity", "podAffinity", "podAntiAffinity",
    "requiredDuringSchedulingIgnoredDuringExecution", "preferredDuringSchedulingIgnoredDuringExecution",
    "nodeSelectorTerms", "matchExpressions", "operator", "values", "labelSelector", "topologyKey",
    "tolerations", "tolerationSeconds", "priority", "priorityClassName", "schedulerName",
    "topologySpreadConstraints", "maxSkew", "whenUnsatisfiable", "schedulingGates",
    "terminationGracePeriodSeconds", "overhead", "volumes", "persistentVolumeClaim", "claimName"],
};

const KINDS = ["Node", "Pod", "Namespace", "PriorityClass", "PodDisruptionBudget", "PersistentVolume",
  "PersistentVolumeClaim", "StorageClass", "Deployment", "ReplicaSet", "KubeSchedulerConfiguration"];

const VALUE_HINTS = {
  apiVersion: ["v1", "kubescheduler.config.k8s.io/v1", "apps/v1", "policy/v1", "storage.k8s.io/v1",
    "scheduling.k8s.io/v1"],
  kind: KINDS,
  type: ["LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"],
  effect: ["NoSchedule", "PreferNoSchedule", "NoExecute"],
  operator: ["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Equal"],
  whenUnsatisfiable: ["DoNotSchedule", "ScheduleAnyway"],
  defaultingType: ["System", "List"],
};

/** (textBeforeCursor, word) -> completions: a key at a line's start, a value after "key: ". */
function hintsFrom(keys, values) {
  return (before, word) => {
    const value = /^\s*(?:-\s+)?([\w-]+):\s+\S*$/.exec(before);
    if (value) {
      return (values[value[1]] || []).filter((v) => v.startsWith(word))
        .map((v) => ({ label: v, type: "enum", detail: value[1] }));
    }
    if (!/^\s*(?:-\s+)?[\w-]*$/.test(before)) return [];
    return keys.filter((k) => k.startsWith(word))
      .map((k) => ({ label: k, type: "property", apply: `${k}: ` }));
  };
}

/** Hints for the profile editor; plugin names (from /api/plugins/) complete after "name: ". */
export function configHints(pluginNames) {
  const keys = [...new Set(Object.values(CONFIG_KEYS).flat())];
  return hintsFrom(keys, { ...VALUE_HINTS, name: pluginNames });
}

/** Hints for a cluster's manifests: Node and Pod fields and their enumerations. */
export function objectHints() {
  return hintsFrom([...new Set(Object.values(OBJECT_KEYS).flat())], VALUE_HINTS);
}

/**
 * The 1-based line of `path` (as kube-scheduler's validation names fields) in YAML `text`,
 * or the line of the deepest part of it found; 1 when nothing matches. Each key is looked for
 * below the previous one; [n] skips to the n-th item of the list that follows.
 */
export function pathToLine(text, path) {
  const lines = text.split("\n");
  const tokens = [...path.matchAll(/\[(\d+)\]|([^.[\]]+)/g)].map((m) => (m[1] !== undefined ? Number(m[1]) : m[2]));
  let at = 0;
  let best = 0;
  for (const token of tokens) {
    const next = typeof token === "number" ? listItem(lines, at, token) : keyLine(lines, at, token);
    if (next < 0) break;
    best = at = next;
  }
  return best + 1;
}

function keyLine(lines, from, key) {
  const pattern = new RegExp(`^\\s*(?:-\\s+)?["']?${key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}["']?\\s*:`);
  for (let i = from; i < lines.length; i++) if (pattern.test(lines[i])) return i;
  return -1;
}

function listItem(lines, from, n) {
  let indent = -1;
  let seen = -1;
  for (let i = from + 1; i < lines.length; i++) {
    const m = /^(\s*)-(\s|$)/.exec(lines[i]);
    if (!m) continue;
    if (indent < 0) indent = m[1].length;
    if (m[1].length < indent) return -1;
    if (m[1].length === indent && ++seen === n) return i;
  }
  return -1;
}

/**
 * The line a loader message ("pasted.yaml: document 2: Pod default/web: field
 * spec.containers[0].resources.requests.cpu: ...") points at in multi-document `text`.
 */
export function messageLine(text, message) {
  // The YAML decoder's repeated key names its line in the whole text.
  const repeated = /: line (\d+): key .* already set in map/.exec(message);
  if (repeated) return Number(repeated[1]);
  const doc = /document (\d+)/.exec(message);
  const field = /unknown field "([^"]+)"/.exec(message) || /field ([^\s:]+)/.exec(message);
  const lines = text.split("\n");
  const starts = [0];
  lines.forEach((line, i) => { if (/^---/.test(line) && i > 0) starts.push(i + 1); });
  const start = doc ? starts[Math.min(Number(doc[1]), starts.length) - 1] : 0;
  if (!field) return start + 1;
  return start + pathToLine(lines.slice(start).join("\n"), field[1]);
}
