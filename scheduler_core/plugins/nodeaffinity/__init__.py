"""NodeAffinity plugin (pkg/scheduler/framework/plugins/nodeaffinity)."""
from .node_affinity import NodeAffinity, default_args, new, validate_args

__all__ = ["NodeAffinity", "default_args", "new", "validate_args"]
