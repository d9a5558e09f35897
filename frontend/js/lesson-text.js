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

// Where a lesson's notes start giving the outcomes away (as playground/workshops/lessons.py
// cuts them for attendees): those blocks are marked, and the presenter hides them while a
// question is open.
const SPOILERS = /^\*\*(What to look at|Try this)/;

/** Block elements for `markdown`: a heading line, paragraphs, "- " lists; the blocks from
 * "What to look at" or "Try this" on have the class "spoiler". */
export function lessonBlocks(markdown) {
  const blocks = [];
  let spoiler = false;
  for (const chunk of markdown.split(/\n\s*\n/)) {
    const first = blocks.length;
    spoiler = spoiler || SPOILERS.test(chunk.trim());
    addBlocks(blocks, chunk);
    if (spoiler) for (const block of blocks.slice(first)) block.classList.add("spoiler");
  }
  return blocks;
}

function addBlocks(blocks, chunk) {
  const lines = chunk.split("\n");
  if (/^#+ /.test(lines[0])) {
    blocks.push(el("h3", inline(lines[0].replace(/^#+ /, ""))));
    lines.shift();
  }
  // A paragraph may run straight into a list (no blank line between them).
  const para = [];
  while (lines.length && !lines[0].startsWith("- ")) para.push(lines.shift().trim());
  if (para.length) blocks.push(el("p", inline(para.join(" "))));
  if (!lines.length) return;
  const items = [];
  for (const line of lines) {
    if (line.startsWith("- ")) items.push(line.slice(2));
    else items[items.length - 1] += ` ${line.trim()}`;
  }
  blocks.push(el("ul", items.map((i) => el("li", inline(i)))));
}
