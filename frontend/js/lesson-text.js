// The lesson's notes (a section of docs/LESSONS.md) as HTML: paragraphs, bullet lists,
// **bold** and `code`; built as DOM nodes, never as an HTML string.

import { el } from "./util.js";

function inline(text) {
  const out = [];
  for (const piece of text.split(/(\*\*[^*]+\*\*|`[^`]+`)/)) {
    if (piece.startsWith("**") && piece.endsWith("**") && piece.length > 4) out.push(el("b", piece.slice(2, -2)));
    else if (piece.startsWith("`") && piece.endsWith("`") && piece.length > 2) out.push(el("code", piece.slice(1, -1)));
    else if (piece) out.push(piece);
  }
  return out;
}

/** Block elements for `markdown`: a heading line, paragraphs, "- " lists. */
export function lessonBlocks(markdown) {
  const blocks = [];
  for (const chunk of markdown.split(/\n\s*\n/)) {
    const lines = chunk.split("\n");
    if (/^#+ /.test(lines[0])) {
      blocks.push(el("h3", inline(lines[0].replace(/^#+ /, ""))));
      lines.shift();
    }
    // A paragraph may run straight into a list (no blank line between them).
    const para = [];
    while (lines.length && !lines[0].startsWith("- ")) para.push(lines.shift().trim());
    if (para.length) blocks.push(el("p", inline(para.join(" "))));
    if (!lines.length) continue;
    const items = [];
    for (const line of lines) {
      if (line.startsWith("- ")) items.push(line.slice(2));
      else items[items.length - 1] += ` ${line.trim()}`;
    }
    blocks.push(el("ul", items.map((i) => el("li", inline(i)))));
  }
  return blocks;
}
