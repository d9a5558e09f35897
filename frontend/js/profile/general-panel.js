// The general tab: the configuration's numbers, the profile's name and numbers, adding and
// removing profiles, and the extenders.
import { $, el } from "../util.js";
import { changed } from "./check.js";
import { field } from "./fields.js";
import { VERBS } from "./model.js";
import { path, prof, redraw, s } from "./state.js";

function topNumber(labelText, key, holder, p, { min, max, hint }) {
  const input = el("input", {
    type: "number", step: "1", value: holder()[key] ?? "", "data-path": p, "aria-label": labelText,
    min: min ?? null, max: max ?? null, disabled: !s.writable, placeholder: "default",
  });
  input.addEventListener("change", () => {
    if (input.value === "") delete holder()[key];
    else holder()[key] = Number(input.value);
    changed();
  });
  input.addEventListener("input", () => {
    const v = Number(input.value);
    input.classList.toggle("invalid", input.value !== "" && (!Number.isInteger(v) || (min !== undefined && v < min) || (max !== undefined && v > max)));
  });
  return field(labelText, input, hint);
}

function extenderForm(ext, j) {
  const p = (k) => `extenders[${j}].${k}`;
  const edit = (k, v, structure = false) => {
    if (v === "" || v === undefined || v === false) delete s.config.extenders[j][k];
    else s.config.extenders[j][k] = v;
    changed({ structure });
  };
  const text = (k, label) => field(label, el("input", {
    value: ext[k] || "", "data-path": p(k), "aria-label": `Extender ${j + 1} ${label}`, disabled: !s.writable,
    onchange: (e) => edit(k, e.target.value.trim()),
  }));
  const checkbox = (k, label) => el("label.inline", el("input", {
    type: "checkbox", checked: Boolean(ext[k]), "data-path": p(k), "aria-label": `Extender ${j + 1} ${label}`, disabled: !s.writable,
    onchange: (e) => edit(k, e.target.checked),
  }), label);
  return el("section.panel", { "aria-label": `Extender ${j + 1}` },
    el("h3", `Extender ${j + 1}`, el("button.small.danger", {
      type: "button", disabled: !s.writable, "aria-label": `Remove extender ${j + 1}`,
      onclick: () => { s.config.extenders.splice(j, 1); changed({ structure: true }); },
    }, "Remove")),
    el("div.extender",
      text("urlPrefix", "urlPrefix"),
      ...VERBS.map((v) => text(v, v)),
      field("weight", el("input", {
        type: "number", step: "1", min: "0", value: ext.weight ?? "", "data-path": p("weight"), disabled: !s.writable,
        "aria-label": `Extender ${j + 1} weight`, onchange: (e) => edit("weight", e.target.value === "" ? undefined : Number(e.target.value)),
      })),
      checkbox("ignorable", "ignorable"), checkbox("nodeCacheCapable", "nodeCacheCapable"), checkbox("enableHTTPS", "enableHTTPS")));
}

export function renderGeneral() {
  const profile = prof();
  const name = el("input", {
    value: profile.schedulerName || "default-scheduler", "data-path": path("schedulerName"),
    "aria-label": "schedulerName", disabled: !s.writable,
    onchange: (e) => { prof().schedulerName = e.target.value.trim(); redraw.profileSelect(); changed(); },
  });
  $("#general").replaceChildren(
    el("div.two-col",
      el("section.panel", { "aria-label": "Configuration" }, el("h3", "Configuration"),
        el("div.stack",
          topNumber("percentageOfNodesToScore", "percentageOfNodesToScore", () => s.config, "percentageOfNodesToScore",
            { min: 0, max: 100, hint: "0 or empty: adaptive (50% minus 1% per 125 nodes, at least 5%); at least 100 nodes are always scored." }),
          topNumber("podInitialBackoffSeconds", "podInitialBackoffSeconds", () => s.config, "podInitialBackoffSeconds", { min: 1, hint: "default 1" }),
          topNumber("podMaxBackoffSeconds", "podMaxBackoffSeconds", () => s.config, "podMaxBackoffSeconds", { min: 1, hint: "default 10" }))),
      el("section.panel", { "aria-label": "This profile" }, el("h3", `Profile ${s.index + 1}`),
        el("div.stack",
          field("schedulerName", name, "Pods pick a profile with spec.schedulerName."),
          topNumber("profile percentageOfNodesToScore", "percentageOfNodesToScore", () => prof(), path("percentageOfNodesToScore"), { min: 0, max: 100, hint: "overrides the global value for this profile" }),
          el("div.row",
            el("button.small", {
              type: "button", disabled: !s.writable, "aria-label": "Add a profile",
              onclick: () => {
                prof();
                s.config.profiles.push({ schedulerName: `scheduler-${s.config.profiles.length + 1}` });
                s.index = s.config.profiles.length - 1;
                redraw.profileSelect();
                changed({ structure: true });
              },
            }, "Add profile"),
            el("button.small.danger", {
              type: "button", disabled: !s.writable || !(s.config.profiles && s.config.profiles.length > 1), "aria-label": "Remove this profile",
              onclick: () => {
                s.config.profiles.splice(s.index, 1);
                s.index = 0;
                redraw.profileSelect();
                changed({ structure: true });
              },
            }, "Remove profile"))))),
    el("h2", "Extenders"),
    el("p.small.muted", "HTTP webhooks kube-scheduler calls after its own Filter and Score plugins (filterVerb, prioritizeVerb), for preemption and for binding."),
    el("div.extenders", (s.config.extenders || []).map(extenderForm)),
    el("div.row", { style: "margin-top:.5rem" }, el("button", {
      type: "button", disabled: !s.writable, "aria-label": "Add an extender",
      onclick: () => {
        s.config.extenders = s.config.extenders || [];
        s.config.extenders.push({ urlPrefix: "http://127.0.0.1:8888/scheduler", filterVerb: "filter", weight: 1 });
        changed({ structure: true });
      },
    }, "Add extender")));
}
