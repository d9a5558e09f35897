"""QueueingHint: whether a cluster event may make schedulable a pod a plugin rejected.

A plugin that implements `queueing_hints()` returns {event name: hint function or None}; the
function is called as fn(pod, old, new) with the pod in the unschedulable pool (a PodInfo) and
the event's old and new object (PodInfos for pod events, manifests for the rest; None for an
add's old or a delete's new), and returns QUEUE or QUEUE_SKIP. None stands for Go's nil
QueueingHintFn: the event always queues the pod. A plugin with only `events_to_register()` gets
None for each of its events, and a plugin with neither is woken by every event ("*").
"""
from __future__ import annotations

from .interfaces import EnqueueExtensions

QUEUE = "Queue"
QUEUE_SKIP = "QueueSkip"
ANY_EVENT = "*"


def registered_hints(plugin) -> dict:
    """The plugin's {event: hint function or None}, as EventsToRegister gives them."""
    hints = getattr(plugin, "queueing_hints", None)
    if hints is not None:
        return hints()
    if isinstance(plugin, EnqueueExtensions):
        return dict.fromkeys(plugin.events_to_register())
    return {ANY_EVENT: None}
