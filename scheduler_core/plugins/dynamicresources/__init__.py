"""DynamicResources: devices for pods through resource.k8s.io/v1 ResourceClaims.

plugin.py is the plugin, allocator.py the structured-parameters allocator, cel.py the device
selectors, objects.py the API objects (loading, checks, the resourceclaim controller), args.py
DynamicResourcesArgs.
"""
from .args import validate_args
from .plugin import DynamicResources, new

__all__ = ["DynamicResources", "new", "validate_args"]
