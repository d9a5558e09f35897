// Node cards (the labels that matter, taints, volumes) and pods (requests, affinities,
// tolerations, spread constraints, volumes when expanded) of a lesson or a sandbox.

import { nodeTags, podEntry } from "../kube-detail.js";
import { clear, el } from "../util.js";

function nodeCard(node, pods) {
  const tags = nodeTags(node).map((t) => el(`span.tag${t.cls ? `.${t.cls}` : ""}`, { title: t.title }, t.text));
  return el("article.ws-node", { dataset: { node: node.name } },
    el("h4", node.name), el("div", tags),
    pods.length ? el("div.muted", `pods: ${pods.join(", ")}`) : null);
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
