"""SchedulingGates' QueueingHint (schedulinggates/scheduling_gates.go)."""
from __future__ import annotations

from ...framework.queueing_hint import QUEUE, QUEUE_SKIP


def for_scheduling_gates(plugin) -> dict:
    """Pod/UpdatePodSchedulingGatesEliminated."""
    return {"UnscheduledPodUpdate": is_schedulable_after_gates_eliminated}


def is_schedulable_after_gates_eliminated(pod, old_pod, new_pod) -> str:
    """Only the pod's own update can lift its gates."""
    return QUEUE if new_pod.uid == pod.uid else QUEUE_SKIP
