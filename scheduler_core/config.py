"""KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1): defaults, merge, validation.

The defaulting mirrors apis/config/v1/defaults.go (mergePlugins over the MultiPoint default
set); the checks mirror apis/config/validation plus the ones NewFramework makes when it builds
a profile (queue sort, bind, unknown plugins, score weight overflow).
"""
from __future__ import annotations

import copy
import functools
import inspect
from dataclasses import dataclass, field

from .config_decode import ARGS_FIELDS, SCHEME, DecodingError, strict_decoding_errors
from .config_gotypes import decoding_type_error, whole_floats_as_ints
from .errors import ConfigError, duplicate, invalid, required
from .features import DEFAULT_GATES, FeatureGates
from .framework.interfaces import EXTENSION_POINTS
from .framework.registry import Registry
from .plugins import names
from .plugins.registry import default_registry

API_VERSION = "kubescheduler.config.k8s.io/v1"
DEFAULT_SCHEDULER_NAME = "default-scheduler"
POINTS = list(EXTENSION_POINTS)

# getDefaultPlugins (apis/config/v1/default_plugins.go) before applyFeatureGates, as in v1.34:
# the list every release starts from.
DEFAULT_MULTI_POINT = [
    (names.SCHEDULING_GATES, None),
    (names.PRIORITY_SORT, None),
    (names.NODE_UNSCHEDULABLE, None),
    (names.NODE_NAME, None),
    (names.TAINT_TOLERATION, 3),
    (names.NODE_AFFINITY, 2),
    (names.NODE_PORTS, None),
    (names.NODE_RESOURCES_FIT, 1),
    (names.VOLUME_RESTRICTIONS, None),
    (names.NODE_VOLUME_LIMITS, None),
    (names.VOLUME_BINDING, None),
    (names.VOLUME_ZONE, None),
    (names.POD_TOPOLOGY_SPREAD, 2),
    (names.INTER_POD_AFFINITY, 2),
    # applyFeatureGates puts it before DefaultPreemption (DynamicResourceAllocation, GA in
    # v1.34): deallocating an idle claim beats evicting a pod that may be doing useful work.
    (names.DYNAMIC_RESOURCES, None),
    (names.DEFAULT_PREEMPTION, None),
    (names.NODE_RESOURCES_BALANCED_ALLOCATION, 1),
    (names.IMAGE_LOCALITY, 1),
    (names.DEFAULT_BINDER, None),
]


@dataclass
class PluginRef:
    name: str
    weight: int | None = None

    def to_dict(self) -> dict:
        return {"name": self.name} | ({"weight": self.weight} if self.weight is not None else {})


@dataclass
class PluginSet:
    enabled: list[PluginRef] = field(default_factory=list)
    disabled: list[str] = field(default_factory=list)


@dataclass
class Profile:
    scheduler_name: str
    plugins: dict[str, PluginSet]            # "multiPoint" and every extension point
    plugin_config: dict[str, dict]           # plugin name -> defaulted args
    percentage_of_nodes_to_score: int | None = None


@dataclass
class Configuration:
    profiles: list[Profile]
    percentage_of_nodes_to_score: int | None = None
    pod_initial_backoff_seconds: int = 1
    pod_max_backoff_seconds: int = 10
    extenders: list[dict] = field(default_factory=list)
    raw: dict = field(default_factory=dict)
    # What was accepted but not honoured (removed plugins left out), one line each.
    warnings: list[str] = field(default_factory=list)


def _plugin_set(raw: dict | None, path: str, errors: list[str]) -> PluginSet:
    raw = raw or {}
    enabled = []
    for i, p in enumerate(raw.get("enabled") or []):
        if not isinstance(p, dict) or not p.get("name"):
            errors.append(required(f"{path}.enabled[{i}].name"))
            continue
        weight = p.get("weight")
        if weight is not None and (not isinstance(weight, int) or isinstance(weight, bool)):
            errors.append(invalid(f"{path}.enabled[{i}].weight", weight, "must be an integer"))
            weight = None
        enabled.append(PluginRef(p["name"], weight))
    disabled = [p.get("name", "") for p in raw.get("disabled") or [] if isinstance(p, dict)]
    return PluginSet(enabled, disabled)


