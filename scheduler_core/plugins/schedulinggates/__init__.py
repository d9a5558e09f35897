"""SchedulingGates plugin (pkg/scheduler/framework/plugins/schedulinggates)."""
from .scheduling_gates import SchedulingGates, new

__all__ = ["SchedulingGates", "new"]
