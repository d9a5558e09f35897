// The YAML tab, kept in sync both ways: the working copy written as YAML when the tab opens,
// the editor's text read back (debounced) into the working copy the forms follow.
import { api } from "../api.js";
import { clone, tidy } from "../config-model.js";
import { urls } from "../urls.js";
import { $, debounce, setStatus } from "../util.js";
import { changed } from "./check.js";
import { redraw, s } from "./state.js";

export async function showYaml() {
  try {
    const { text } = await api.post(urls.yaml, { data: tidy(clone(s.config)) });
    if (s.tab === "yaml" && !s.editor.hasFocus) s.editor.value = text;
    s.yamlError = "";
    setStatus($("#yaml-status"), "");
  } catch (err) {
    setStatus($("#yaml-status"), err.message, "error");
  }
}

export const parseYaml = debounce(async () => {
  try {
    const { data, error, line } = await api.post(urls.yaml, { text: s.editor.value });
    if (error) throw Object.assign(new Error(error), { line });
    s.config = data;
    s.yamlError = "";
    if (!s.config.profiles || s.index >= s.config.profiles.length) s.index = 0;
    setStatus($("#yaml-status"), "YAML parsed: the forms follow it.", "ok");
    $("#yaml").classList.remove("invalid");
    s.editor.setProblems([]);
    redraw.profileSelect();
    changed();
  } catch (err) {
    s.yamlError = err.body && err.body.error ? err.body.error : err.message;
    $("#yaml").classList.add("invalid");
    s.editor.setProblems([{ line: err.line, message: s.yamlError }]);
    setStatus($("#yaml-status"), `YAML error: ${s.yamlError}`, "error");
  }
}, 350);