def _merge_plugin_set(default: PluginSet, custom: PluginSet) -> PluginSet:
    """mergePluginSet: defaults keep their order, re-configured ones are updated in place."""
    disabled = set(custom.disabled) | set(default.disabled)
    custom_index = {p.name: i for i, p in enumerate(custom.enabled)}
    replaced: set[int] = set()
    enabled: list[PluginRef] = []
    if "*" not in disabled:
        for plugin in default.enabled:
            if plugin.name in disabled:
                continue
            if plugin.name in custom_index:
                replaced.add(custom_index[plugin.name])
                plugin = custom.enabled[custom_index[plugin.name]]
            enabled.append(plugin)
    enabled += [p for i, p in enumerate(custom.enabled) if i not in replaced]
    return PluginSet(enabled, list(custom.disabled) + list(default.disabled))


def default_multi_point(features: FeatureGates = DEFAULT_GATES) -> list[tuple[str, int | None]]:
    """The release's default profile (getDefaultPlugins with its applyFeatureGates):
    DynamicResources only with DynamicResourceAllocation on (its Score, v1.35 on, takes the
    default weight 1); NodeDeclaredFeatures appended when its gate is on (on by default from
    v1.36), then GangScheduling when gangs are on (applyGangScheduling: its gate through v1.36,
    GenericWorkload from v1.37; off by default)."""
    plugins = list(DEFAULT_MULTI_POINT)
    if not features.enabled("DynamicResourceAllocation"):   # settable off in v1.34 only
        plugins = [(n, w) for n, w in plugins if n != names.DYNAMIC_RESOURCES]
    if features.enabled("NodeDeclaredFeatures"):
        plugins.append((names.NODE_DECLARED_FEATURES, None))
    if features.gangs:
        plugins.append((names.GANG_SCHEDULING, None))
    return plugins


def default_plugins(features: FeatureGates = DEFAULT_GATES) -> dict[str, PluginSet]:
    sets = {point: PluginSet() for point in POINTS}
    sets["multiPoint"] = PluginSet([PluginRef(n, w) for n, w in default_multi_point(features)])
    return sets


def _merge_plugins(raw_plugins: dict | None, path: str, errors: list[str],
                   features: FeatureGates) -> dict[str, PluginSet]:
    defaults = default_plugins(features)
    if raw_plugins is None:
        return defaults
    return {point: _merge_plugin_set(defaults[point],
                                     _plugin_set(raw_plugins.get(point), f"{path}.{point}", errors))
            for point in ["multiPoint", *POINTS]}


def _percentage(value, path: str, errors: list[str]) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 100:
        errors.append(invalid(path, value, "not in valid range [0-100]"))
        return None
    return value


def _with_gates(fn, features: FeatureGates):
    """fn, given the run's release and gates when it reads them (a `gates` parameter, as
    DynamicResources' validate_args): a field its gate forbids is refused with the
    configuration, not only when the plugin is built."""
    if "gates" in inspect.signature(fn).parameters:
        return functools.partial(fn, gates=features)
    return fn


def _plugin_config(raw_list, needed: list[str], registry: Registry, path: str,
                   errors: list[str], features: FeatureGates) -> dict[str, dict]:
    """Defaulted and validated args for every plugin in use (setDefaults + validatePluginConfig),
    with the gates of the run for the plugins whose args read them."""
    given: dict[str, tuple[int, dict]] = {}
    for i, pc in enumerate(raw_list or []):
        name = (pc or {}).get("name", "")
        if name in given:
            errors.append(duplicate(f"{path}[{i}]", name))
            continue
        given[name] = (i, (pc or {}).get("args") or {})
    out = {}
    for name in dict.fromkeys(needed + list(given)):
        if name not in registry:
            continue  # reported once as an unknown plugin
        spec = registry.spec(name)
        index, args = given.get(name, (None, {}))
        args_path = f"{path}[{index}].args" if index is not None else f"{path}[{name}].args"
        try:
            defaulted = _with_gates(spec.default_args, features)(copy.deepcopy(args))
        except (TypeError, ValueError, AttributeError) as exc:
            # A value the args' Go type cannot hold fails the decoding, as in Go.
            errors.append(f"decoding .{path}[{index}]: decoding args for plugin {name}: {exc}"
                          if index is not None else invalid(args_path, args, str(exc)))
            continue
        errors.extend(_with_gates(spec.validate_args, features)(defaulted, args_path))
        out[name] = defaulted
    return out


