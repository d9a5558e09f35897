// The run view's charts over virtual time, drawn with uPlot (served from frontend/vendor).

import uPlot from "../vendor/uplot/uPlot.esm.js";
import {
  busiest, nodeSeries, pendingSeries, pluginTotals, timingSeries, utilizationSeries,
} from "./charts-data.js";
import { clear, el } from "./util.js";

const MAX_NODE_SERIES = 12;
const COLORS = ["#2f6fdf", "#d9822b", "#2e9d5b", "#b8336a", "#7a5cc7", "#20a4b8", "#9a7b1c",
  "#5c6b7a"];

function chart(title, series, { yLabel, xLabel = "virtual time (s)", stepped = false } = {}) {
  const box = el("figure.chart", el("figcaption", title));
  const width = Math.max(280, Math.min(560, (box.parentElement?.clientWidth || 560)));
  const opts = {
    width, height: 180,
    scales: { x: { time: false } },
    axes: [{ label: xLabel }, { label: yLabel }],
    series: [{ label: xLabel.split(" ")[0] }, ...series.labels.map((label, i) => ({
      label, stroke: COLORS[i % COLORS.length], width: 2, spanGaps: false,
      paths: stepped ? uPlot.paths.stepped({ align: 1 }) : undefined,
    }))],
  };
  // uPlot wants at least one x value.
  const data = series.data[0].length ? series.data : [[0], ...series.labels.map(() => [null])];
  box.chart = new uPlot(opts, data, box);
  return box;
}

function pluginBars(timings) {
  const totals = pluginTotals(timings).slice(0, 12);
  const max = totals.length ? totals[0].micros : 1;
  return el("figure.chart", el("figcaption", "Time per plugin (whole run, µs)"),
    el("ul.plugin-bars", totals.map(({ key, micros }) => el("li",
      el("span.bar-label", key),
      el("span.bar", { style: `width:${Math.max(1, (100 * micros) / max)}%` }),
      el("span.bar-value", micros.toLocaleString())))));
}

/** Draw every chart of a run's recorded timeline into `root`. */
export function renderCharts(root, timeline, resource = "cpu") {
  clear(root);
  const samples = timeline.samples || [];
  root.append(
    chart("Cluster utilization (requested / allocatable, %)", utilizationSeries(samples),
          { yLabel: "%", stepped: true }),
    chart(`Per-node ${resource} (requested / allocatable, %; the ${MAX_NODE_SERIES} busiest)`,
          busiest(nodeSeries(samples, resource), MAX_NODE_SERIES),
          { yLabel: "%", stepped: true }),
    chart("Pending pods", pendingSeries(samples), { yLabel: "pods", stepped: true }),
  );
  if (timeline.timings) {
    root.append(
      chart("Time per extension point (µs per cycle)", timingSeries(timeline.timings),
            { yLabel: "µs", xLabel: "cycle" }),
      pluginBars(timeline.timings));
  }
}
