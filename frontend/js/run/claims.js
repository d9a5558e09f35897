// DynamicResources' `detail` at Reserve, Unreserve, PreBind and PostFilter: which ResourceClaims
// the call allocated (devices as driver/pool/device, admin access marked, with each device's
// taints and the tolerations used, the counters it consumes of its pool's counter sets, its
// capacities and what a shared device's allocation consumed), reserved for the pod, created
// (extended resources), gave back, deallocated or waited on (binding conditions). The engine
// hands each call only its own events.
import { el } from "../util.js";

/** {claims: [{claim, allocation?, reservedFor?, unreserved?, allocationReverted?, ...}]} */
export const isClaimsDetail = (d) => Boolean(d) && typeof d === "object" && !Array.isArray(d)
  && Array.isArray(d.claims) && d.claims.every((c) => c && typeof c.claim === "string");

const ACTIONS = [
  ["allocation", (e, point) => (point === "reserve" ? "Reserve allocated (in flight)" : "PreBind wrote allocation")],
  ["reservedFor", (e) => `reserved for ${e.reservedFor}`],
  ["unreserved", (e) => `reservation of ${e.unreserved} removed`],
  ["allocationReverted", () => "in-flight allocation dropped"],
  ["deallocated", () => "deallocated"],
  ["created", () => "PreBind created the claim for the pod's extended resources"],
  ["deleted", () => "stale extended resource claim deleted"],
  ["bindingConditionsPending", (e) => `binding conditions of ${e.bindingConditionsPending.join(", ")} not reported within ${e.timeoutSeconds}s`],
];

const quantity = (c) => (c && typeof c === "object" ? c.value : c);

function taintText(t) {
  return `${t.key}${t.value ? `=${t.value}` : ""}:${t.effect}`;
}

/** The device's taints, counters and capacities as the trace describes them. */
function deviceFacts(info, result) {
  if (!info && !result.tolerations && !result.consumedCapacity && !result.bindingConditions) return null;
  const facts = [];
  for (const t of (info || {}).taints || []) facts.push(el("span.badge", { "data-fact": "taint" }, `taint ${taintText(t)}`));
  if ((result.tolerations || []).length) facts.push(el("span.small.muted", { "data-fact": "tolerations" }, ` tolerated by the request (${result.tolerations.length})`));
  const sets = (info || {}).counterSets || {};
  for (const usage of (info || {}).consumesCounters || []) {
    for (const [name, counter] of Object.entries(usage.counters || {})) {
      const total = quantity((sets[usage.counterSet] || {})[name]);
      facts.push(el("span.small", { "data-fact": "counter" }, ` consumes ${name} ${quantity(counter)}${total ? ` of ${total}` : ""} (${usage.counterSet})`));
    }
  }
  const consumed = result.consumedCapacity || {};
  for (const [name, cap] of Object.entries((info || {}).capacity || {})) {
    const taken = consumed[name];
    facts.push(el("span.small", { "data-fact": "capacity" }, ` ${name} ${taken !== undefined ? `${taken} of ` : ""}${quantity(cap)}`));
  }
  if (info && info.allowMultipleAllocations) facts.push(el("span.badge", { "data-fact": "shared" }, "shared"));
  if ((result.bindingConditions || []).length) facts.push(el("span.small.muted", { "data-fact": "binding" }, ` waits for ${result.bindingConditions.join(", ")}`));
  return facts;
}

function devices(allocation, details) {
  const results = ((allocation || {}).devices || {}).results || [];
  return results.map((r, i) => {
    const id = `${r.driver}/${r.pool}/${r.device}`;
    return el("span", { "data-device": id }, i ? " " : "",
      el("span.chip", { title: `request ${r.request}` }, id),
      r.adminAccess ? el("span.badge", "admin") : null,
      deviceFacts((details || {})[id], r));
  });
}

function nodeSelector(allocation) {
  const terms = ((allocation || {}).nodeSelector || {}).nodeSelectorTerms || [];
  const reqs = terms.flatMap((t) => [...(t.matchFields || []), ...(t.matchExpressions || [])]);
  if (!reqs.length) return null;
  return el("span.small.muted", " only on ", reqs.map((r) => `${r.key} ${r.operator} ${(r.values || []).join(",")}`).join("; "));
}

function claimLine(event, point) {
  const actions = ACTIONS.filter(([key]) => key in event).map(([, text]) => text(event, point));
  return el("li", { "data-claim": event.claim },
    el("span.vol-tag", actions.join(", ")), " claim ", el("b", event.claim),
    event.allocation ? [": ", devices(event.allocation, event.devices), nodeSelector(event.allocation)] : null);
}

/** The claims block under a DynamicResources status line. */
export function claimDecisions(point, detail) {
  return el("div.claim-decisions", { "data-point": point },
    el("h4", "Device claims"),
    el("ul.vol-list", detail.claims.map((e) => claimLine(e, point))));
}
