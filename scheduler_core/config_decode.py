"""kube-scheduler's strict decoding of a KubeSchedulerConfiguration
(kubescheduler.config.k8s.io/v1), before any defaulting or validation: unknown fields,
repeated keys, plugin args of the wrong kind, in the words kube-scheduler prints them.

The codec (apimachinery's codec.Decode) collects the strict errors of the outer object (the
YAML parser's repeated keys, then each unknown field) and those of every plugin's args
(PluginConfig.decodeNestedObjects, for the in-tree plugins that register an args kind), and
refuses the file with all of them; args of another kind stop the decoding at once.

The field names are those of the Go types (config_gotypes: k8s.io/kube-scheduler/config/v1's
types.go and types_pluginargs.go, component-base's config/v1alpha1); the core/v1 types embedded
in plugin args (TopologySpreadConstraint, NodeAffinity) are checked against the API's OpenAPI
document of the release.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import config_gotypes as gotypes
from .openapi import DEFAULT_RELEASE, field_problems

GROUP = "kubescheduler.config.k8s.io"
VERSION = f"{GROUP}/v1"
# kube-scheduler's scheme, as a "not registered" error names it.
SCHEME = "pkg/scheduler/apis/config/scheme/scheme.go:30"


@dataclass(frozen=True)
class Core:
    """A core/v1 type, its fields from the OpenAPI document."""
    definition: str


# A type's shape here: a dict of its JSON fields (each a shape, or None for a scalar), [shape]
# for a list, or Core; made from the Go types (config_gotypes). TypeMeta's apiVersion and kind
# are in every kind (CONFIGURATION, the args).
ARGS = "args"      # a plugin's args: decoded as the plugin's own kind, below
_TYPE_META = dict.fromkeys(gotypes.TYPE_META)


def _shape(go_type):
    if isinstance(go_type, gotypes.Struct):
        if go_type.openapi:
            return Core(go_type.openapi)
        return {name: _shape(t) for name, t in go_type.fields.items()}
    if isinstance(go_type, gotypes.Slice):
        return [_shape(go_type.item)]
    return ARGS if go_type == gotypes.RAW else None


ARGS_FIELDS = {name: {k: v for k, v in _shape(t).items() if k not in _TYPE_META}
               for name, t in gotypes.ARGS.items()}
CONFIGURATION = {**_TYPE_META, **_shape(gotypes.CONFIGURATION)}


class DecodingError(ValueError):
    """A configuration kube-scheduler cannot decode; str() is its message."""


def unknown_fields(value, spec, release: str = DEFAULT_RELEASE, path: str = "") -> list[str]:
    """The paths of the fields of value that its type does not have, sorted as the strict
    decoder lists them. Plugin args are not looked into (their kind decides their fields)."""
    found: list[str] = []
    pending = [(value, spec, path)]
    while pending:
        value, spec, path = pending.pop()
        if isinstance(spec, Core) and isinstance(value, dict):
            problems = field_problems(value, spec.definition, release, drop=False)
            found += [f"{path}.{p}" for p in problems.unknown]
        elif isinstance(spec, list) and isinstance(value, list):
            pending += [(v, spec[0], f"{path}[{i}]") for i, v in enumerate(value)]
        elif isinstance(spec, dict) and isinstance(value, dict):
            for key, child in value.items():
                child_path = f"{path}.{key}" if path else str(key)
                if key not in spec:
                    found.append(child_path)
                elif spec[key] is not None and spec[key] != ARGS:
                    pending.append((child, spec[key], child_path))
    return sorted(found)


def _strict(errors: list[str]) -> str:
    return "strict decoding error: " + ", ".join(errors)


ArgsFields = Callable[[str], "dict | None"]


def _args_errors(profile_index: int, index: int, plugin_config: dict, release: str,
                 args_fields: ArgsFields) -> str | None:
    """PluginConfig.decodeNestedObjects for one entry: None when it decodes cleanly, the
    strict error otherwise; args of another kind raise DecodingError."""
    name = plugin_config.get("name")
    fields = args_fields(name) if isinstance(name, str) else None
    args = plugin_config.get("args")
    if fields is None or not isinstance(args, dict):
        return None     # an out-of-tree plugin's args are the plugin's own business
    where = f"decoding .profiles[{profile_index}].pluginConfig[{index}]"
    want = f"{name}Args"
    api_version, kind = args.get("apiVersion"), args.get("kind")
    if api_version not in (None, VERSION):
        raise DecodingError(f"{where}: decoding args for plugin {name}: no kind "
                            f'"{kind or want}" is registered for version "{api_version}" in '
                            f'scheme "{SCHEME}"')
    if kind not in (None, want):
        raise DecodingError(f"{where}: args for plugin {name} were not of type {want}.{GROUP}, "
                            f"got {kind}.{GROUP}")
    unknown = unknown_fields(args, {**_TYPE_META, **fields}, release)
    if not unknown:
        return None
    fields_error = _strict([f'unknown field "{p}"' for p in unknown])
    return f"{where}: " + _strict([f"decoding args for plugin {name}: {fields_error}"])


def strict_decoding_errors(raw: dict, duplicates: list[str] = (),
                           release: str = DEFAULT_RELEASE,
                           args_fields: ArgsFields = ARGS_FIELDS.get) -> str | None:
    """kube-scheduler's error for a configuration it cannot decode strictly, or None.
    duplicates: the YAML parser's messages for keys the document repeats (Duplicate.message);
    YAML's go in one "yaml: unmarshal errors:" entry, JSON's one entry each.
    args_fields: a plugin's args fields by plugin name (None: a plugin whose args kind is
    not registered, its args left to it), as the plugins registered in the scheme give them.
    Raises DecodingError for args of the wrong kind, which stop the decoding at once."""
    errors = _duplicate_errors(list(duplicates))
    errors += [f'unknown field "{p}"' for p in unknown_fields(raw, CONFIGURATION, release)]
    for i, profile in enumerate(raw.get("profiles") or []):
        if not isinstance(profile, dict):
            continue
        for j, plugin_config in enumerate(profile.get("pluginConfig") or []):
            if isinstance(plugin_config, dict):
                nested = _args_errors(i, j, plugin_config, release, args_fields)
                errors += [nested] if nested else []
    return _strict(errors) if errors else None


def _duplicate_errors(messages: list[str]) -> list[str]:
    yaml_lines = [m for m in messages if m.startswith("line ")]
    out = [m for m in messages if not m.startswith("line ")]
    if yaml_lines:
        # The YAML decoder's one error; its lines are joined on one line here, for one
        # line on stderr (Go separates them with a newline and two spaces).
        out.insert(0, "yaml: unmarshal errors: " + " ".join(yaml_lines))
    return out
