// The run's websocket: snapshot on connect, batched frames, controls and cycle_detail
// requests; reconnects with a growing delay and asks for a fresh snapshot each time.

/** Puts a part's items back where its `path` says, into a frame split by the server. */
export function fill(target, part) {
  let holder = target;
  const path = part.path || [];
  for (const key of path.slice(0, -1)) holder = holder[key] = holder[key] || {};
  const last = path[path.length - 1];
  if (Array.isArray(part.items)) holder[last] = [...(holder[last] || []), ...part.items];
  else holder[last] = { ...(holder[last] || {}), ...part.items };
}

/** What detail() gives for a cycle the server does not have (yet). */
export const NOT_FOUND = Object.freeze({ notFound: true });

export class RunSocket {
  constructor(url, handlers) {
    this.url = url;
    this.handlers = handlers; // {snapshot, batch, detail, error, open, close, message}
    this.ws = null;
    this.retry = 500;
    this.closed = false;
    this.lastSeq = null;
    this.pendingDetails = new Map(); // index -> [resolve, ...]
    this.partialDetails = new Map(); // index -> {texts, remaining}: a trace arriving in parts
  }

  connect() {
    if (this.closed) return;
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch (err) {
      this.handlers.close?.(err);
      this.schedule();
      return;
    }
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.retry = 500;
      this.lastSeq = 0; // the server numbers a connection's frames from 1
      this.handlers.open?.();
    });
    ws.addEventListener("message", (event) => this.receive(event.data));
    ws.addEventListener("close", (event) => {
      if (this.ws === ws) this.ws = null;
      this.failDetails();
      this.handlers.close?.(event);
      this.schedule();
    });
    // An error is always followed by close, which reconnects.
    ws.addEventListener("error", () => {});
  }

  schedule() {
    if (this.closed) return;
    setTimeout(() => this.connect(), this.retry);
    this.retry = Math.min(this.retry * 2, 8000);
  }

  get open() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  send(message) {
    if (!this.open) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  receive(raw) {
    let msg;
    try {
      msg = JSON.parse(raw);
    } catch {
      return;
    }
    if (typeof msg.seq === "number") {
      if (this.lastSeq !== null && msg.seq !== 1 && msg.seq !== this.lastSeq + 1) {
        // A frame went missing: what follows could not be trusted. Say so and start again
        // from a fresh snapshot on a new connection.
        this.handlers.gap?.(this.lastSeq, msg.seq);
        this.lastSeq = null;
        this.ws?.close();
        return;
      }
      this.lastSeq = msg.seq;
    }
    switch (msg.type) {
      case "snapshot":
        // A large snapshot comes in pieces: its lists and maps follow in snapshot_part frames.
        if (msg.parts) {
          this.partial = msg;
          this.remaining = msg.parts;
        } else {
          this.partial = null;
          this.handlers.snapshot?.(msg);
        }
        break;
      case "snapshot_part":
        this.addPart(msg);
        break;
      case "batch":
        this.handlers.batch?.(msg);
        break;
      case "cycle_detail": {
        const cycle = msg.cycle || msg.trace || null;
        const index = cycle ? cycle.index : msg.index;
        // A large trace comes in pieces: the text of its JSON follows in cycle_detail_part frames.
        if (msg.parts) this.partialDetails.set(index, { texts: [], remaining: msg.parts });
        else this.resolveDetail(index, cycle);
        break;
      }
      case "cycle_detail_part": {
        const pending = this.partialDetails.get(msg.index);
        if (!pending) break;
        pending.texts.push(msg.text);
        pending.remaining -= 1;
        if (pending.remaining <= 0) {
          this.partialDetails.delete(msg.index);
          this.resolveDetail(msg.index, JSON.parse(pending.texts.join("")));
        }
        break;
      }
      case "error":
        if (msg.action === "cycle_detail") {
          // Requests are answered in order: the oldest one waiting is the one refused.
          const index = this.pendingDetails.keys().next().value;
          if (index !== undefined) this.resolveDetail(index, NOT_FOUND);
          break;
        }
        this.handlers.error?.(msg);
        break;
      default:
        this.handlers.message?.(msg);
    }
  }

  addPart(part) {
    if (!this.partial) return;
    fill(this.partial, part);
    this.remaining -= 1;
    if (this.remaining <= 0) {
      const snap = this.partial;
      this.partial = null;
      this.handlers.snapshot?.(snap);
    }
  }

  /** The contract trace of one cycle; null if the socket cannot answer (then use REST). */
  detail(index, timeoutMs = 4000) {
    return new Promise((resolve) => {
      if (!this.open) {
        resolve(null);
        return;
      }
      const asked = this.pendingDetails.has(index);
      const waiters = this.pendingDetails.get(index) || [];
      waiters.push(resolve);
      this.pendingDetails.set(index, waiters);
      if (!asked) this.send({ action: "cycle_detail", index });
      setTimeout(() => this.resolveDetail(index, null), timeoutMs);
    });
  }

  /** Cycle `index`'s trace is on its way unasked (a step sent with `detail`): detail(index)
   *  waits for it instead of asking, for `timeoutMs` at most. */
  expectDetail(index, timeoutMs) {
    if (this.pendingDetails.has(index)) return;
    this.pendingDetails.set(index, []);
    setTimeout(() => this.resolveDetail(index, null), timeoutMs);
  }

  /** Whether cycle `index`'s trace is asked for or expected. */
  awaiting(index) {
    return this.pendingDetails.has(index);
  }

  resolveDetail(index, cycle) {
    const waiters = this.pendingDetails.get(index);
    // A trace sent unasked (expected or not), or after its waiters gave up: still worth keeping.
    if (!waiters || !waiters.length) {
      if (cycle && cycle !== NOT_FOUND) this.handlers.detail?.(cycle);
      if (!waiters) return;
    }
    this.pendingDetails.delete(index);
    for (const resolve of waiters) resolve(cycle);
  }

  failDetails() {
    this.partialDetails.clear();
    for (const index of Array.from(this.pendingDetails.keys())) this.resolveDetail(index, null);
  }

  close() {
    this.closed = true;
    if (this.ws) this.ws.close();
  }
}
