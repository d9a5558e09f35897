// Every server address the pages use, in one place.
export const urls = {
  clusters: "/api/clusters/",
  cluster: (id) => `/api/clusters/${id}/`,
  // The import forms' checkboxes as the API's query parameters: "Strict" is the API server's
  // fieldValidation=Strict, "drop removed plugins" is dropRemovedPlugins=true.
  clusterImport: (options = {}) => `/api/clusters/import/${importQuery(options)}`,
  clusterReimport: (id, options = {}) => `/api/clusters/${id}/import/${importQuery(options)}`,
  clusterExport: (id) => `/api/clusters/${id}/export/`,
  clusterClone: (id) => `/api/clusters/${id}/clone/`,
  clusterNodes: (id) => `/api/clusters/${id}/nodes/`,
  clusterPods: (id) => `/api/clusters/${id}/pods/`,
  clusterObjects: (id, kind) => `/api/clusters/${id}/${kind}/`,
  profile: (id) => `/api/clusters/${id}/profile/`,
  plugins: "/api/plugins/",
  runs: "/api/runs/",
  run: (id) => `/api/runs/${id}/`,
  runAction: (id, action) => `/api/runs/${id}/${action}/`,
  runState: (id) => `/api/runs/${id}/state/`,
  runCycles: (id) => `/api/runs/${id}/cycles/`,
  runCycle: (id, index) => `/api/runs/${id}/cycles/${index}/`,
  runSocket: (id) => `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/runs/${id}/`,
  // the profile editor's, the compare view's and the run page's reads (profiles/api.py, runs/api.py)
  yaml: "/api/profiles/yaml/",
  profileCheck: "/api/profiles/check/",
  runObjects: (id) => `/api/runs/${id}/objects/`,
  runHistory: (id) => `/api/runs/${id}/history/`,
  runView: (id, part) => `/api/runs/${id}/view/${part ? `?part=${part}` : ""}`,
  compare: (id) => `/api/clusters/${id}/compare/`,
  compareRuns: (a, b) => `/api/runs/compare/?a=${a}&b=${b}`,
  sweep: (id) => `/api/sweeps/${id}/`,
  // pages
  clusterPage: (id) => `/clusters/${id}/`,
  runPage: (id) => `/runs/${id}/`,
  profilePage: (id) => `/clusters/${id}/profile/`,
};

/** "?fieldValidation=Strict&dropRemovedPlugins=true" for the options checked, "" for none. */
export function importQuery({ strict = false, dropRemovedPlugins = false } = {}) {
  const query = new URLSearchParams();
  if (strict) query.set("fieldValidation", "Strict");
  if (dropRemovedPlugins) query.set("dropRemovedPlugins", "true");
  const text = query.toString();
  return text ? `?${text}` : "";
}

/** The options a form's "strict" and "dropRemovedPlugins" checkboxes ask for. */
export function importOptions(form) {
  return { strict: form.elements.strict.checked, dropRemovedPlugins: form.elements.dropRemovedPlugins.checked };
}
