"""The sockets' wire frames: every frame's JSON stays under FRAME_LIMIT bytes.

`FrameBatcher` buffers a run's stream events and hands them out as frames, at most
MAX_FRAMES_PER_SECOND a second; `snapshot_frames` cuts a large snapshot into a `snapshot`
frame and its `snapshot_part`s, `detail_frames` a large cycle trace into a `cycle_detail`
header and its `cycle_detail_part`s. The run socket (runs.consumer), the workshop socket and
its relay (workshops/) send them; the protocol is described in runs/consumer.py.
"""

from __future__ import annotations

import json
from collections import deque

FRAME_LIMIT = 60_000            # bytes of JSON per frame: well under 64 KB
FRAME_OVERHEAD = 200            # room for a frame's type, seq and path around its items
MAX_FRAMES_PER_SECOND = 20
MAX_BACKLOG = 4_000_000         # bytes of events waiting for a slow client before dropping


def dumps(value) -> str:
    return json.dumps(value, separators=(",", ":"))


def _fit(item, budget: int):
    """An item of a list or map cut down to fit one frame (a node with very many pods...)."""
    if len(dumps(item)) <= budget:
        return item
    if isinstance(item, dict):
        small = {k: v for k, v in item.items() if not isinstance(v, (list, dict))}
        for key, value in item.items():
            if isinstance(value, list):
                small[key] = value[:20]
        small["truncated"] = True
        if len(dumps(small)) <= budget:
            return small
        keep = ("kind", "index", "pod", "name", "outcome", "node", "event", "queue", "time")
        return {k: item[k] for k in keep if k in item} | {"truncated": True}
    return None


class FrameBatcher:
    """Buffers stream events; hands out frames of at most max_bytes, max_rate per second.

    `delay(now)` says how long to wait before the next frame may go (None: nothing to send),
    `take(now)` returns the next frame's events once it may. Time is whatever clock the
    caller uses, so the rate can be checked without waiting.
    """

    def __init__(self, *, max_rate: float = MAX_FRAMES_PER_SECOND, max_bytes: int = FRAME_LIMIT,
                 max_backlog: int = MAX_BACKLOG):
        self.interval = 1.0 / max_rate
        self.budget = max_bytes - FRAME_OVERHEAD
        self.max_backlog = max_backlog
        self._events: deque[tuple[dict, int]] = deque()
        self._bytes = 0
        self.last_sent: float | None = None

    def __len__(self) -> int:
        return len(self._events)

    def clear(self) -> None:
        self._events.clear()
        self._bytes = 0

    def add(self, events) -> None:
        for event in events:
            event = _fit(event, self.budget)
            if event is None:
                continue
            size = len(dumps(event)) + 1
            self._events.append((event, size))
            self._bytes += size
        if self._bytes > self.max_backlog:
            self._shed()

    def _shed(self) -> None:
        """A client that cannot keep up: queue moves go first (progress carries the queue
        sizes), then the oldest events, replaced by one `dropped` event counting them."""
        kept = deque((e, s) for e, s in self._events if e.get("kind") != "queue")
        dropped = len(self._events) - len(kept)
        total = sum(s for _, s in kept)
        while kept and (total > self.max_backlog // 2 or kept[0][0].get("kind") == "dropped"):
            event, size = kept.popleft()
            total -= size
            dropped += event["events"] if event.get("kind") == "dropped" else 1
        marker = {"kind": "dropped", "events": dropped}
        size = len(dumps(marker)) + 1
        kept.appendleft((marker, size))
        self._events, self._bytes = kept, total + size

    def delay(self, now: float) -> float | None:
        if not self._events:
            return None
        if self.last_sent is None:
            return 0.0
        return max(0.0, self.last_sent + self.interval - now)

    def take(self, now: float, *, at_once: bool = False) -> list[dict] | None:
        """The next frame's events, once the rate allows (at_once: whatever the rate)."""
        wait = self.delay(now)
        if wait is None or (wait > 0 and not at_once):
            return None
        out, size = [], 0
        while self._events and size + self._events[0][1] <= self.budget:
            event, event_size = self._events.popleft()
            out.append(event)
            size += event_size
            self._bytes -= event_size
        self.last_sent = now
        return out


def _chunks(value, budget: int):
    """A list or a map cut into pieces whose JSON fits `budget`."""
    items = value.items() if isinstance(value, dict) else value
    piece, size = [], 2
    for item in items:
        if isinstance(value, dict):
            key, val = item
            fitted = _fit(val, budget - len(dumps(key)) - 2)
            item = (key, fitted)
            item_size = len(dumps({key: fitted}))
        else:
            item = _fit(item, budget)
            if item is None:
                continue
            item_size = len(dumps(item)) + 1
        if piece and size + item_size > budget:
            yield dict(piece) if isinstance(value, dict) else piece
            piece, size = [], 2
        piece.append(item)
        size += item_size
    if piece:
        yield dict(piece) if isinstance(value, dict) else piece


def snapshot_frames(snap: dict, limit: int = FRAME_LIMIT) -> list[dict]:
    """The snapshot as frames under `limit`: the `snapshot` frame, then its `snapshot_part`s."""
    header = {"type": "snapshot", **snap, "parts": 0}
    if len(dumps(header)) + FRAME_OVERHEAD <= limit:
        return [header]
    header["cycles"] = []
    paths = [("cycles",)]
    if snap["state"] is not None:
        state = header["state"] = dict(snap["state"])
        queues = state["queues"] = dict(state.get("queues") or {})
        paths += [("state", "nodes"), ("state", "bindings"), ("state", "nominations")]
        paths += [("state", "queues", name) for name in queues]
    parts = []
    for path in paths:
        source, holder = snap, header
        for key in path[:-1]:
            source, holder = source[key], holder[key]
        value = source.get(path[-1])
        if not value:
            continue
        holder[path[-1]] = {} if isinstance(value, dict) else []
        for piece in _chunks(value, limit - FRAME_OVERHEAD):
            parts.append({"type": "snapshot_part", "path": list(path), "items": piece})
    header["parts"] = len(parts)
    return [header, *parts]


def _text_pieces(text: str, budget: int):
    """`text` (ASCII JSON) cut into pieces whose JSON string fits `budget`: quotes and
    backslashes take two characters there."""
    start = 0
    while start < len(text):
        end = min(len(text), start + budget - 2)
        while True:
            piece = text[start:end]
            over = len(piece) + piece.count('"') + piece.count("\\") + 2 - budget
            if over <= 0:
                break
            end -= (over + 1) // 2  # a character takes one or two in the frame
        yield piece
        start = end


def detail_frames(trace: dict, limit: int = FRAME_LIMIT) -> list[dict]:
    """A cycle's trace as frames under `limit`: one frame, or (thousands of nodes) a header
    with `parts` and that many `cycle_detail_part` frames whose `text`s, joined, are the
    trace's JSON. Cutting the text costs one encoding of the trace; cutting the trace into
    maps and lists cost several."""
    text = dumps(trace)
    if len(text) + FRAME_OVERHEAD <= limit:
        return [{"type": "cycle_detail", "cycle": trace}]
    index = trace.get("index")
    pieces = list(_text_pieces(text, limit - FRAME_OVERHEAD))
    return [{"type": "cycle_detail", "index": index, "parts": len(pieces)},
            *({"type": "cycle_detail_part", "index": index, "text": piece} for piece in pieces)]
