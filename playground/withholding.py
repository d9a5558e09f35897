"""What an app above the data layer withholds from a user for a while: objects the user could
otherwise see that are "not found" to them meanwhile, through every page, API and socket
(they all ask runs_visible_to and clusters_visible_to).

playground.workshops registers its withholders when the app is ready: a presenter's run is
the trainer's alone (the room follows it through the workshop socket, concealed), and while a
question is open an attendee's own runs and the clusters they could run are withheld, so
that nothing they can reach shows the outcome the room is predicting.

A withholder takes the user and answers a Q of the objects to leave out, or None.
"""

from __future__ import annotations

from collections.abc import Callable

from django.db.models import Q, QuerySet

Withholder = Callable[[object], Q | None]
_withholders: dict[str, list[Withholder]] = {"run": [], "cluster": []}


def register(kind: str, withholder: Withholder) -> None:
    if withholder not in _withholders[kind]:
        _withholders[kind].append(withholder)


def withheld(user, objects: QuerySet, kind: str) -> QuerySet:
    """`objects` without what the registered withholders of `kind` keep from `user`."""
    for withholder in _withholders[kind]:
        hidden = withholder(user)
        if hidden is not None:
            objects = objects.exclude(hidden)
    return objects
