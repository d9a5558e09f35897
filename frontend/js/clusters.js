// Clusters list: import from YAML (files or paste), open, export, clone, delete.
import { api, getAll } from "./api.js";
import { importOptions, urls } from "./urls.js";
import { $, clear, download, el, readFiles, setStatus } from "./util.js";

const list = $("#cluster-list");
const form = $("#import-form");
const status = $("#import-status");

async function importFiles(files, extra, options) {
  return api.post(urls.clusterImport(options), { ...extra, files });
}

async function load() {
  let clusters;
  try {
    clusters = await getAll(urls.clusters);
  } catch (err) {
    clear(list).append(el("p.status.error", err.message));
    return;
  }
  clear(list);
  if (!clusters.length) {
    list.append(el("p.muted", "No clusters yet: import one above, or run `manage.py load_demo`."));
    return;
  }
  for (const c of clusters) list.append(card(c));
}

function card(c) {
  const msg = el("output.status.small", { "aria-live": "polite" });
  const open = urls.clusterPage(c.id);
  return el("article.panel.cluster-card", { dataset: { id: c.id } },
    el("h3", el("a", { href: open }, c.name)),
    el("div.row",
      el("span.badge", `${c.node_count ?? "?"} nodes`),
      el("span.badge", `${c.pod_count ?? "?"} pods`),
      c.shared ? el("span.badge", "shared") : null,
      c.writable === false ? el("span.badge", `by ${c.owner}`) : null),
    el("p.small.muted", c.description || "No description."),
    el("div.actions",
      el("a.button.small.primary", { href: open, "aria-label": `Open cluster ${c.name}` }, "Open"),
      el("button.small", {
        type: "button", "aria-label": `Export cluster ${c.name}`,
        onclick: async () => {
          try {
            download(`${c.name}.yaml`, await api.get(urls.clusterExport(c.id), { text: true }));
          } catch (err) { setStatus(msg, err.message, "error"); }
        },
      }, "Export"),
      el("button.small", {
        type: "button", "aria-label": `Clone cluster ${c.name}`,
        onclick: async () => {
          try {
            await api.post(urls.clusterClone(c.id), { name: `${c.name}-copy` });
            await load();
          } catch (err) { setStatus(msg, err.message, "error"); }
        },
      }, "Clone"),
      c.writable === false ? null : el("button.small.danger", {
        type: "button", "aria-label": `Delete cluster ${c.name}`,
        onclick: async () => {
          if (!confirm(`Delete cluster "${c.name}" and its runs?`)) return;
          try {
            await api.del(urls.cluster(c.id));
            await load();
          } catch (err) { setStatus(msg, err.message, "error"); }
        },
      }, "Delete")),
    msg);
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const files = await readFiles(form.elements.files);
  const text = form.elements.text.value;
  if (text.trim()) files.push({ name: "pasted.yaml", text });
  if (!files.length) {
    setStatus(status, "Choose a file or paste YAML.", "error");
    return;
  }
  setStatus(status, "Importing…", "busy");
  try {
    const result = await importFiles(files, {
      name: form.elements.name.value.trim(),
      description: form.elements.description.value,
    }, importOptions(form));
    const warnings = result.warnings && result.warnings.length
      ? `\n${result.warnings.map((w) => `Warning: ${w}`).join("\n")}` : "";
    setStatus(status, `Imported "${result.cluster.name}".${warnings}`, "ok");
    form.reset();
    await load();
  } catch (err) {
    setStatus(status, err.message, "error");
  }
});

load();
