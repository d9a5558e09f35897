// What the lesson views show of a node and a pod, as plain data: a node's labels that matter
// (its zone, custom labels; not the ones every node has), taints, cordon and local volumes;
// a pod's requests and scheduling constraints as YAML-like text, folded in a <details>. The
// run view's node cards render the tags as markup, the workshop pages as elements.

import { el } from "./util.js";

export const ZONE = "topology.kubernetes.io/zone";
// Labels every node has, which say nothing about the lesson.
const BORING = ["kubernetes.io/hostname", "kubernetes.io/os", "kubernetes.io/arch", "beta.kubernetes.io/"];
const POD_PARTS = ["requests", "nodeSelector", "affinity", "tolerations", "topologySpreadConstraints", "volumes"];

/** [{cls, title, text}] for a node ({labels, taints, unschedulable, volumes}); the zone first. */
export function nodeTags(node) {
  const tags = [];
  const labels = Object.entries(node.labels || {}).filter(([k]) => !BORING.some((b) => k.startsWith(b)));
  labels.sort(([a], [b]) => (b === ZONE) - (a === ZONE));
  for (const [k, v] of labels) {
    tags.push(k === ZONE ? { cls: "zone", title: `${k}=${v}`, text: `zone ${v}` } : { cls: "", title: `label ${k}=${v}`, text: `${k}=${v}` });
  }
  for (const t of node.taints || []) {
    const text = `${t.key}${t.value ? `=${t.value}` : ""}:${t.effect}`;
    tags.push({ cls: "taint", title: `taint ${text}`, text });
  }
  if (node.unschedulable) tags.push({ cls: "cordon", title: "spec.unschedulable", text: "cordoned" });
  for (const v of node.volumes || []) tags.push({ cls: "volume", title: `local volume ${v}`, text: `pv ${v}` });
  return tags;
}

export function yamlish(value, indent = "") {
  if (Array.isArray(value)) {
    return value.map((v) => `${indent}- ${yamlish(v, indent + "  ").trimStart()}`).join("\n");
  }
  if (value && typeof value === "object") {
    return Object.entries(value).map(([k, v]) => (v && typeof v === "object"
      ? `${indent}${k}:\n${yamlish(v, indent + "  ")}` : `${indent}${k}: ${v}`)).join("\n");
  }
  return `${indent}${value}`;
}

/** A pod's requests and constraints as text, "no constraints" when it sets none. */
export function podText(pod) {
  const shown = POD_PARTS.filter((k) => pod[k] && Object.keys(pod[k]).length);
  return shown.map((k) => `${k}:\n${yamlish(pod[k], "  ")}`).join("\n") || "no constraints";
}

/** A pod as a <details>: its name (and node) folded, its constraints when expanded. */
export function podEntry(pod, node) {
  return el("details", { dataset: { pod: pod.name } },
    el("summary", pod.name, node ? ` → ${node}` : "", pod.priority ? ` (priority ${pod.priority})` : ""),
    el("pre", podText(pod)));
}
