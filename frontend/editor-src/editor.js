// The pages' code editor: CodeMirror 6 with YAML highlighting, schema hints and lint markers.
// Built by esbuild into frontend/vendor/codemirror/editor.js (see package.json); the pages
// import only createEditor, so CodeMirror's own API stays behind this one function.
import { autocompletion } from "@codemirror/autocomplete";
import { yaml } from "@codemirror/lang-yaml";
import { lintGutter, setDiagnostics } from "@codemirror/lint";
import { EditorView, basicSetup } from "codemirror";

/**
 * createEditor(parent, { doc, label, hints, onChange }) -> editor
 *
 * hints(line, word) gives the completions for the word being typed on a line of text: an
 * array of { label, detail?, type? } (the caller knows the schema; the editor knows text).
 * editor.setProblems([{ line, message, severity? }]) shows the server's validation answer
 * as markers on those lines (1-based; a problem without a line goes on line 1).
 */
export function createEditor(parent, { doc = "", label = "", hints = null, onChange = null } = {}) {
  const source = (context) => {
    const word = context.matchBefore(/[\w.\-/]*/);
    const line = context.state.doc.lineAt(context.pos);
    // Typing offers hints once a word has begun; Ctrl-Space offers them anywhere.
    if (!hints || (!context.explicit && (!word || word.from === word.to))) return null;
    const options = hints(line.text.slice(0, context.pos - line.from), word ? word.text : "");
    return options && options.length ? { from: word ? word.from : context.pos, options, validFor: /^[\w.\-/]*$/ } : null;
  };
  const view = new EditorView({
    doc,
    parent,
    extensions: [
      basicSetup,
      yaml(),
      lintGutter(),
      autocompletion({ override: [source], activateOnTyping: true }),
      EditorView.contentAttributes.of({ "aria-label": label, spellcheck: "false" }),
      EditorView.updateListener.of((update) => {
        if (update.docChanged && onChange) onChange(update.state.doc.toString());
      }),
    ],
  });
  return {
    view,
    get value() {
      return view.state.doc.toString();
    },
    set value(text) {
      if (text !== view.state.doc.toString()) {
        view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
      }
    },
    get hasFocus() {
      return view.hasFocus;
    },
    setProblems(problems) {
      const doc = view.state.doc;
      const diagnostics = problems.map((p) => {
        const line = doc.line(Math.min(Math.max(p.line || 1, 1), doc.lines));
        return { from: line.from, to: line.to, severity: p.severity || "error", message: p.message };
      });
      view.dispatch(setDiagnostics(view.state, diagnostics));
    },
  };
}
