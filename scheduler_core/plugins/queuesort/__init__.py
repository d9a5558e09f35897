"""PrioritySort plugin (pkg/scheduler/framework/plugins/queuesort)."""
from .priority_sort import PrioritySort, new

__all__ = ["PrioritySort", "new"]
