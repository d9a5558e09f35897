// A labelled form field, as the args and general tabs lay them out.
import { el } from "../util.js";

export function field(labelText, input, hint) {
  return el("label.field", labelText, input, hint ? el("span.small.muted", hint) : null);
}
