"""What the workshop socket hears: one channel-layer group per workshop.

Services call `notify` inside their transaction; the message goes out only once it has
committed, so a client never hears of a question, a tally or a reset the database does not
have. `audience` says who may see an event: "all", "trainer", or an attendee's id.
"""

from __future__ import annotations

import logging

from django.db import transaction

from playground import tasking

logger = logging.getLogger(__name__)


def group_name(workshop_id: int) -> str:
    return f"workshop_{workshop_id}"


def notify(workshop_id: int, event: dict, *, audience="all") -> None:
    message = {"type": "workshop.event", "audience": audience, "event": event}
    transaction.on_commit(lambda: _send(workshop_id, message))


def _send(workshop_id: int, message: dict) -> None:
    try:
        tasking.group_send(group_name(workshop_id), message)
    except Exception:  # best effort: the rows are the record, a reconnect re-reads them
        logger.exception("workshop %s: could not send to the channel layer", workshop_id)
