// Pure shaping of a run's recorded timeline (GET /api/runs/{id}/timeline/) into the series the
// charts draw: uPlot takes [xs, ys1, ys2, ...] with null for a gap.

const RESOURCES = ["cpu", "memory", "pods"];

function percent(used, total) {
  return total > 0 ? Math.round((1000 * used) / total) / 10 : null;
}

/** Cluster-wide requested / allocatable (%) per resource, over virtual time. */
export function utilizationSeries(samples) {
  const xs = samples.map((s) => s.time);
  const ys = RESOURCES.map((res) => samples.map((s) => {
    let used = 0;
    let total = 0;
    for (const node of Object.values(s.nodes)) {
      used += node[res][0];
      total += node[res][1];
    }
    return percent(used, total);
  }));
  return { labels: RESOURCES, data: [xs, ...ys] };
}

/** Each node's requested / allocatable (%) of one resource; null while the node is absent. */
export function nodeSeries(samples, resource) {
  const seen = new Set(); // a Set: thousands of nodes times every sample
  for (const s of samples) for (const name of Object.keys(s.nodes)) seen.add(name);
  const names = [...seen];
  const xs = samples.map((s) => s.time);
  const ys = names.map((name) => samples.map((s) => {
    const node = s.nodes[name];
    return node ? percent(node[resource][0], node[resource][1]) : null;
  }));
  return { labels: names, data: [xs, ...ys] };
}

/** The `limit` series that peak highest: a chart (and its legend) of thousands of nodes would
 *  cost more DOM than the whole run view may (issue 21: at most 15,000 elements). */
export function busiest(series, limit) {
  if (series.labels.length <= limit) return series;
  const peak = (ys) => Math.max(-1, ...ys.filter((v) => v !== null));
  const keep = series.labels.map((_, i) => i).sort((a, b) => peak(series.data[b + 1]) - peak(series.data[a + 1])).slice(0, limit).sort((a, b) => a - b);
  return { labels: keep.map((i) => series.labels[i]), data: [series.data[0], ...keep.map((i) => series.data[i + 1])] };
}

export function pendingSeries(samples) {
  return { labels: ["pending pods"], data: [samples.map((s) => s.time), samples.map((s) => s.pending)] };
}

/** Microseconds per extension point in each cycle (x: the cycle's index). */
export function timingSeries(timings) {
  const points = [];
  for (const t of timings) {
    for (const key of Object.keys(t.micros)) {
      const point = key.split("/")[0];
      if (!points.includes(point)) points.push(point);
    }
  }
  const xs = timings.map((t) => t.cycle);
  const ys = points.map((point) => timings.map((t) => Object.entries(t.micros)
    .filter(([key]) => key.split("/")[0] === point)
    .reduce((sum, [, micros]) => sum + micros, 0)));
  return { labels: points, data: [xs, ...ys] };
}

/** Total microseconds per "point/plugin" over the whole run, largest first. */
export function pluginTotals(timings) {
  const totals = new Map();
  for (const t of timings) {
    for (const [key, micros] of Object.entries(t.micros)) {
      totals.set(key, (totals.get(key) || 0) + micros);
    }
  }
  return [...totals.entries()].map(([key, micros]) => ({ key, micros }))
    .sort((a, b) => b.micros - a.micros);
}

/** Marks for the history slider: the steps and pod events, each at the cycle it followed. */
export function historyMarks(timeline) {
  const marks = timeline.steps.map((s) => ({
    cycle: s.cycle, kind: "step", text: `${s.time}s ${s.action}: ${s.outcome}` }));
  for (const e of timeline.podEvents) {
    marks.push({ cycle: e.cycle, kind: "pod", text: `${e.time}s ${e.pod} ${e.event}` });
  }
  return marks;
}
