// fetch() wrappers for the REST API and the page helpers: JSON in, JSON out, CSRF attached.

export class ApiError extends Error {
  constructor(status, body) {
    super(ApiError.describe(status, body));
    this.status = status;
    this.body = body;
  }

  /** A readable one-line message from DRF's error shapes. */
  static describe(status, body) {
    if (body && typeof body === "object") {
      if (typeof body.detail === "string") return body.detail;
      // A 409's {"detail": ["..."]} reads as its sentences, not as a field called "detail".
      if (Array.isArray(body.detail) && body.detail.every((m) => typeof m === "string")) return body.detail.join("\n");
      const parts = [];
      for (const [field, msgs] of Object.entries(body)) {
        const list = Array.isArray(msgs) ? msgs : [msgs];
        for (const m of list) {
          const text = typeof m === "string" ? m : JSON.stringify(m);
          parts.push(field === "non_field_errors" ? text : `${field}: ${text}`);
        }
      }
      if (parts.length) return parts.join("\n");
    }
    if (typeof body === "string" && body && body.length < 300) return body;
    return `HTTP ${status}`;
  }

  /** Every message in the body, each with the field path it belongs to. */
  fieldErrors() {
    const out = [];
    const walk = (value, path) => {
      if (Array.isArray(value) && value.every((v) => typeof v === "string")) {
        for (const m of value) out.push({ path, message: m });
      } else if (Array.isArray(value)) {
        value.forEach((v, i) => walk(v, `${path}[${i}]`));
      } else if (value && typeof value === "object") {
        for (const [k, v] of Object.entries(value)) walk(v, path ? `${path}.${k}` : k);
      } else if (typeof value === "string") {
        out.push({ path, message: value });
      }
    };
    walk(this.body, "");
    return out;
  }
}

export function csrfToken() {
  const meta = document.querySelector('meta[name="csrf-token"]');
  if (meta && meta.content) return meta.content;
  const m = /(?:^|;\s*)csrftoken=([^;]+)/.exec(document.cookie);
  return m ? decodeURIComponent(m[1]) : "";
}

export async function request(method, url, body, { form = false, text = false } = {}) {
  const headers = { Accept: text ? "*/*" : "application/json" };
  const init = { method, headers, credentials: "same-origin" };
  if (method !== "GET" && method !== "HEAD") headers["X-CSRFToken"] = csrfToken();
  if (body !== undefined) {
    if (form) init.body = body;
    else {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
  }
  const resp = await fetch(url, init);
  const raw = await resp.text();
  let data = raw;
  if (!text && raw) {
    try { data = JSON.parse(raw); } catch { data = raw; }
  }
  if (!resp.ok) throw new ApiError(resp.status, data);
  return data;
}

export const api = {
  get: (url, opts) => request("GET", url, undefined, opts),
  post: (url, body, opts) => request("POST", url, body, opts),
  put: (url, body, opts) => request("PUT", url, body, opts),
  patch: (url, body, opts) => request("PATCH", url, body, opts),
  del: (url) => request("DELETE", url),
};

/** Every item of a paginated DRF list (or the list itself when it is not paginated). */
export async function getAll(url, { max = 100000 } = {}) {
  let next = url;
  const items = [];
  while (next && items.length < max) {
    const page = await api.get(next);
    if (Array.isArray(page)) return page;
    items.push(...(page.results || []));
    next = page.next;
  }
  return items;
}
