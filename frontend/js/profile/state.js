// The profile editor's state, one object its panels share instead of module-level variables,
// and the redraws main.js registers (the panels never import main.js).
import { profileAt } from "../config-model.js";
import { $ } from "../util.js";

export const root = $("#profile-page");

export const s = {
  clusterId: Number(root.dataset.cluster),
  saved: null, // the config as stored
  config: null, // the working copy
  catalog: [], // /api/plugins/
  byName: {},
  check: null, // the last /api/profiles/check/ answer
  index: 0, // the profile being edited
  writable: true,
  yamlError: "",
  tab: "plugins",
  editor: null, // the YAML tab's CodeMirror, made once the plugin names are known
};

export const prof = () => profileAt(s.config, s.index);
export const path = (rest) => `profiles[${s.index}].${rest}`;

export const redraw = { tab: () => {}, profileSelect: () => {} };
