"""SchedulingGates: a pod with .spec.schedulingGates waits outside the active queue."""
from __future__ import annotations

from ...framework.interfaces import EnqueueExtensions, PreEnqueuePlugin
from ...framework.status import Status
from ...framework.types import PodInfo
from .. import names
from . import queueing_hints

NAME = names.SCHEDULING_GATES


class SchedulingGates(PreEnqueuePlugin, EnqueueExtensions):
    NAME = NAME

    def pre_enqueue(self, pod: PodInfo) -> Status | None:
        if not pod.scheduling_gates:
            return None
        # Go prints the []string of gate names with %v: [a b].
        gates = " ".join(pod.scheduling_gates)
        return Status.unresolvable(f"waiting for scheduling gates: [{gates}]")

    def events_to_register(self) -> set[str]:
        # Pod/UpdatePodSchedulingGatesEliminated: the pod's own update that removes its gates.
        return {"UnscheduledPodUpdate"}

    def queueing_hints(self) -> dict:
        return queueing_hints.for_scheduling_gates(self)


def new(args: dict, handle) -> SchedulingGates:
    return SchedulingGates()
