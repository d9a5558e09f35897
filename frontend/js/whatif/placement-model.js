// Plain data for the Global placement panel: which pods the two placements put differently.

/** The pods whose node differs between the scheduler's placement and the global one, in the
 *  global placement's order; `gained`: left pending by the scheduler, bound globally. */
export function placementRows(out) {
  const sched = out.scheduler.bindings;
  return Object.entries(out.optimal.bindings)
    .filter(([pod, node]) => (sched[pod] || null) !== (node || null))
    .map(([pod, node]) => ({ pod, scheduler: sched[pod] || null, global: node || null,
                             gained: !sched[pod] && Boolean(node) }));
}

/** The pods the scheduler bound that a Filter plugin refuses once the pods bound after them
 *  are in place (its placement does not hold as a whole), one line each. */
export function violationLines(out) {
  return out.scheduler.violations.map((v) => `${v.pod} on ${v.node}: ${v.plugin}: ${v.message}`);
}
