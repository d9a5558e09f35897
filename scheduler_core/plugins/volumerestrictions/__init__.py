"""VolumeRestrictions plugin: in-tree disk conflicts and ReadWriteOncePod claims."""
from .volume_restrictions import VolumeRestrictions, new

__all__ = ["VolumeRestrictions", "new"]
