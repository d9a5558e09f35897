"""InterPodAffinity: required and preferred inter-pod affinity and anti-affinity."""
from .plugin import InterPodAffinity, default_args, new, validate_args

__all__ = ["InterPodAffinity", "default_args", "new", "validate_args"]
