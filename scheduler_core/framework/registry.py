"""Plugin factories by name (framework/runtime/registry.go). The registry knows no plugin
itself: scheduler_core.plugins.registry fills it with the in-tree ones and the out-of-tree ones.

A plugin module exposes `new(args: dict, handle) -> plugin`, and optionally
`default_args(args: dict) -> dict` (fills kube-scheduler's defaults into a copy),
`validate_args(args: dict, path: str) -> list[str]` (field errors, see scheduler_core.errors)
and `ARGS_FIELDS` (the JSON fields of its args kind, as scheduler_core.config_decode describes
them: with it, the args are decoded strictly, an unknown field refused as kube-scheduler does).
Out-of-tree plugins come by dotted path ("pkg.module" or "pkg.module:factory") from settings
or from the Python entry point group `scheduler_core.plugins`.
"""
from __future__ import annotations

import importlib
from importlib.metadata import entry_points
from types import SimpleNamespace

ENTRY_POINT_GROUP = "scheduler_core.plugins"


class RegistryError(ValueError):
    pass


def _no_defaults(args: dict) -> dict:
    return dict(args or {})


def _no_errors(args: dict, path: str) -> list[str]:
    return []


def _load(path: str):
    """A plugin spec from 'pkg.module' (module with new) or 'pkg.module:factory'."""
    module_name, _, attr = path.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise RegistryError(f"cannot import plugin module {module_name!r}: {exc}") from exc
    if attr:
        target = getattr(module, attr, None)
        if target is None:
            raise RegistryError(f"{module_name!r} has no attribute {attr!r}")
        if callable(target) and not hasattr(target, "new"):
            return SimpleNamespace(new=target, default_args=_no_defaults, validate_args=_no_errors,
                                   args_fields=None)
        module = target
    return SimpleNamespace(
        new=module.new,
        default_args=getattr(module, "default_args", _no_defaults),
        validate_args=getattr(module, "validate_args", _no_errors),
        args_fields=getattr(module, "ARGS_FIELDS", None),
    )


class Registry:
    """name -> dotted path, loaded on first use so an unused plugin costs nothing."""

    def __init__(self, paths: dict[str, str] | None = None):
        self._paths = dict(paths or {})
        self._loaded: dict = {}

    def register(self, name: str, path) -> None:
        if name in self._paths:
            raise RegistryError(f'a plugin named "{name}" already exists')
        self._paths[name] = path

    def merge(self, other: dict[str, str]) -> None:
        for name, path in other.items():
            self.register(name, path)

    def load_entry_points(self) -> None:
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            self.register(ep.name, ep.value)

    def __contains__(self, name: str) -> bool:
        return name in self._paths

    def names(self) -> list[str]:
        return list(self._paths)

    def spec(self, name: str):
        if name not in self._loaded:
            path = self._paths[name]
            self._loaded[name] = _load(path) if isinstance(path, str) else path
        return self._loaded[name]

