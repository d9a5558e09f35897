"""DefaultBinder plugin (pkg/scheduler/framework/plugins/defaultbinder)."""
from .default_binder import DefaultBinder, new

__all__ = ["DefaultBinder", "new"]
