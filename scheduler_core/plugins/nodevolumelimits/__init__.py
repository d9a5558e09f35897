"""NodeVolumeLimits plugin: CSI volume attach limits per node."""
from .csi import CSILimits, new

__all__ = ["CSILimits", "new"]
