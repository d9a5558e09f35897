"""VolumeZone plugin: bound volumes' zone and region labels against the node's."""
from .volume_zone import VolumeZone, new

__all__ = ["VolumeZone", "new"]
