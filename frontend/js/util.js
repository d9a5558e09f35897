// Small DOM and formatting helpers shared by the pages.

/** el("div.card#id", {attrs}, ...children): a DOM element; strings become text nodes. */
export function el(spec, attrs, ...children) {
  const m = /^([a-z0-9-]+)?((?:[.#][\w-]+)*)$/i.exec(spec);
  const node = document.createElement((m && m[1]) || "div");
  if (m && m[2]) {
    for (const part of m[2].match(/[.#][\w-]+/g)) {
      if (part[0] === ".") node.classList.add(part.slice(1));
      else node.id = part.slice(1);
    }
  }
  if (attrs && (typeof attrs !== "object" || attrs instanceof Node || Array.isArray(attrs))) {
    children.unshift(attrs);
    attrs = null;
  }
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") node.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(node.dataset, v);
    else if (k === "text") node.textContent = v;
    else if (k in node && typeof v !== "string") node[k] = v;
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(node, c);
    else node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** A plugin's name that may wrap only between its words (NodeResources·Balanced·Allocation),
 *  never mid-word: text and <wbr> nodes. */
export function wordBreaks(name) {
  return String(name).split(/(?=[A-Z][a-z])/).flatMap((word, i) => (i ? [el("wbr"), word] : [word]));
}

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));

export function clear(node) {
  node.replaceChildren();
  return node;
}

const BINARY = [["Ei", 2 ** 60], ["Pi", 2 ** 50], ["Ti", 2 ** 40], ["Gi", 2 ** 30], ["Mi", 2 ** 20], ["Ki", 2 ** 10]];

export function fmtBytes(n) {
  if (!n) return "0";
  for (const [unit, size] of BINARY) {
    if (Math.abs(n) >= size) {
      const v = n / size;
      return `${Number.isInteger(v) ? v : v.toFixed(1)}${unit}`;
    }
  }
  return String(n);
}

export function fmtCpu(milli) {
  if (!milli) return "0";
  return milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`;
}

/** A resource quantity in Kubernetes notation, by resource name. */
export function fmtQty(name, value) {
  if (name === "cpu") return fmtCpu(value);
  if (name === "memory" || name === "ephemeral-storage" || name.startsWith("hugepages-")) {
    return fmtBytes(value);
  }
  return String(value);
}

export function fmtTime(seconds) {
  if (seconds === null || seconds === undefined) return "";
  const s = Number(seconds);
  return `${Number.isInteger(s) ? s : s.toFixed(s < 10 ? 2 : 1)}s`;
}

export function pct(used, total) {
  if (!total) return used ? 100 : 0;
  return Math.min(100, Math.round((used / total) * 1000) / 10);
}

export function debounce(fn, ms) {
  let timer = null;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

/** Coalesces calls into one per animation frame. */
export function rafBatch(fn) {
  let queued = false;
  return () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      fn();
    });
  };
}

export function download(filename, text, type = "application/yaml") {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = el("a", { href: url, download: filename });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function setStatus(output, text, kind = "") {
  if (!output) return;
  output.textContent = text;
  output.className = `status ${kind}`.trim();
}

export function readFiles(input) {
  return Promise.all(Array.from(input.files || []).map(
    (f) => f.text().then((text) => ({ name: f.name, text }))));
}
