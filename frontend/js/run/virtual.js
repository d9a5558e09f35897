// Long tables (a row per node) drawn a window at a time: the rows in view plus a margin, with
// spacer rows standing in for the rest, so 5,000 nodes cost a few dozen rows of DOM.
// Short tables are drawn whole (no spacers), as before.

export const VIRTUAL_FROM = 150;
const ROW_PX = 28; // .virtual rows are this tall (pages.css)
const WINDOW = 40;
const MARGIN = 10;

/** The rows to draw for a scroll position: [first, end) of `count`. Pure, for the tests. */
export function windowOf(scrollTop, count, rowPx = ROW_PX) {
  const first = Math.max(0, Math.floor(scrollTop / rowPx) - MARGIN);
  return [first, Math.min(count, first + WINDOW + 2 * MARGIN)];
}

const spacer = (rows, cols) => (rows > 0 ? `<tr class="spacer" aria-hidden="true"><td colspan="${cols}" style="height:${rows * ROW_PX}px"></td></tr>` : "");

/**
 * Fills `wrap` (a scroll box) with `tableOpen` + rows + `</table>`.
 * rowHtml(i) -> "<tr>…</tr>"; cols: the table's column count (for the spacers).
 */
export function fillRows(wrap, { tableOpen, count, rowHtml, cols }) {
  if (count < VIRTUAL_FROM) {
    const rows = [];
    for (let i = 0; i < count; i++) rows.push(rowHtml(i));
    wrap.innerHTML = `${tableOpen}<tbody>${rows.join("")}</tbody></table>`;
    return;
  }
  wrap.classList.add("virtual");
  const draw = () => {
    const [first, end] = windowOf(wrap.scrollTop, count);
    const rows = [spacer(first, cols)];
    for (let i = first; i < end; i++) rows.push(rowHtml(i));
    rows.push(spacer(count - end, cols));
    const body = wrap.querySelector("tbody");
    if (body) body.innerHTML = rows.join("");
    else wrap.innerHTML = `${tableOpen}<tbody>${rows.join("")}</tbody></table>`;
  };
  let queued = false;
  wrap.addEventListener("scroll", () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => { queued = false; draw(); });
  });
  draw();
}
