// Cluster page: description and counts, nodes and pods (add or edit one in a form), runs,
// start a run, export, clone, delete, replace objects from YAML (in a code editor).
import { api, getAll } from "./api.js";
import { nodeFields, nodeManifest, podFields, podManifest } from "./object-forms.js";
import { messageLine, objectHints } from "./schema-hints.js";
import { importOptions, urls } from "./urls.js";
import { $, clear, download, el, fmtBytes, fmtCpu, readFiles, setStatus } from "./util.js";
import { createEditor } from "../vendor/codemirror/editor.js";

const root = $("#cluster-page");
const id = Number(root.dataset.cluster);
const status = $("#cluster-status");
const KINDS = [
  ["nodes", "Nodes"], ["pods", "Pods"], ["namespaces", "Namespaces"],
  ["priorityclasses", "PriorityClasses"], ["pdbs", "PDBs"], ["pvs", "PVs"], ["pvcs", "PVCs"],
  ["storageclasses", "StorageClasses"], ["objects", "Other objects"],
];
let cluster = null;
const yamlEditor = createEditor($("#reimport-editor"), { label: "Paste YAML to import into this cluster", hints: objectHints() });

/** One form for one kind: ✎ on a row loads its manifest, saving POSTs a new one or PUTs it. */
function objectForm(form, { kind, noun, fieldsOf, manifestOf }) {
  let editing = null; // the row being edited, or null for a new object
  const title = $(`#${noun}-form-title`);
  const formStatus = $(`#${noun}-form-status`);
  const fill = (row) => {
    editing = row;
    const fields = fieldsOf(row ? row.manifest : {});
    for (const [key, value] of Object.entries(fields)) {
      const input = form.elements[key];
      if (input.type === "checkbox") input.checked = value;
      else input.value = key === "namespace" && !value ? "default" : value;
    }
    title.textContent = row ? `Edit ${noun} ${row.name}` : `New ${noun}`;
    setStatus(formStatus, "");
  };
  form.querySelector("[data-reset]").addEventListener("click", () => fill(null));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const values = Object.fromEntries([...form.elements].filter((i) => i.name)
      .map((i) => [i.name, i.type === "checkbox" ? i.checked : i.value]));
    try {
      const manifest = manifestOf(editing ? editing.manifest : {}, values);
      const row = editing
        ? await api.put(`${urls.clusterObjects(id, kind)}${editing.id}/`, { manifest })
        : await api.post(urls.clusterObjects(id, kind), { manifest });
      fill(row);
      setStatus(formStatus, `Saved ${noun} ${row.name}.`, "ok");
      await loadCounts();
    } catch (err) {
      // The API's field paths (manifest.status.allocatable.cpu) name what to fix.
      const messages = err.status === 400 ? err.fieldErrors().map((x) => `${x.path}: ${x.message}`) : [err.message];
      setStatus(formStatus, messages.join("\n"), "error");
    }
  });
  return (row) => {
    fill(row);
    form.scrollIntoView({ block: "nearest" });
    form.elements.name.focus();
  };
}

const editNode = objectForm($("#node-form"), { kind: "nodes", noun: "node", fieldsOf: nodeFields, manifestOf: nodeManifest });
const editPod = objectForm($("#pod-form"), { kind: "pods", noun: "pod", fieldsOf: podFields, manifestOf: podManifest });
const editButton = (noun, row, edit) => (cluster && cluster.writable === false ? ""
  : el("button.small.edit", { type: "button", "aria-label": `Edit ${noun} ${row.name}`, onclick: () => edit(row) }, "✎"));

async function loadCluster() {
  cluster = await api.get(urls.cluster(id));
  $("#cluster-description").textContent = cluster.description || "";
  $("#delete-btn").hidden = cluster.writable === false;
  $("#reimport-form").closest("section").hidden = cluster.writable === false;
  $("#object-forms").hidden = cluster.writable === false;
}

async function loadCounts() {
  const dl = clear($("#counts"));
  const pages = await Promise.all(KINDS.map(([kind]) =>
    api.get(`${urls.clusterObjects(id, kind)}?page_size=50`).catch(() => null)));
  KINDS.forEach(([kind, label], i) => {
    const page = pages[i];
    const count = page === null ? "–" : Array.isArray(page) ? page.length : page.count;
    dl.append(el("div", el("dt", label), el("dd", { dataset: { kind } }, String(count))));
  });
  renderNodes(pages[0]);
  renderPods(pages[1]);
}

function items(page) {
  if (!page) return [];
  return Array.isArray(page) ? page : page.results || [];
}

function more(page, shown) {
  const total = page && !Array.isArray(page) ? page.count : shown;
  return total > shown ? el("p.small.muted", `Showing ${shown} of ${total}.`) : null;
}

function renderNodes(page) {
  const rows = items(page).map((n) => {
    const meta = n.manifest.metadata || {};
    const taints = (n.manifest.spec && n.manifest.spec.taints) || [];
    const labels = Object.entries(meta.labels || {}).map(([k, v]) => `${k}=${v}`).join("\n");
    return el("tr", { title: labels },
      el("td", editButton("node", n, editNode), n.name, n.unschedulable ? el("span.badge", "cordoned") : ""),
      el("td.num", fmtCpu(n.cpu_milli)), el("td.num", fmtBytes(n.memory_bytes)),
      el("td.num", String(n.pods_allocatable)),
      el("td.small", taints.map((t) => `${t.key}${t.value ? `=${t.value}` : ""}:${t.effect}`).join(", ")));
  });
  clear($("#nodes-table")).append(
    el("table.data", el("thead", el("tr", el("th", "Name"), el("th.num", "CPU"), el("th.num", "Memory"),
      el("th.num", "Pods"), el("th", "Taints"))), el("tbody", rows)),
    more(page, rows.length) || "");
}

