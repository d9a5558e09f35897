"""Who may stay on the workshop sockets, checked in the background: one check per workshop per
process every MEMBERSHIP_RECHECK seconds, one query for all of that workshop's sockets here,
never on the way of a frame. A socket whose user is no longer the trainer or an attendee (an
attendee removed, the workshop deleted) is closed with the reason.

A check per socket cost a room of 100 a query and a new database connection every 50 ms (the
server closes its connections after each use): most of the servers' CPU time per step.
"""

from __future__ import annotations

import asyncio
import logging

from channels.db import database_sync_to_async

from playground.workshops import selectors

logger = logging.getLogger(__name__)

MEMBERSHIP_RECHECK = 5.0  # seconds
REASON = "you are no longer in this workshop"

_calls: dict[int, RollCall] = {}


class RollCall:
    def __init__(self, workshop_id: int):
        self.workshop_id = workshop_id
        self.sockets: set = set()
        self.task = asyncio.ensure_future(self._run())

    def serves(self) -> bool:
        """Whether it runs on this event loop (tests make several)."""
        return not self.task.done() and self.task.get_loop() is asyncio.get_running_loop()

    async def _run(self) -> None:
        # Off the thread the sockets' other queries share (a trainer's step waits on that one).
        members = database_sync_to_async(selectors.member_user_ids, thread_sensitive=False)
        while self.sockets:
            await asyncio.sleep(MEMBERSHIP_RECHECK)
            try:
                allowed = await members(self.workshop_id)
            except Exception:  # the database is away: the next round looks again
                logger.warning("workshop %s: membership check failed", self.workshop_id,
                               exc_info=True)
                continue
            for socket in list(self.sockets):
                user = socket.scope.get("user")
                if getattr(user, "pk", None) not in allowed and not socket.withdrawn:
                    self.sockets.discard(socket)
                    await socket.withdraw(REASON)


def join(workshop_id: int, socket) -> None:
    """`socket` (a consumer with `scope`, `withdrawn` and `withdraw(reason)`) is checked with
    the others of its workshop from now on."""
    call = _calls.get(workshop_id)
    if call is None or not call.serves():
        call = _calls[workshop_id] = RollCall(workshop_id)
    call.sockets.add(socket)


def leave(workshop_id: int, socket) -> None:
    call = _calls.get(workshop_id)
    if call is None:
        return
    call.sockets.discard(socket)
    if not call.sockets:
        call.task.cancel()
        del _calls[workshop_id]
