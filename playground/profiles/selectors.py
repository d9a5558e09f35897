"""Reads for profiles: the plugin catalog, what each profile runs at each extension point
(the engine's own expansion, so the editor's preview never disagrees with a run) and a
profile's short label."""

from __future__ import annotations

import copy
import functools
import hashlib
import json

from playground.engine import out_of_tree_plugins, scheduler_registry
from scheduler_core.config import default_multi_point, parse_configuration
from scheduler_core.errors import ConfigError, InputError
from scheduler_core.features import DEFAULT_GATES, FeatureGates
from scheduler_core.framework.handle import FakeHandle
from scheduler_core.framework.interfaces import EXTENSION_POINTS
from scheduler_core.framework.runtime import FrameworkError, expand_plugins
from scheduler_core.plugins.registry import default_registry


def plugin_catalog() -> tuple[dict, ...]:
    """Every registered plugin: its extension points, kube-scheduler's default args, whether
    the default profile enables it and with which score weight (as `simulate plugins`)."""
    return _plugin_catalog(tuple(sorted(out_of_tree_plugins().items())))


@functools.cache
def _plugin_catalog(out_of_tree: tuple) -> tuple[dict, ...]:
    defaults = dict(default_multi_point())   # the newest release's default profile
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


def expand_profiles(config: dict | None, features: FeatureGates = DEFAULT_GATES) -> dict:
    """What each profile runs at each extension point, or kube-scheduler's messages, under
    the release and gates `features` (its default profile, its plugins)."""
    registry = scheduler_registry(features)
    try:
        cfg = parse_configuration(config, registry, features=features)
    except ConfigError as exc:
        return {"ok": False, "errors": exc.errors}
    except InputError as exc:
        return {"ok": False, "errors": [str(exc)]}
    profiles = []
    for i, profile in enumerate(cfg.profiles):
        try:
            points, weights = expand_plugins(profile, registry)
        except FrameworkError as exc:
            return {"ok": False, "errors": [f"profiles[{i}]: {exc}"]}
        profiles.append({"schedulerName": profile.scheduler_name, "points": points,
                         "weights": weights, "pluginConfig": profile.plugin_config})
    return {"ok": True, "errors": [], "profiles": profiles}
