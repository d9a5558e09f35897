"""The run stream: /ws/runs/<id>/.

A user who may see the run (playground.runs.selectors.runs_visible_to) is accepted; anyone else
is refused at the handshake. On connect the client gets a snapshot (the run row, the engine
state with at most SNAPSHOT_MAX_NODES nodes, the last cycle summaries), then batches of the
events the run's tasks send to the group `run_<id>` after each committed chunk.

Every frame is `{"type": ..., "seq": n, ...}` with n counting up from 1 on the connection, and
its JSON stays under FRAME_LIMIT bytes: a large snapshot comes as a `snapshot` frame followed
by `parts` `snapshot_part` frames (`path` names the list or map to extend), batches are cut to
size. Batches go out at most MAX_FRAMES_PER_SECOND times a second; the throttle's clock and
sleep are class attributes so tests can drive them. If the consumer sees that a message from
the tasks went missing (the channel layer drops messages when a client is slow), it sends a
the cycles it missed from the store (at most REFILL_MAX: `cycle` events marked `refilled`, and
a `refill` event naming the range, so the page can say so), then a fresh snapshot: the stream
never has a silent hole in it.

With `?state=0` in the address the snapshots leave the engine state out (`state` absent): a
client that reads it over HTTP (the run page) does not get it twice.

Client messages: `{"action": "cycle_detail", "index": i}` -> `{"type": "cycle_detail", "cycle":
<contract trace>}`; a trace too large for one frame (thousands of nodes) comes whole but in
pieces: a `cycle_detail` frame with the `index` and a count of `parts`, then that many
`cycle_detail_part` frames (`index`, `text`) whose texts, joined, are the trace's JSON;
`{"action": "step", "cycles": n}` (with `"detail": true`, the stepped cycle's trace follows its
batch unasked), `{"action": "run"}`, `{"action": "pause"}`, `{"action": "reset"}` -> `{"type":
"ack", "action": ..., "run": {...}}` or `{"type": "error", "action": ..., "code": "forbidden" |
"busy" | "conflict" | "invalid" | "not_found", "message": ...}` (with the `index` for
cycle_detail). The `run` objects use the REST API's field names (cycle_count, pods_bound,
virtual_time...) plus `busy` (a task holds the run) and, in snapshots, `canControl`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.core.exceptions import PermissionDenied

from playground.errors import InvalidInput, ServiceError
from playground.frames import (
    FRAME_LIMIT,
    MAX_FRAMES_PER_SECOND,
    FrameBatcher,
    detail_frames,
    dumps,
    snapshot_frames,
)
from playground.runs import executor, services
from playground.runs.lease import RunBusy
from playground.runs.models import Run
from playground.runs.selectors import (
    cycle_detail,
    cycle_rows,
    row_snapshot,
    run_summary,
    run_writable_by,
    runs_visible_to,
)
from playground.runs.state import snapshot
from scheduler_core.errors import InputError
from scheduler_core.safe_read import read_json

logger = logging.getLogger(__name__)

CONTROLS = ("step", "run", "start", "resume", "pause", "reset")
CLOSE_REFUSED = 4403
MAX_STEP_CYCLES = 1_000_000  # as the REST step (api.serializers.RunStepSerializer)
# A gap in the stream is refilled with at most this many stored cycles (the page's history
# reads older ones over HTTP); ROW_FIELDS name cycle_rows' columns.
REFILL_MAX = 20_000
ROW_FIELDS = ("index", "time", "pod", "outcome", "node", "preemption")
WATCH_SECONDS = 5.0  # a quiet stream checks the stored cycles this often
ACCESS_WITHDRAWN = "access withdrawn: the run is no longer visible to you"


class RunConsumer(AsyncJsonWebsocketConsumer):
    clock = staticmethod(time.monotonic)
    sleep = staticmethod(asyncio.sleep)
    max_rate = MAX_FRAMES_PER_SECOND
    frame_limit = FRAME_LIMIT
    with_state = True  # the engine state in snapshots (see connect)
    detail_for: int | None = None  # a stepped cycle whose trace goes out once committed

    async def connect(self):
        self.run_id = int(self.scope["url_route"]["kwargs"]["pk"])
        self.group = None
        self.withdrawn = False
        access, _ = await database_sync_to_async(_access)(self.scope.get("user"), self.run_id)
        if access is None:
            await self.close(code=CLOSE_REFUSED)  # before accept: the handshake is refused
            return
        self.can_control = access
        # ?state=0: the client reads the engine state over HTTP (the run page, all nodes at
        # once); its snapshots carry the run row and last cycles only.
        self.with_state = parse_qs(self.scope.get("query_string", b"").decode()).get(
            "state") != ["0"]
        self.seq = 0
        self.cycle_mark: int | None = None
        self.batcher = FrameBatcher(max_rate=self.max_rate, max_bytes=self.frame_limit)
        self._flusher: asyncio.Task | None = None
        self._controls: set[asyncio.Task] = set()  # controls and unasked traces
        self._send_lock = asyncio.Lock()
        self.group = executor.group_name(self.run_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send_snapshot()
        self._heard = time.monotonic()
        self._watcher = asyncio.ensure_future(self._watch())

    async def disconnect(self, code):
        if self.group is None:
            return
        await self.channel_layer.group_discard(self.group, self.channel_name)
        for task in [self._flusher, getattr(self, "_watcher", None), *self._controls]:
            if task is not None:
                task.cancel()

    @classmethod
    async def encode_json(cls, content):
        return dumps(content)

    async def send_frame(self, frame: dict) -> None:
        self.seq += 1
        await self.send_json({"type": frame["type"], "seq": self.seq, **frame})

    # --- snapshot and live events ---------------------------------------------------------

    async def read_snapshot(self) -> dict:
        read = snapshot if self.with_state else row_snapshot
        snap = await database_sync_to_async(read)(self.run_id)
        snap["run"]["canControl"] = self.can_control
        return snap

    async def send_snapshot(self, snap: dict | None = None) -> None:
        """A snapshot, read now unless given; the stream goes on from its cycle count."""
        snap = snap if snap is not None else await self.read_snapshot()
        async with self._send_lock:
            self.batcher.clear()
            self.cycle_mark = snap["run"]["cycle_count"]
            self.run_status = snap["run"].get("status")
            for frame in snapshot_frames(snap, self.frame_limit):
                await self.send_frame(frame)

    async def still_allowed(self) -> bool:
        """Access is checked again on every group event and every client message: a run whose
        cluster was unshared (or that was deleted) closes the stream with the reason."""
        allowed, _ = await self._recheck()
        return allowed

    async def _recheck(self, trace_of: int | None = None) -> tuple[bool, dict | None]:
        """still_allowed(), and the trace of cycle `trace_of` read on the same trip to the
        database (a stepped cycle's: one query less between the step and its detail)."""
        if self.group is None or self.withdrawn:
            return False, None
        access, trace = await database_sync_to_async(_access)(
            self.scope.get("user"), self.run_id, trace_of)
        if access is None:
            await self.withdraw(ACCESS_WITHDRAWN)
            return False, None
        self.can_control = access
        return True, trace

    async def withdraw(self, reason: str) -> None:
        """Close the stream for good, saying why (also the workshop socket's way out)."""
        self.withdrawn = True  # disconnect() leaves the group and stops the tasks
        self.batcher.clear()
        await self.close(code=CLOSE_REFUSED, reason=reason)

    async def _watch(self) -> None:
        """A message the layer dropped is seen when the next one comes; the last ones of a run
        have none after them. So a stream quiet for WATCH_SECONDS looks at the run's stored
        cycle count and refills what it has not sent."""
        while True:
            await asyncio.sleep(WATCH_SECONDS)
            # Only a run last seen running can have messages still to come.
            if self.withdrawn or self.cycle_mark is None or self.run_status != Run.RUNNING:
                continue
            if time.monotonic() - self._heard < WATCH_SECONDS:
                continue
            stored = await database_sync_to_async(_stored_cycles)(self.run_id)
            if stored is not None and stored > self.cycle_mark and await self.still_allowed():
                await self.refill(self.cycle_mark, stored)

    async def run_events(self, message):
        """A committed chunk of the run's task (see playground.runs.executor._commit_chunk)."""
        self._heard = time.monotonic()
        for event in message["events"]:
            if event.get("kind") == "progress" and event.get("status"):
                self.run_status = event["status"]
        start, end = message["from"], message["to"]
        if self.cycle_mark is None:
            return
        wanted = self.detail_for
        stepped = wanted is not None and start <= wanted < end
        if stepped:
            allowed, trace = await self._recheck(trace_of=wanted)
        else:
            allowed, trace = await self.still_allowed(), None
        if not allowed:
            return
        if start > self.cycle_mark:  # messages went missing (the layer dropped them): refill
            await self.refill(self.cycle_mark, end)
            return
        if end < self.cycle_mark or (start < end <= self.cycle_mark):
            return  # already in the snapshot
        mark = self.cycle_mark
        # A `late` cycle is an earlier one that has just finished (its pod waited on Permit).
        self.batcher.add(e for e in message["events"] if e.get("kind") != "cycle"
                         or e.get("late") or e.get("index", mark) >= mark)
        self.cycle_mark = max(mark, end)
        self._kick()
        if stepped and self.detail_for == wanted:
            self.detail_for = None
            if trace is not None:  # else the client asks on its own
                self._spawn(self._stepped_trace(trace))

    async def refill(self, start: int, end: int) -> None:
        """Send the stored cycles from `start` that the channel layer lost, then a snapshot.

        The snapshot is read first and the cycles sent reach its cycle count, not only `end`:
        a run that went on meanwhile would otherwise leave the cycles between `end` and the
        snapshot's last few (all it lists) unsent (a 100-follower drill: 182 lost)."""
        snap = await self.read_snapshot()
        end = max(end, snap["run"]["cycle_count"])
        first = max(start, end - REFILL_MAX)
        rows = await database_sync_to_async(cycle_rows)(self.run_id, first, end)
        logger.warning("run %s: stream gap, cycles %d-%d refilled from the store",
                       self.run_id, start, end - 1)
        self.batcher.add([{"kind": "refill", "from": start, "to": end, "refilled": len(rows)}]
                         + self.shown_events([{"kind": "cycle", "refilled": True,
                                               **dict(zip(ROW_FIELDS, row))} for row in rows]))
        await self._flush_now()
        await self.send_snapshot(snap)

    async def _flush_now(self) -> None:
        async with self._send_lock:
            while events := self.batcher.take(self.clock(), at_once=True):
                await self.send_frame({"type": "batch", "events": events})

    async def run_reset(self, message):
        if not await self.still_allowed():
            return
        await self.send_frame({"type": "notice", "message": "This run was reset to the start."})
        await self.send_snapshot()

    def _kick(self) -> None:
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.ensure_future(self._flush())

    async def _flush(self) -> None:
        while True:
            wait = self.batcher.delay(self.clock())
            if wait is None:
                return
            if wait > 0:
                await self.sleep(wait)
                continue
            async with self._send_lock:
                events = self.batcher.take(self.clock())
                if events:
                    await self.send_frame({"type": "batch", "events": events})

    # --- client messages --------------------------------------------------------------------

    async def receive(self, text_data=None, bytes_data=None, **kwargs):
        """A client message is a JSON object with an `action`; anything else is answered with
        an error saying what was wrong with it."""
        if text_data is None:
            await self._error(None, "invalid", "binary messages are not accepted: send a JSON "
                                               "object as text")
            return
        try:
            content = read_json(text_data, source="message")
        except InputError as exc:
            await self._error(None, "invalid", str(exc))
            return
        if not isinstance(content, dict):
            await self._error(None, "invalid", 'message: a JSON object with an "action" is '
                                               "expected")
            return
        await self.receive_json(content)

    async def receive_json(self, content, **kwargs):
        action = content.get("action") if isinstance(content, dict) else None
        if action in CONTROLS:
            if self.withdrawn:
                return
            if action == "step" and content.get("detail") is True:
                # The step's cycle is the next one: its trace follows its batch unasked.
                self.detail_for = self.cycle_mark
            # A control checks the access on its own trip to the database (_control).
            self._spawn(self._control(action, content.get("cycles")))
            return
        if not await self.still_allowed():
            return
        if action == "cycle_detail":
            await self._cycle_detail(content.get("index"))
        else:
            await self._error(action, "invalid", f"unknown action {action!r}")

    def _spawn(self, work) -> None:
        task = asyncio.ensure_future(work)
        self._controls.add(task)
        task.add_done_callback(self._controls.discard)

    async def _cycle_detail(self, index) -> None:
        if not isinstance(index, int) or isinstance(index, bool):
            await self._error("cycle_detail", "invalid", "index must be an integer", index=index)
            return
        trace = await database_sync_to_async(cycle_detail)(self.run_id, index)
        if trace is None:
            await self._error("cycle_detail", "not_found", f"no cycle {index} in this run",
                              index=index)
            return
        await self._send_trace(trace)

    async def _stepped_trace(self, trace: dict) -> None:
        """A stepped cycle's trace, unasked, after the batch that brings its summary."""
        if self._flusher is not None:
            await asyncio.wait({self._flusher})
        await self._send_trace(trace)

    async def _send_trace(self, trace: dict) -> None:
        async with self._send_lock:  # its parts go out together, not between batches
            for frame in detail_frames(self.shown_trace(trace), self.frame_limit):
                await self.send_frame(frame)

    def shown_trace(self, trace: dict) -> dict:
        """The trace as this socket shows it (the workshop socket conceals an asked cycle)."""
        return trace

    def shown_events(self, events: list[dict]) -> list[dict]:
        """Stored cycles' events as this socket shows them (as shown_trace)."""
        return events

    async def _control(self, action: str, cycles) -> None:
        try:
            summary = await database_sync_to_async(_control)(
                self.scope.get("user"), self.run_id, action, cycles)
        except Watcher:
            self.can_control = False
            await self._error(action, "forbidden", "you may watch this run but not drive it")
        except PermissionDenied as exc:
            await self._error(action, "forbidden", str(exc))
        except RunBusy as exc:
            await self._error(action, "busy", str(exc))
        except ServiceError as exc:
            code = "conflict" if exc.status_code == 409 else "invalid"
            await self._error(action, code, str(exc))
        except Run.DoesNotExist:  # deleted since the access check
            await self.withdraw(ACCESS_WITHDRAWN)
        else:
            if summary is None:
                await self.withdraw(ACCESS_WITHDRAWN)
                return
            self.can_control = True
            await self.send_frame({"type": "ack", "action": action, "run": summary})

    async def _error(self, action, code: str, message: str, **extra) -> None:
        if action == "step":  # a refused step brings no cycle
            self.detail_for = None
        await self.send_frame({"type": "error", "action": action, "code": code,
                               "message": message, **extra})


def _stored_cycles(run_id: int) -> int | None:
    return Run.objects.filter(pk=run_id).values_list("cycle_count", flat=True).first()


def _access(user, run_id: int, trace_of: int | None = None) -> tuple[bool | None, dict | None]:
    """(None: the user may not see the run, else whether they may drive it; the trace of
    cycle `trace_of` if asked for, seen, and stored)."""
    # Checked on every event and message: only the two owners, none of the run's JSON.
    run = (runs_visible_to(user).select_related("cluster").only("owner", "cluster__owner")
           .filter(pk=run_id).first())
    if run is None:
        return None, None
    trace = cycle_detail(run_id, trace_of) if trace_of is not None else None
    return run_writable_by(run, user), trace


class Watcher(PermissionDenied):
    """The user may see the run but not drive it."""


def _control(user, run_id: int, action: str, cycles) -> dict | None:
    """The run's summary after the control; None: the user may no longer see the run. The
    access is checked here, as every client message's is, on the control's own trip to the
    database (a step waits for one query less)."""
    run = runs_visible_to(user).select_related("cluster").filter(pk=run_id).first()
    if run is None:
        return None
    if not run_writable_by(run, user):
        raise Watcher()
    if action == "step":
        if cycles is None:
            cycles = 1
        if (not isinstance(cycles, int) or isinstance(cycles, bool)
                or not 1 <= cycles <= MAX_STEP_CYCLES):
            raise InvalidInput({"cycles": [f"cycles must be an integer from 1 to "
                                           f"{MAX_STEP_CYCLES:,}"]})
        run = services.run_step(run=run, user=user, cycles=cycles)
    elif action in ("run", "start", "resume"):
        run = services.run_start(run=run, user=user)
    elif action == "pause":
        run = services.run_pause(run=run, user=user)
    else:
        run = services.run_reset(run=run, user=user)
    return run_summary(run)
