"""DefaultBinder: binds the pod to the chosen node through the API (here, the handle)."""
from __future__ import annotations

from ...framework.cycle_state import CycleState
from ...framework.interfaces import BindPlugin
from ...framework.status import Status
from ...framework.types import PodInfo
from .. import names

NAME = names.DEFAULT_BINDER


class DefaultBinder(BindPlugin):
    NAME = NAME

    def __init__(self, handle):
        self.handle = handle

    def bind(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None:
        return self.handle.bind_pod(pod, node_name)


def new(args: dict, handle) -> DefaultBinder:
    return DefaultBinder(handle)
