// Node cards (the labels that matter, taints, volumes) and pods (requests, affinities,
// tolerations, spread constraints, volumes when expanded) of a lesson or a sandbox.

import { clear, el } from "../util.js";

const ZONE = "topology.kubernetes.io/zone";

function nodeCard(node, pods) {
  const tags = [];
  for (const [k, v] of Object.entries(node.labels || {})) {
    tags.push(el(`span.tag${k === ZONE ? ".zone" : ""}`, { title: k },
      k === ZONE ? `zone ${v}` : `${k}=${v}`));
  }
  for (const t of node.taints || []) {
    tags.push(el("span.tag.taint", { title: "taint" },
      `${t.key}${t.value ? "=" + t.value : ""}:${t.effect}`));
  }
  if (node.unschedulable) tags.push(el("span.tag.cordon", "cordoned"));
  for (const v of node.volumes || []) tags.push(el("span.tag.volume", { title: "local volume" }, `pv ${v}`));
  return el("article.ws-node", { dataset: { node: node.name } },
    el("h4", node.name), el("div", tags),
    pods.length ? el("div.muted", `pods: ${pods.join(", ")}`) : null);
}

function yamlish(value, indent = "") {
  if (Array.isArray(value)) {
    return value.map((v) => `${indent}- ${yamlish(v, indent + "  ").trimStart()}`).join("\n");
  }
  if (value && typeof value === "object") {
    return Object.entries(value).map(([k, v]) => (v && typeof v === "object"
      ? `${indent}${k}:\n${yamlish(v, indent + "  ")}` : `${indent}${k}: ${v}`)).join("\n");
  }
  return `${indent}${value}`;
}

function podEntry(pod, node) {
  const parts = { requests: pod.requests, nodeSelector: pod.nodeSelector, affinity: pod.affinity,
                  tolerations: pod.tolerations,
                  topologySpreadConstraints: pod.topologySpreadConstraints,
                  volumes: pod.volumes };
  const shown = Object.entries(parts).filter(([, v]) => v && Object.keys(v).length);
  return el("details", { dataset: { pod: pod.name } },
    el("summary", pod.name, node ? ` → ${node}` : "", pod.priority ? ` (priority ${pod.priority})` : ""),
    el("pre", shown.map(([k, v]) => `${k}:\n${yamlish(v, "  ")}`).join("\n") || "no constraints"));
}

/** Draws `objects` ({nodes, pods}) into the two containers; `bindings` adds placements. */
export function drawObjects(objects, nodesBox, podsBox, bindings = {}) {
  const where = {};
  for (const p of objects.pods) where[p.name] = bindings[p.name] || p.node || null;
  const byNode = {};
  for (const [pod, node] of Object.entries(where)) if (node) (byNode[node] ||= []).push(pod);
  clear(nodesBox);
  nodesBox.append(...objects.nodes.map((n) => nodeCard(n, byNode[n.name] || [])));
  if (objects.nodeCount > objects.nodes.length) {
    nodesBox.append(el("p.muted", `…and ${objects.nodeCount - objects.nodes.length} more nodes`));
  }
  clear(podsBox);
  podsBox.append(...objects.pods.map((p) => podEntry(p, where[p.name])));
}
