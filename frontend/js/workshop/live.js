// A reconnecting JSON websocket for the workshop pages: snapshots arrive whole (their parts
// merged in), every other frame is handed over as it comes.

/** Puts a snapshot part's items where its `path` says. */
export function mergePart(snapshot, part) {
  let holder = snapshot;
  const path = part.path || [];
  for (const key of path.slice(0, -1)) holder = holder[key] = holder[key] || {};
  const last = path[path.length - 1];
  if (Array.isArray(part.items)) holder[last] = [...(holder[last] || []), ...part.items];
  else holder[last] = { ...(holder[last] || {}), ...part.items };
}

export function wsUrl(path) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}${path}`;
}

export class LiveSocket {
  constructor(path, { onFrame, onStatus }) {
    this.path = path;
    this.onFrame = onFrame;
    this.onStatus = onStatus || (() => {});
    this.retry = 500;
    this.closed = false;
    this.pending = null; // a snapshot waiting for its parts
    this.pendingDetail = null; // a cycle's trace waiting for its parts
  }

  connect() {
    if (this.closed) return;
    const ws = new WebSocket(wsUrl(this.path));
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.retry = 500;
      this.onStatus("live");
      // Controls given while the socket was still opening (a step right after detaching).
      for (const message of (this.waiting || []).splice(0)) ws.send(JSON.stringify(message));
    });
    ws.addEventListener("message", (event) => this.receive(JSON.parse(event.data)));
    ws.addEventListener("close", (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.onStatus(event.code === 4403 ? "refused" : "reconnecting…");
      if (event.code === 4403 || this.closed) return;
      setTimeout(() => this.connect(), this.retry);
      this.retry = Math.min(this.retry * 2, 8000);
    });
  }

  receive(frame) {
    // A trace too large for one frame comes in parts after a cycle_detail header: pieces of
    // its JSON text (`text`), or maps and lists to put into the header's skeleton (`path`).
    if (frame.type === "cycle_detail" && frame.parts > 0) {
      this.pendingDetail = { frame, left: frame.parts, texts: [] };
      return;
    }
    if (frame.type === "cycle_detail_part" && this.pendingDetail) {
      const pending = this.pendingDetail;
      if ("text" in frame) pending.texts.push(frame.text);
      else mergePart(pending.frame.cycle, frame);
      pending.left -= 1;
      if (pending.left === 0) {
        this.pendingDetail = null;
        const cycle = pending.texts.length ? JSON.parse(pending.texts.join("")) : pending.frame.cycle;
        this.onFrame({ type: "cycle_detail", seq: pending.frame.seq, cycle });
      }
      return;
    }
    if (frame.type === "snapshot" && frame.parts > 0) {
      this.pending = { frame, left: frame.parts };
      return;
    }
    if (frame.type === "snapshot_part" && this.pending) {
      mergePart(this.pending.frame, frame);
      this.pending.left -= 1;
      if (this.pending.left === 0) {
        const whole = this.pending.frame;
        this.pending = null;
        this.onFrame(whole);
      }
      return;
    }
    this.onFrame(frame);
  }

  send(message) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
    else (this.waiting = this.waiting || []).push(message);
  }

  close() {
    this.closed = true;
    if (this.ws) this.ws.close();
    this.ws = null;
  }
}