def _args_fields(registry: Registry):
    """The args fields of a plugin by name: the in-tree kinds', then a registered
    out-of-tree plugin's own (its ARGS_FIELDS), as its scheme registers them."""
    def fields(name: str) -> dict | None:
        if name in ARGS_FIELDS:
            return ARGS_FIELDS[name]
        return getattr(registry.spec(name), "args_fields", None) if name in registry else None
    return fields


def _needed_plugins(plugins: dict[str, PluginSet]) -> list[str]:
    seen = []
    for plugin_set in plugins.values():
        seen += [p.name for p in plugin_set.enabled]
    return list(dict.fromkeys(seen))


def parse_configuration(raw: dict | None, registry: Registry | None = None,
                        file: str = "", features: FeatureGates = DEFAULT_GATES,
                        duplicates: list[str] = (), *,
                        drop_removed: bool = False,
                        drop_option: str = "--drop-removed-plugins") -> Configuration:
    """A validated Configuration from a KubeSchedulerConfiguration document (None: defaults).

    The document is first decoded as kube-scheduler decodes it (scheduler_core.config_decode;
    duplicates: the reader's messages for the keys it repeats). Errors come in
    ValidateKubeSchedulerConfiguration's order (parallelism, each profile, the common queue
    sort, percentageOfNodesToScore, backoff, extenders); only a valid configuration goes on
    to NewFramework's checks, which report the first failure.
    features: the release and gates whose default profile fills in what is not configured.
    drop_removed: plugins that kube-scheduler has removed are left out, each with a warning
    (Configuration.warnings, naming drop_option, the option that asked for it), instead of
    refused; Configuration.raw is then the document without them.
    """
    registry = registry or default_registry(features=features)
    raw = whole_floats_as_ints(copy.deepcopy(
        raw or {"apiVersion": API_VERSION, "kind": "KubeSchedulerConfiguration"}))
    if raw.get("apiVersion", API_VERSION) != API_VERSION:
        raise ConfigError(f'no kind "KubeSchedulerConfiguration" is registered for version '
                          f'"{raw.get("apiVersion")}" in scheme "{SCHEME}"'
                          f"{_dropped_version_hint(raw)}", file=file)
    # A field of the wrong type fails the decoding before its strict errors are looked at.
    wrong_type = decoding_type_error(raw)
    if wrong_type:
        raise ConfigError(wrong_type, file=file)
    try:
        decoding = strict_decoding_errors(raw, duplicates, args_fields=_args_fields(registry))
    except DecodingError as exc:
        raise ConfigError(str(exc), file=file) from exc
    if decoding:
        raise ConfigError(decoding, file=file)
    dropped = _drop_removed_plugins(raw, file, drop_option) if drop_removed else []
    errors: list[str] = []
    cfg = Configuration(
        warnings=dropped,
        profiles=[],
        pod_initial_backoff_seconds=raw.get("podInitialBackoffSeconds", 1),
        pod_max_backoff_seconds=raw.get("podMaxBackoffSeconds", 10),
        extenders=list(raw.get("extenders") or []),
        raw=raw,
    )
    parallelism = raw.get("parallelism", 16)
    if not isinstance(parallelism, int) or parallelism <= 0:
        errors.append(invalid("parallelism", parallelism,
                              "should be an integer value greater than zero"))
    raw_profiles = raw.get("profiles") or [{}]
    seen_names: set[str] = set()
    for i, rp in enumerate(raw_profiles):
        path = f"profiles[{i}]"
        name = rp.get("schedulerName", DEFAULT_SCHEDULER_NAME)
        if not name:
            errors.append(required(f"{path}.schedulerName"))
        plugins = _merge_plugins(rp.get("plugins"), f"{path}.plugins", errors, features)
        percentage = _percentage(rp.get("percentageOfNodesToScore"),
                                 f"{path}.percentageOfNodesToScore", errors)
        errors.extend(_removed_plugins(rp.get("plugins"), rp.get("pluginConfig"), path))
        profile = Profile(
            scheduler_name=name,
            plugins=plugins,
            plugin_config=_plugin_config(rp.get("pluginConfig"), _needed_plugins(plugins),
                                         registry, f"{path}.pluginConfig", errors, features),
            percentage_of_nodes_to_score=percentage,
        )
        if name and name in seen_names:
            errors.append(duplicate(f"{path}.schedulerName", name))
        seen_names.add(name)
        cfg.profiles.append(profile)
    errors += _validate_common_queue_sort(cfg.profiles)
    cfg.percentage_of_nodes_to_score = _percentage(raw.get("percentageOfNodesToScore"),
                                                   "percentageOfNodesToScore", errors)
    _validate_backoff(cfg, errors)
    if not errors:
        # extenders are optional to a profile
        from .extenders.config import validate_extenders
        errors += validate_extenders(cfg.extenders)
    if not errors:
        errors += _validate_frameworks(cfg, registry)
    if not errors:
        from .extenders.config import apply_ignored_resources
        errors += apply_ignored_resources(cfg.profiles, cfg.extenders)
    if errors:
        raise ConfigError(errors, file=file)
    return cfg


