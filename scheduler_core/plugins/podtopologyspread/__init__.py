"""PodTopologySpread: spread matching pods over topology domains (PreFilter, Filter, PreScore,
Score, NormalizeScore)."""
from .plugin import PodTopologySpread, new
from .validation import default_args, validate_args

__all__ = ["PodTopologySpread", "default_args", "new", "validate_args"]
