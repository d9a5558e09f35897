// DynamicResources' `detail` at Reserve, Unreserve and PreBind: which ResourceClaims the call
// allocated (devices as driver/pool/device, admin access marked), reserved for the pod, gave
// back or deallocated. The engine hands each call only its own events.
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
];

function devices(allocation) {
  const results = ((allocation || {}).devices || {}).results || [];
  return results.map((r, i) => el("span", i ? " " : "",
    el("span.chip", { title: `request ${r.request}` }, `${r.driver}/${r.pool}/${r.device}`),
    r.adminAccess ? el("span.badge", "admin") : null));
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
    event.allocation ? [": ", devices(event.allocation), nodeSelector(event.allocation)] : null);
}

/** The claims block under a DynamicResources status line. */
export function claimDecisions(point, detail) {
  return el("div.claim-decisions", { "data-point": point },
    el("h4", "Device claims"),
    el("ul.vol-list", detail.claims.map((e) => claimLine(e, point))));
}
