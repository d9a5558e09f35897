"""The workshop socket: /ws/workshops/<code>/.

Only the workshop's trainer and attendees get past the handshake (anyone else: closed with
4403 before accept). Everyone hears the workshop's events (questions asked and revealed,
presenting another lesson, the workshop closed); the trainer also hears joins and the live
tally, an attendee hears resets of their own sandboxes and, at a reveal, whether they were
right.

An attendee follows the presenter's run read-only: the frames of the run stream
(playground.consumers.RunConsumer: snapshot, batches, cycle_detail) come through this socket,
with an open question's outcome concealed (playground.workshops.conceal) until the reveal,
when a fresh snapshot shows it. The run's batches reach the room through one relay per
process (playground.workshops.relay), which conceals and encodes each once for everyone.
Controls are refused: to drive a run, an attendee detaches to their own sandbox's run
(/ws/runs/<id>/).

Membership is checked again in the background (playground.workshops.roll_call: an attendee
removed, a workshop deleted: the stream closes), never on the way of a frame.

Frames: the run stream's, plus `{"type": "workshop", "event": {...}}` and `{"type":
"notice", "message": ...}`.
"""

from __future__ import annotations

import asyncio
import logging

from channels.db import database_sync_to_async

from playground.frames import FrameBatcher
from playground.runs.consumer import CLOSE_REFUSED, CONTROLS, RunConsumer
from playground.runs.state import snapshot as run_snapshot
from playground.workshops import events, relay, roll_call, selectors, services
from playground.workshops.conceal import Concealer
from playground.workshops.models import Prediction

logger = logging.getLogger(__name__)


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
        self._tasks = [asyncio.ensure_future(self._take_relayed())]
        roll_call.join(self.workshop_id, self)
        await self._follow(run_id)

    def _setup_stream(self) -> None:
        # RunConsumer.connect's state, without its access check (membership is ours) and
        # its run group (the relay is in it for us).
        self.run_id = None
        self.withdrawn = False
        self.can_control = False
        self.seq = 0
        self.cycle_mark = None
        self.batcher = FrameBatcher(max_rate=self.max_rate, max_bytes=self.frame_limit)
        self._flusher = None
        self._controls = set()
        self._send_lock = asyncio.Lock()
        # From the relay: (message, concealer key, concealed events, frame texts).
        self.relayed = asyncio.Queue()

    async def _follow(self, run_id) -> None:
        """Follow the presenter's run `run_id` (None: nothing presented yet)."""
        if self.run_id is not None:
            await relay.unfollow(self.run_id, self)
        self.run_id, self.cycle_mark = run_id, None
        if run_id is None:
            await self.send_frame({"type": "workshop", "event": {"kind": "waiting"}})
            return
        await relay.follow(run_id, self)
        await self.send_snapshot()

    async def still_allowed(self) -> bool:
        # Membership, not the run's visibility, lets an attendee watch; roll_call checks it.
        return not self.withdrawn

    async def disconnect(self, code):
        if self.workshop_group is None:
            return
        await self.channel_layer.group_discard(self.workshop_group, self.channel_name)
        roll_call.leave(self.workshop_id, self)
        if self.run_id is not None:
            await relay.unfollow(self.run_id, self)
        for task in [self._flusher, *self._tasks, *self._controls]:
            if task is not None:
                task.cancel()

    # --- the followed run, concealed ---------------------------------------------------

    async def read_snapshot(self) -> dict:
        snap = await relay.snapshot(self.run_id, database_sync_to_async(run_snapshot))
        # Shared with the room's other sockets: copied where this one differs.
        snap = self.concealer.snapshot(snap)
        return {**snap, "run": {**snap["run"], "canControl": False}}

    async def _take_relayed(self) -> None:
        """What the relay hands this socket, in order."""
        while True:
            item = await self.relayed.get()
            try:
                await self._relayed(*item)
            except Exception:  # this message lost; the next one's gap brings a snapshot
                logger.exception("workshop %s: could not send a relayed message",
                                 self.workshop_id)

    async def _relayed(self, message: dict, key, concealed, texts) -> None:
        if message.get("run") != self.run_id or self.withdrawn:
            return  # left behind by the lesson presented before
        if message["type"] == "run.reset":
            await self.run_reset(message)
            return
        if key != self.concealer.key:  # a question asked or revealed since the relay's
            concealed, texts = self.concealer.events(message["events"]), None
        if texts is not None and message["from"] == self.cycle_mark and not len(self.batcher):
            # The chunk right after what this socket has sent: the room's frames as is.
            async with self._send_lock:
                for text in texts:
                    self.seq += 1
                    await self.send(text_data=relay.frame_text(self.seq, text))
                self.cycle_mark = max(self.cycle_mark, message["to"])
        else:  # a gap, an overlap with the snapshot, a backlog: the run stream's rules
            await RunConsumer.run_events(self, {**message, "events": concealed})

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

    def shown_trace(self, trace: dict) -> dict:
        return self.concealer.trace(trace)

    def shown_events(self, events: list[dict]) -> list[dict]:
        return self.concealer.events(events)  # a refill of the stored cycles included

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


def _mine(question_id: int, attendee_id: int) -> dict | None:
    prediction = Prediction.objects.filter(question_id=question_id,
                                           attendee_id=attendee_id).first()
    if prediction is None:
        return None
    return {"answer": prediction.answer, "correct": prediction.correct}
