"""The presenter's run, relayed to the room: one listener per followed run per process.

The run's task sends each committed chunk to the group run_<id> once
(playground.run_executor). If every attendee's socket were in that group, the channel layer
would copy the message once per attendee, and each socket would conceal, cut and encode the
same events again: forty times the same work per step, all of it between the trainer's step
and the last attendee's frame. Instead the workshop sockets of one process that follow a run
share a Relay: it alone is in the run's group (on a channel of its own), conceals each
message once per open question, encodes it into frames once, and hands the same texts to
every local socket, which only numbers them (`seq`) and sends them.

Each socket takes what the relay hands it in its own order (a queue per socket), so one slow
socket never holds up the others. Snapshots the room asks for at once (a reveal, the room
connecting) are read once per process too (`snapshot`).
"""

from __future__ import annotations

import asyncio
import logging
import math

from playground.frames import FrameBatcher, dumps
from playground.runs import executor as run_executor

logger = logging.getLogger(__name__)

_relays: dict[int, Relay] = {}
_reads: dict[int, asyncio.Future] = {}


def encode_frames(events: list[dict], limit: int) -> list[str]:
    """`batch` frames for `events`, under `limit` bytes, as JSON text after their `seq`:
    a socket sends '{"type":"batch","seq":N,' + text."""
    batcher = FrameBatcher(max_rate=math.inf, max_bytes=limit, max_backlog=math.inf)
    batcher.add(events)
    texts = []
    while len(batcher):
        texts.append(dumps({"events": batcher.take(math.inf)})[1:])
    return texts


def frame_text(seq: int, text: str) -> str:
    return f'{{"type":"batch","seq":{seq},{text}'


class Relay:
    def __init__(self, run_id: int, layer):
        self.run_id, self.layer = run_id, layer
        self.members: set = set()
        self.channel = None
        self.task: asyncio.Task | None = None

    def serves(self, member) -> bool:
        """Whether this relay can take `member` (not one left behind by another event loop
        or channel layer, as tests make)."""
        return (self.layer is member.channel_layer and self.task is not None
                and not self.task.done() and self.task.get_loop() is asyncio.get_running_loop())

    async def start(self) -> None:
        self.channel = await self.layer.new_channel()
        await self.layer.group_add(run_executor.group_name(self.run_id), self.channel)
        self.task = asyncio.ensure_future(self._listen())
        self.task.add_done_callback(self._ended)

    def _ended(self, task: asyncio.Task) -> None:
        if not task.cancelled() and task.exception() is not None:
            logger.error("relay of run %s stopped", self.run_id, exc_info=task.exception())

    async def stop(self) -> None:
        self.task.cancel()
        await self.layer.group_discard(run_executor.group_name(self.run_id), self.channel)

    async def _listen(self) -> None:
        while True:
            message = await self.layer.receive(self.channel)
            try:
                self.dispatch(message)
            except Exception:  # one bad message must not end the room's stream
                logger.exception("relay of run %s: could not relay %s", self.run_id,
                                 message.get("type"))

    def dispatch(self, message: dict) -> None:
        """Conceal and encode once per kind of viewer, then queue for each socket."""
        kind = message.get("type")
        shared: dict = {}
        for member in list(self.members):
            if kind == "run.events":
                key = member.concealer.key
                if key not in shared:
                    events = member.concealer.events(message["events"])
                    shared[key] = (events, encode_frames(events, member.frame_limit))
                member.relayed.put_nowait((message, key, *shared[key]))
            elif kind == "run.reset":
                member.relayed.put_nowait((message, None, None, None))


async def follow(run_id: int, member) -> None:
    """`member` (a workshop socket with `concealer`, `frame_limit` and a `relayed` queue)
    hears run_id's messages from now on."""
    relay = _relays.get(run_id)
    if relay is None or (relay.task is not None and not relay.serves(member)):
        relay = _relays[run_id] = Relay(run_id, member.channel_layer)
        relay.members.add(member)
        await relay.start()
    else:
        relay.members.add(member)


async def unfollow(run_id: int, member) -> None:
    relay = _relays.get(run_id)
    if relay is None or member not in relay.members:
        return
    relay.members.discard(member)
    if not relay.members:
        del _relays[run_id]
        await relay.stop()


async def snapshot(run_id: int, read) -> dict:
    """The run's snapshot (`read(run_id)`, a coroutine), read once for all the sockets of this
    process that ask while it is being read: at a reveal the whole room asks at once."""
    pending = _reads.get(run_id)
    if pending is None or pending.get_loop() is not asyncio.get_running_loop():
        pending = _reads[run_id] = asyncio.ensure_future(read(run_id))
        pending.add_done_callback(lambda done: _reads.pop(run_id, None)
                                  if _reads.get(run_id) is done else None)
    # Shielded: one socket closing mid-read must not cancel the others' read.
    return await asyncio.shield(pending)
