"""DynamicResources: devices for pods through resource.k8s.io/v1 ResourceClaims.

plugin.py is the plugin, allocator.py the structured-parameters allocator, pools.py the
pools it gathers (and their index), allocated.py the allocated devices (and their tracker),
outcomes.py Allocate's outcomes kept across cycles, cel.py the device selectors, objects.py the
API objects (loading, checks, the resourceclaim controller), args.py DynamicResourcesArgs.
"""
from .args import validate_args
from .plugin import DynamicResources, new

__all__ = ["DynamicResources", "new", "validate_args"]
