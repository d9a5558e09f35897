// A bar chart of one measure per sweep variant, drawn as inline SVG (no library): one bar per
// variant in the order given, its value above it, its index below, its label as the tooltip.
const SVG = "http://www.w3.org/2000/svg";
const BAR = 34;
const GAP = 6;
const HEIGHT = 160;
const TOP = 18;
const BOTTOM = 20;

function svg(tag, attrs = {}, text = "") {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text) node.textContent = text;
  return node;
}

const fmt = (v) => (Number.isInteger(v) ? String(v) : v.toFixed(3));

/** bars: [{index, label, value (a number, or null when the variant has none)}]; best: the
 *  index of the bar to highlight. */
export function barChart(bars, { title, best } = {}) {
  const width = Math.max(bars.length * (BAR + GAP) + GAP, 240);
  const max = Math.max(0, ...bars.map((b) => b.value ?? 0)) || 1;
  const plot = HEIGHT - TOP - BOTTOM;
  const root = svg("svg", { viewBox: `0 0 ${width} ${HEIGHT}`, width, height: HEIGHT, role: "img",
                            "aria-label": title || "measure per variant", class: "sweep-chart" });
  root.append(svg("line", { x1: 0, y1: HEIGHT - BOTTOM, x2: width, y2: HEIGHT - BOTTOM, class: "axis" }));
  bars.forEach((b, i) => {
    const x = GAP + i * (BAR + GAP);
    const h = b.value == null ? 0 : Math.max((b.value / max) * plot, 1);
    const rect = svg("rect", { x, y: HEIGHT - BOTTOM - h, width: BAR, height: h,
                               class: b.index === best ? "col best" : "col",
                               "data-index": b.index });
    rect.append(svg("title", {}, `${b.index}: ${b.label} — ${b.value == null ? "no value" : fmt(b.value)}`));
    root.append(rect,
      svg("text", { x: x + BAR / 2, y: HEIGHT - BOTTOM - h - 4, "text-anchor": "middle", class: "value" },
          b.value == null ? "–" : fmt(b.value)),
      svg("text", { x: x + BAR / 2, y: HEIGHT - 6, "text-anchor": "middle", class: "tick" }, String(b.index)));
  });
  return root;
}
