"""Reads for profiles: the plugin catalog and a profile's short label."""

from __future__ import annotations

import copy
import functools
import hashlib
import json

from playground.engine import out_of_tree_plugins
from scheduler_core.config import DEFAULT_MULTI_POINT
from scheduler_core.framework.handle import FakeHandle
from scheduler_core.framework.interfaces import EXTENSION_POINTS
from scheduler_core.plugins.registry import default_registry


def plugin_catalog() -> tuple[dict, ...]:
    """Every registered plugin: its extension points, kube-scheduler's default args, whether
    the default profile enables it and with which score weight (as `simulate plugins`)."""
    return _plugin_catalog(tuple(sorted(out_of_tree_plugins().items())))


@functools.cache
def _plugin_catalog(out_of_tree: tuple) -> tuple[dict, ...]:
    defaults = dict(DEFAULT_MULTI_POINT)
    registry = default_registry(dict(out_of_tree))
    out = []
    for name in registry.names():
        spec = registry.spec(name)
        args = spec.default_args({})
        plugin = spec.new(copy.deepcopy(args), FakeHandle())
        out.append({
            "name": name,
            "extension_points": [p for p, iface in EXTENSION_POINTS.items()
                                 if isinstance(plugin, iface)],
            "default_args": args,
            "enabled_by_default": name in defaults,
            "default_weight": defaults.get(name),
        })
    return tuple(out)


def profile_label(config: dict | None) -> str:
    """A run's profile in a few characters: its scheduler names and a digest of its
    configuration, so two runs of one profile read the same and an edited one reads apart."""
    config = config or {}
    names = [p.get("schedulerName") or "default-scheduler"
             for p in config.get("profiles") or [{}] if isinstance(p, dict)]
    canonical = json.dumps(config, sort_keys=True, separators=(",", ":"))
    return f"{', '.join(names)} · {hashlib.sha256(canonical.encode()).hexdigest()[:8]}"