# Plugins removed from the API (invalidPluginsByVersion): naming one is a validation error.
REMOVED_PLUGINS = ("AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits")
_REMOVED = f'was invalid in version "{API_VERSION}" (KubeSchedulerConfiguration is version ' \
           f'"{API_VERSION}")'
_CSI_LIMITS = "NodeVolumeLimits, in the default profile, applies the limits CSI drivers report"
# Every plugin kube-scheduler has dropped: the release that removed it and what replaces it,
# so that an old configuration (kube-scheduler-simulator's names EBSLimits) says what to do.
REMOVED_IN = {
    "AzureDiskLimits": ("v1.32", _CSI_LIMITS),
    "CinderLimits": ("v1.32", _CSI_LIMITS),
    "EBSLimits": ("v1.32", _CSI_LIMITS),
    "GCEPDLimits": ("v1.32", _CSI_LIMITS),
    "SelectorSpread": ("v1.29 (kubescheduler.config.k8s.io/v1 never had it)",
                       "use PodTopologySpread, whose default constraints spread the same pods"),
    "NodeLabel": ("v1.24", "use NodeAffinity with a node affinity term"),
    "ServiceAffinity": ("v1.24", "use InterPodAffinity with a pod affinity term"),
    "NodePreferAvoidPods": ("v1.24", "taint the node PreferNoSchedule instead"),
    "NodeResourcesLeastAllocated": ("v1.23", "use NodeResourcesFit with scoringStrategy "
                                             "LeastAllocated"),
    "NodeResourcesMostAllocated": ("v1.23", "use NodeResourcesFit with scoringStrategy "
                                            "MostAllocated"),
    "RequestedToCapacityRatio": ("v1.23", "use NodeResourcesFit with scoringStrategy "
                                          "RequestedToCapacityRatio"),
    "DefaultPodTopologySpread": ("v1.20 (renamed SelectorSpread, itself removed in v1.29)",
                                 "use PodTopologySpread with its default constraints"),
}
# Configuration versions kube-scheduler no longer reads, with the release that dropped each.
DROPPED_VERSIONS = {
    "kubescheduler.config.k8s.io/v1beta3": ("v1.29", ""),
    "kubescheduler.config.k8s.io/v1beta2": (
        "v1.28", "; mind that v1beta3 raised the default weights of TaintToleration to 3 and "
                 "of NodeAffinity, PodTopologySpread and InterPodAffinity to 2"),
}


def _dropped_version_hint(raw: dict) -> str:
    dropped = DROPPED_VERSIONS.get(raw.get("apiVersion"))
    if dropped is None:
        return ""
    release, caveat = dropped
    return (f" (kube-scheduler dropped it in {release}; apiVersion "
            f"{API_VERSION} takes the same profiles{caveat})")


def _removed_message(name: str) -> str:
    release, instead = REMOVED_IN[name]
    text = f"{_REMOVED}: " if name in REMOVED_PLUGINS else ""
    return f"{text}{name} was removed in kube-scheduler {release}; {instead}"


def _removed_refs(raw_plugins, plugin_config, path: str) -> list[tuple[str, str]]:
    """(field path, plugin name) of each removed plugin named in the configured (not
    defaulted) lists, so that a path's index is the user's own."""
    found = []
    for point in ["multiPoint", *POINTS]:
        for j, ref in enumerate(((raw_plugins or {}).get(point) or {}).get("enabled") or []):
            if _is_removed(ref):
                found.append((f"{path}.plugins.{point}.enabled[{j}]", ref["name"]))
    for i, pc in enumerate(plugin_config or []):
        if _is_removed(pc):
            found.append((f"{path}.pluginConfig[{i}]", pc["name"]))
    return found


def _removed_plugins(raw_plugins, plugin_config, path: str) -> list[str]:
    return [invalid(where, name, _removed_message(name))
            for where, name in _removed_refs(raw_plugins, plugin_config, path)]


