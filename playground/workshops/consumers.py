"""The workshop socket: /ws/workshops/<code>/.

Only the workshop's trainer and attendees get past the handshake (anyone else: closed with
4403 before accept). Everyone hears the workshop's events (questions asked and revealed,
presenting another lesson, the workshop closed); the trainer also hears joins and the live
tally, an attendee hears resets of their own sandboxes and, at a reveal, whether they were
right.

An attendee follows the presenter's run read-only: the frames of the run stream
(playground.consumers.RunConsumer: snapshot, batches, cycle_detail) come through this socket,
with an open question's outcome concealed (playground.workshops.conceal) until the reveal,
when a fresh snapshot shows it. Controls are refused: to drive a run, an attendee detaches
to their own sandbox's run (/ws/runs/<id>/).

Frames: the run stream's, plus `{"type": "workshop", "event": {...}}` and `{"type":
"notice", "message": ...}`.
"""

from __future__ import annotations

import asyncio

from channels.db import database_sync_to_async

from playground import run_executor
from playground.consumers import (
    CLOSE_REFUSED,
    CONTROLS,
    FrameBatcher,
    RunConsumer,
    snapshot_frames,
)
from playground.selectors import cycle_detail
from playground.selectors import snapshot as run_snapshot
from playground.workshops import events, selectors, services
from playground.workshops.conceal import Concealer
from playground.workshops.models import Prediction

MEMBERSHIP_RECHECK = 5.0  # seconds


class WorkshopConsumer(RunConsumer):
    async def connect(self):
        self.group = self.workshop_group = None
        info = await database_sync_to_async(_membership)(
            self.scope.get("user"), self.scope["url_route"]["kwargs"]["code"])
        if info is None:
            await self.close(code=CLOSE_REFUSED)
            return
        self.workshop_id, self.attendee_id, run_id, question = info
        self.concealer = Concealer(question if self.attendee_id else None)
        self._setup_stream()
        self.workshop_group = events.group_name(self.workshop_id)
        await self.channel_layer.group_add(self.workshop_group, self.channel_name)
        await self.accept()
        await self._follow(run_id)

    def _setup_stream(self) -> None:
        # RunConsumer.connect's state, without its access check (membership is ours).
        self.run_id = None
        self.withdrawn = False
        self.checked = self.clock()  # membership was checked at connect
        self.can_control = False
        self.seq = 0
        self.cycle_mark = None
        self.batcher = FrameBatcher(max_rate=self.max_rate, max_bytes=self.frame_limit)
        self._flusher = None
        self._controls = set()
        self._send_lock = asyncio.Lock()

    async def _follow(self, run_id) -> None:
        """Follow the presenter's run `run_id` (None: nothing presented yet)."""
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)
            self.group = None
        self.run_id, self.cycle_mark = run_id, None
        if run_id is None:
            await self.send_frame({"type": "workshop", "event": {"kind": "waiting"}})
            return
        self.group = run_executor.group_name(run_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.send_snapshot()

    async def still_allowed(self) -> bool:
        """Membership, not the run's visibility, is what lets an attendee watch: checked again
        as the run stream checks access (an attendee removed, a workshop deleted: the stream
        closes), at most every MEMBERSHIP_RECHECK seconds: a room of 40 checking on every
        step would queue 40 queries on the one database thread before the frame goes out."""
        if self.withdrawn:
            return False
        now = self.clock()
        if now - self.checked < MEMBERSHIP_RECHECK:
            return True
        if not await database_sync_to_async(_still_member)(self.scope.get("user"),
                                                            self.workshop_id):
            self.withdrawn = True
            self.batcher.clear()
            await self.close(code=CLOSE_REFUSED, reason="you are no longer in this workshop")
            return False
        self.checked = now
        return True

    async def disconnect(self, code):
        if self.workshop_group is not None:
            await self.channel_layer.group_discard(self.workshop_group, self.channel_name)
        await super().disconnect(code)

    # --- the followed run, concealed ---------------------------------------------------

    async def send_snapshot(self) -> None:
        snap = await database_sync_to_async(run_snapshot)(self.run_id)
        snap = self.concealer.snapshot(snap)
        snap["run"]["canControl"] = False
        async with self._send_lock:
            self.batcher.clear()
            self.cycle_mark = snap["run"]["cycle_count"]
            for frame in snapshot_frames(snap, self.frame_limit):
                await self.send_frame(frame)

    async def run_events(self, message):
        await super().run_events({**message,
                                  "events": self.concealer.events(message["events"])})

    async def run_reset(self, message):
        if not await self.still_allowed():
            return
        await self.send_frame({"type": "notice", "message": "the presenter reset the run"})
        await self.send_snapshot()

    async def receive_json(self, content, **kwargs):
        action = content.get("action") if isinstance(content, dict) else None
        if action in CONTROLS:
            await self._error(action, "forbidden", "you follow the presenter's run: detach "
                                                   "to drive a run of your own sandbox")
            return
        await super().receive_json(content, **kwargs)

    async def _cycle_detail(self, index) -> None:
        if self.run_id is None or not isinstance(index, int) or isinstance(index, bool):
            await self._error("cycle_detail", "invalid", "index must be an integer of the "
                              "presented run", index=index)
            return
        trace = await database_sync_to_async(cycle_detail)(self.run_id, index)
        if trace is None:
            await self._error("cycle_detail", "not_found", f"no cycle {index} in this run",
                              index=index)
            return
        await self.send_frame({"type": "cycle_detail", "cycle": self.concealer.trace(trace)})

    # --- workshop events ---------------------------------------------------------------

    async def workshop_event(self, message):
        audience, event = message["audience"], message["event"]
        if audience == "trainer" and self.attendee_id is not None:
            return
        if isinstance(audience, int) and audience != self.attendee_id:
            return
        if not await self.still_allowed():
            return
        kind = event["kind"]
        if kind == "revealed" and self.attendee_id is not None:
            event = {**event, "mine": await database_sync_to_async(_mine)(
                event["question"]["id"], self.attendee_id)}
        await self.send_frame({"type": "workshop", "event": event})
        if kind == "asked" and self.attendee_id is not None:
            self.concealer = Concealer(event["question"])
        elif kind == "revealed" and self.attendee_id is not None:
            self.concealer = Concealer(None)
            if self.run_id is not None:
                await self.send_snapshot()
        elif kind == "presenting":
            await self._follow(event["run"])
        elif kind == "closed":
            await self.send_frame({"type": "notice", "message": "the workshop is closed"})


def _membership(user, code: str):
    """(workshop id, attendee id or None, presenter run id, open question) or None."""
    member = selectors.membership(user, code)
    if member is None:
        return None
    workshop = member.workshop
    lesson = workshop.current_lesson
    question = selectors.open_question(workshop)
    return (workshop.pk, None if member.is_trainer else member.attendee.pk,
            lesson.presenter_run_id if lesson else None,
            services.question_data(question) if question else None)


def _still_member(user, workshop_id: int) -> bool:
    return selectors.is_member(user, workshop_id)


def _mine(question_id: int, attendee_id: int) -> dict | None:
    prediction = Prediction.objects.filter(question_id=question_id,
                                           attendee_id=attendee_id).first()
    if prediction is None:
        return None
    return {"answer": prediction.answer, "correct": prediction.correct}