function renderPods(page) {
  const rows = items(page).map((p) => el("tr",
    el("td", editButton("pod", p, editPod), `${p.namespace}/${p.name}`), el("td", p.node_name || el("span.muted", "pending")),
    el("td.num", String(p.priority)), el("td.num", fmtCpu(p.cpu_request_milli)),
    el("td.num", fmtBytes(p.memory_request_bytes))));
  clear($("#pods-table")).append(
    el("table.data", el("thead", el("tr", el("th", "Pod"), el("th", "Node"), el("th.num", "Priority"),
      el("th.num", "CPU req"), el("th.num", "Mem req"))), el("tbody", rows)),
    more(page, rows.length) || "");
}

async function loadRuns() {
  const box = clear($("#runs-list"));
  let runs = [];
  try {
    runs = (await getAll(`${urls.runs}?cluster=${id}`, { max: 200 })).filter((r) => r.cluster === id);
  } catch (err) {
    box.append(el("p.status.error", err.message));
    return;
  }
  if (!runs.length) {
    box.append(el("p.muted", { style: "padding: 0.5rem" }, "No runs yet."));
    return;
  }
  box.append(el("table.data", el("thead", el("tr", el("th", "Run"), el("th", "Profile"), el("th", "Status"),
    el("th", "Release"), el("th.num", "Seed"), el("th.num", "Cycles"), el("th.num", "Bound"), el("th", "Created"))),
  el("tbody", runs.map((r) => el("tr",
    el("td", el("a", { href: urls.runPage(r.id) }, r.name || `run ${r.id}`)),
    el("td.small", el("code", { title: "scheduler names · digest of the run's configuration" }, r.profile)),
    el("td", el("span.status-pill", { class: `status-pill ${r.status}` }, r.status)),
    el("td", `v${r.release}`, gatesNote(r.feature_gates)), el("td.num", String(r.seed)), el("td.num", String(r.cycle_count)),
    el("td.num", String(r.pods_bound)), el("td.small", new Date(r.created).toLocaleString()))))));
}

/** The gates a run set on top of its release, as --feature-gates writes them (none: nothing). */
function gatesNote(gates) {
  const flag = Object.entries(gates || {}).map(([k, v]) => `${k}=${v}`).join(",");
  return flag ? el("span.small.muted", { title: `feature gates: ${flag}` }, ` + ${flag}`) : null;
}

$("#start-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  const seed = Number(form.elements.seed.value || 0);
  if (!Number.isInteger(seed) || seed < 0) {
    setStatus(status, "The seed must be a whole number ≥ 0.", "error");
    form.elements.seed.classList.add("invalid");
    return;
  }
  setStatus(status, "Creating run…", "busy");
  try {
    const run = await api.post(urls.runs, {
      cluster: id, seed, release: form.elements.release.value,
      feature_gates: form.elements.feature_gates.value.trim(), name: form.elements.name.value.trim() });
    location.href = urls.runPage(run.id);
  } catch (err) {
    // A gate kube-scheduler refuses is answered under feature_gates: mark the input.
    form.elements.feature_gates.classList.toggle("invalid", Boolean(err.body && err.body.feature_gates));
    setStatus(status, err.message, "error");
  }
});

$("#export-link").addEventListener("click", async (event) => {
  event.preventDefault();
  try {
    download(`${cluster ? cluster.name : "cluster"}.yaml`, await api.get(urls.clusterExport(id), { text: true }));
  } catch (err) { setStatus(status, err.message, "error"); }
});

$("#clone-btn").addEventListener("click", async () => {
  try {
    const clone = await api.post(urls.clusterClone(id), { name: `${cluster.name}-copy` });
    location.href = urls.clusterPage((clone.cluster || clone).id);
  } catch (err) { setStatus(status, err.message, "error"); }
});

$("#delete-btn").addEventListener("click", async () => {
  if (!confirm(`Delete cluster "${cluster.name}" and its runs?`)) return;
  try {
    await api.del(urls.cluster(id));
    location.href = "/clusters/";
  } catch (err) { setStatus(status, err.message, "error"); }
});

$("#reimport-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  const files = await readFiles(form.elements.files);
  const text = yamlEditor.value;
  if (text.trim()) files.push({ name: "pasted.yaml", text });
  if (!files.length) {
    setStatus(status, "Choose a file or paste YAML.", "error");
    return;
  }
  if (!confirm("Replace every object of this cluster with these files?")) return;
  try {
    const result = await api.post(urls.clusterReimport(id, importOptions(form)), { files });
    // What the API server would warn of (unknown or repeated fields, skipped kinds): said, and
    // marked on the pasted text's lines, which stay in the editor to be corrected.
    const warnings = result.warnings || [];
    setStatus(status, ["Objects replaced.", ...warnings.map((w) => `Warning: ${w}`)].join("\n"), "ok");
    form.reset();
    const pasted = warnings.filter((w) => w.startsWith("pasted.yaml"));
    if (!pasted.length) yamlEditor.value = "";
    yamlEditor.setProblems(pasted.map((w) => ({ line: messageLine(text, w), message: w, severity: "warning" })));
    await loadCounts();
  } catch (err) {
    const messages = err.status === 400 ? err.fieldErrors().map((x) => x.message) : [err.message];
    // The loader names the pasted text's document and field: mark that line in the editor.
    yamlEditor.setProblems(messages.filter((m) => m.startsWith("pasted.yaml"))
      .map((m) => ({ line: messageLine(text, m), message: m })));
    setStatus(status, messages.join("\n"), "error");
  }
});

(async () => {
  try {
    await loadCluster();
    await Promise.all([loadCounts(), loadRuns()]);
  } catch (err) {
    setStatus(status, err.message, "error");
  }
})();
