"""PrioritySort: the active queue's order, higher priority first, then first come."""
from __future__ import annotations

from ...framework.interfaces import QueueSortPlugin
from .. import names

NAME = names.PRIORITY_SORT


class PrioritySort(QueueSortPlugin):
    NAME = NAME

    def less(self, a, b) -> bool:
        """a and b are QueuedPodInfo; True when a goes ahead of b."""
        p1, p2 = a.pod.priority, b.pod.priority
        if p1 != p2:
            return p1 > p2
        if a.timestamp != b.timestamp:
            return a.timestamp < b.timestamp
        # Equal timestamps are ordered by arrival so runs are deterministic.
        return a.seq < b.seq


def new(args: dict, handle) -> PrioritySort:
    return PrioritySort()
