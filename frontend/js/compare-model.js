// Compare's pure parts: the expanded profiles of a side (every profile of its configuration,
// as /api/profile/check expands them) and what two sides do differently.

/** Weights of the plugins that score: the expansion also lists a multiPoint plugin disabled at score. */
export function scoreWeights(expanded) {
  const scoring = new Set(expanded.points.score || []);
  return Object.fromEntries(Object.entries(expanded.weights).filter(([name]) => scoring.has(name)));
}

/** NodeResourcesFit's scoring strategy in one expanded profile. */
export const strategyOf = (expanded) => ((expanded.pluginConfig.NodeResourcesFit || {}).scoringStrategy || {}).type || "LeastAllocated";

/** What two expanded profiles do differently: plugins per point, weights, arguments. */
function profileDifferences(a, b) {
  const out = [];
  const points = new Set([...Object.keys(a.points), ...Object.keys(b.points)]);
  for (const point of points) {
    const pa = new Set(a.points[point] || []), pb = new Set(b.points[point] || []);
    for (const p of pa) if (!pb.has(p)) out.push(`${point}: ${p} only in A`);
    for (const p of pb) if (!pa.has(p)) out.push(`${point}: ${p} only in B`);
  }
  const wa = scoreWeights(a), wb = scoreWeights(b);
  for (const name of new Set([...Object.keys(wa), ...Object.keys(wb)])) {
    if (wa[name] !== wb[name]) out.push(`weight of ${name}: ${wa[name] ?? "—"} · ${wb[name] ?? "—"}`);
  }
  for (const name of new Set([...Object.keys(a.pluginConfig), ...Object.keys(b.pluginConfig)])) {
    const ja = JSON.stringify(a.pluginConfig[name] ?? null), jb = JSON.stringify(b.pluginConfig[name] ?? null);
    if (ja !== jb) out.push(`args of ${name}: ${ja} · ${jb}`);
  }
  return out;
}

/** What sides A and B (lists of expanded profiles) do differently, profile by profile, matched
 *  by schedulerName; with more than one profile each line names the profile it is about. */
export function differences(a, b) {
  const byName = (profiles) => new Map(profiles.map((p) => [p.schedulerName, p]));
  const ma = byName(a), mb = byName(b);
  const names = [...new Set([...ma.keys(), ...mb.keys()])];
  const several = names.length > 1;
  return names.flatMap((name) => {
    if (!mb.has(name)) return [`profile ${name} only in A`];
    if (!ma.has(name)) return [`profile ${name} only in B`];
    const lines = profileDifferences(ma.get(name), mb.get(name));
    return several ? lines.map((line) => `${name}: ${line}`) : lines;
  });
}
