"""TaintToleration plugin (pkg/scheduler/framework/plugins/tainttoleration)."""
from .taint_toleration import TaintToleration, new

__all__ = ["TaintToleration", "new"]
