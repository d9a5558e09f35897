// The cluster page's node and pod forms: a few fields in, a manifest out (through the object
// endpoints), and back. Fields the form does not show stay as the manifest had them.
import { clone } from "./config-model.js";

/** "a=b, c=d" or one pair a line -> {a: "b", c: "d"}; a bad pair throws, naming it. */
export function parsePairs(text, what) {
  const out = {};
  for (const part of text.split(/[\n,]/).map((s) => s.trim()).filter(Boolean)) {
    const m = /^([^=\s]+)=(\S*)$/.exec(part);
    if (!m) throw new Error(`${what}: "${part}" is not key=value`);
    out[m[1]] = m[2];
  }
  return out;
}

export const formatPairs = (map) => Object.entries(map || {}).map(([k, v]) => `${k}=${v}`).join(", ");

const EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

/** "gpu=true:NoSchedule, dedicated:NoExecute" -> taints, as kubectl taint writes them. */
export function parseTaints(text) {
  return text.split(",").map((s) => s.trim()).filter(Boolean).map((part) => {
    const m = /^([^=:\s]+)(?:=([^:\s]*))?:(\w+)$/.exec(part);
    if (!m || !EFFECTS.includes(m[3])) {
      throw new Error(`taints: "${part}" is not key[=value]:Effect with Effect one of ${EFFECTS.join(", ")}`);
    }
    return m[2] ? { key: m[1], value: m[2], effect: m[3] } : { key: m[1], effect: m[3] };
  });
}

export const formatTaints = (taints) => (taints || []).map((t) => `${t.key}${t.value ? `=${t.value}` : ""}:${t.effect}`).join(", ");

/** The node form's fields from a manifest. */
export function nodeFields(manifest) {
  const meta = manifest.metadata || {}, spec = manifest.spec || {};
  const alloc = (manifest.status || {}).allocatable || {};
  return {
    name: meta.name || "", labels: formatPairs(meta.labels), taints: formatTaints(spec.taints),
    cpu: String(alloc.cpu ?? ""), memory: String(alloc.memory ?? ""), pods: String(alloc.pods ?? ""),
    unschedulable: Boolean(spec.unschedulable),
  };
}

/** `base` (the stored manifest, or {} for a new node) with the form's fields written in. */
export function nodeManifest(base, f) {
  const m = clone(base || {});
  m.apiVersion = m.apiVersion || "v1";
  m.kind = "Node";
  m.metadata = { ...(m.metadata || {}), name: f.name.trim(), labels: parsePairs(f.labels, "labels") };
  m.spec = { ...(m.spec || {}), taints: parseTaints(f.taints) };
  if (f.unschedulable) m.spec.unschedulable = true;
  else delete m.spec.unschedulable;
  const alloc = { ...((m.status || {}).allocatable || {}) };
  for (const key of ["cpu", "memory", "pods"]) {
    if (f[key].trim()) alloc[key] = f[key].trim();
    else delete alloc[key];
  }
  m.status = { ...(m.status || {}), allocatable: alloc, capacity: { ...((m.status || {}).capacity || {}), ...alloc } };
  return m;
}

const requestsOf = (m) => ((((m.spec || {}).containers || [])[0] || {}).resources || {}).requests || {};

/** The pod form's fields from a manifest (the first container's requests). */
export function podFields(manifest) {
  const meta = manifest.metadata || {}, spec = manifest.spec || {};
  const req = requestsOf(manifest);
  return {
    name: meta.name || "", namespace: meta.namespace || "default", labels: formatPairs(meta.labels),
    cpu: String(req.cpu ?? ""), memory: String(req.memory ?? ""),
    priority: spec.priority === undefined ? "" : String(spec.priority), nodeSelector: formatPairs(spec.nodeSelector),
  };
}

/** `base` with the pod form's fields written in; the first container carries the requests. */
export function podManifest(base, f) {
  const m = clone(base || {});
  m.apiVersion = m.apiVersion || "v1";
  m.kind = "Pod";
  m.metadata = { ...(m.metadata || {}), name: f.name.trim(), namespace: f.namespace.trim() || "default", labels: parsePairs(f.labels, "labels") };
  m.spec = { ...(m.spec || {}) };
  const containers = m.spec.containers && m.spec.containers.length ? m.spec.containers : [{ name: "main", image: "registry.k8s.io/pause:3.9" }];
  const first = { ...containers[0], resources: { ...(containers[0].resources || {}) } };
  const requests = { ...(first.resources.requests || {}) };
  for (const key of ["cpu", "memory"]) {
    if (f[key].trim()) requests[key] = f[key].trim();
    else delete requests[key];
  }
  first.resources.requests = requests;
  m.spec.containers = [first, ...containers.slice(1)];
  const selector = parsePairs(f.nodeSelector, "nodeSelector");
  if (Object.keys(selector).length) m.spec.nodeSelector = selector;
  else delete m.spec.nodeSelector;
  if (f.priority.trim() === "") delete m.spec.priority;
  else if (/^-?\d+$/.test(f.priority.trim())) m.spec.priority = Number(f.priority.trim());
  else throw new Error(`priority: "${f.priority}" is not a whole number`);
  return m;
}