def _drop_removed_plugins(raw: dict, file: str, option: str) -> list[str]:
    """Leave removed plugins out of every profile's lists, one warning each."""
    warnings = []
    for i, profile in enumerate(raw.get("profiles") or []):
        if not isinstance(profile, dict):
            continue
        for where, name in _removed_refs(profile.get("plugins"), profile.get("pluginConfig"),
                                         f"profiles[{i}]"):
            release, instead = REMOVED_IN[name]
            prefix = f"{file}: " if file else ""
            warnings.append(f"{prefix}KubeSchedulerConfiguration: {where}: {name} was removed "
                            f"in kube-scheduler {release}, left out ({option}); "
                            f"{instead}")
        for plugin_set in (profile.get("plugins") or {}).values():
            if isinstance(plugin_set, dict) and isinstance(plugin_set.get("enabled"), list):
                plugin_set["enabled"] = [p for p in plugin_set["enabled"]
                                         if not _is_removed(p)]
        if isinstance(profile.get("pluginConfig"), list):
            profile["pluginConfig"] = [p for p in profile["pluginConfig"] if not _is_removed(p)]
    return warnings


def _is_removed(ref) -> bool:
    return isinstance(ref, dict) and ref.get("name") in REMOVED_IN


def _go_plugin_set(ps: PluginSet) -> str:
    """A config.PluginSet as Go's %#v prints it, as in a validation error's value."""
    def plugins(refs) -> str:
        if not refs:
            return "[]config.Plugin(nil)"
        inner = ", ".join(f'config.Plugin{{Name:"{r.name}", Weight:{r.weight or 0}}}'
                          for r in refs)
        return f"[]config.Plugin{{{inner}}}"
    disabled = [PluginRef(n) for n in ps.disabled]
    return f"config.PluginSet{{Enabled:{plugins(ps.enabled)}, Disabled:{plugins(disabled)}}}"


def _validate_common_queue_sort(profiles: list[Profile]) -> list[str]:
    """validateCommonQueueSort: every profile's queueSort plugin set (as configured, before
    multiPoint expansion) must equal the first profile's."""
    errors = []
    if not profiles:
        return errors
    canon = profiles[0].plugins["queueSort"]
    if len(canon.enabled) > 1:
        errors.append(invalid("profiles[0].plugins.queueSort.Enabled", len(canon.enabled),
                              "only one queue sort plugin can be enabled"))
    key = ([(r.name, r.weight or 0) for r in canon.enabled], list(canon.disabled))
    for i, profile in enumerate(profiles[1:], start=1):
        current = profile.plugins["queueSort"]
        if ([(r.name, r.weight or 0) for r in current.enabled], list(current.disabled)) != key:
            errors.append(f"profiles[{i}].plugins.queueSort: Invalid value: "
                          f"{_go_plugin_set(current)}: must be the same for all profiles")
    return errors


def _validate_backoff(cfg: Configuration, errors: list[str]) -> None:
    initial, maximum = cfg.pod_initial_backoff_seconds, cfg.pod_max_backoff_seconds
    if not isinstance(initial, int) or initial <= 0:
        errors.append(invalid("podInitialBackoffSeconds", initial, "must be greater than 0"))
    if not isinstance(maximum, int) or (isinstance(initial, int) and maximum < initial):
        errors.append(invalid("podMaxBackoffSeconds", maximum,
                              "must be greater than or equal to PodInitialBackoffSeconds"))


def _validate_frameworks(cfg: Configuration, registry: Registry) -> list[str]:
    """The first error NewFramework or profile.NewMap meets, profile by profile: NewMap also
    wants one queue sort plugin, with the same args, in every profile."""
    from .framework.runtime import FrameworkError, expand_plugins  # runtime imports config

    first = None
    for i, profile in enumerate(cfg.profiles):
        try:
            expanded, _ = expand_plugins(profile, registry)
        except FrameworkError as exc:
            return [f"profiles[{i}]: {exc}"]
        queue_sort = expanded["queueSort"][0]
        args = profile.plugin_config.get(queue_sort)
        if first is None:
            first = (queue_sort, args)
        elif queue_sort != first[0]:
            return [f'profiles[{i}]: different queue sort plugins for profile '
                    f'"{profile.scheduler_name}": "{queue_sort}", first: "{first[0]}"']
        elif args != first[1]:
            return [f'profiles[{i}]: different queue sort plugin args for profile '
                    f'"{profile.scheduler_name}"']
    return []
