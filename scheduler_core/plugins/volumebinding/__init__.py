"""VolumeBinding plugin: PVC binding and provisioning decisions in the scheduling cycle."""
from .volume_binding import VolumeBinding, default_args, new, validate_args

__all__ = ["VolumeBinding", "default_args", "new", "validate_args"]
