"""DefaultPreemption: preempt lower-priority pods to make room (PostFilter)."""
from .default_preemption import (
    DETAIL_STATE_KEY,
    DefaultPreemption,
    default_args,
    new,
    validate_args,
)

__all__ = ["DETAIL_STATE_KEY", "DefaultPreemption", "default_args", "new", "validate_args"]
