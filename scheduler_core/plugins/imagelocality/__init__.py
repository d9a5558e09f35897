"""ImageLocality plugin (pkg/scheduler/framework/plugins/imagelocality)."""
from .image_locality import ImageLocality, new

__all__ = ["ImageLocality", "new"]
