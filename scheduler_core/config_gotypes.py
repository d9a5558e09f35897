"""The Go types a KubeSchedulerConfiguration decodes into, and the type errors of that decoding
in encoding/json's words (kube-scheduler decodes with sigs.k8s.io/json, a fork of it).

A value of the wrong JSON kind is an UnmarshalTypeError: "json: cannot unmarshal string into Go
struct field KubeSchedulerConfiguration.percentageOfNodesToScore of type int32". The struct is
the one holding the field (reflect's Name()), the field the path of JSON names from the top
without list indexes (errorContext.FieldStack), the type the field's Go type without its
pointer (reflect's String()). A number an integer field cannot hold is "number 50.5" or
"number 3000000000". The decoder keeps the first such error and goes on; a metav1.Duration's
own UnmarshalJSON stops it at once with an error that names no field ("json: cannot unmarshal
number into Go value of type string", time.ParseDuration's "time: missing unit in duration").

Types come from k8s.io/kube-scheduler/config/v1 (types.go, types_pluginargs.go),
component-base's config/v1alpha1 and k8s.io/api/core/v1 for the core types plugin args hold.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from .durations import parse_go_duration
from .errors import json_kind


@dataclass(frozen=True)
class Scalar:
    kind: str          # "int", "float", "string", "bool", "bytes"
    go: str            # reflect's String(): int32, v1.ScoringStrategyType, []uint8
    bits: int = 64


@dataclass(frozen=True)
class Struct:
    go: str            # package.Name
    fields: dict = field(hash=False)
    openapi: str = ""  # a core type: its definition in the API's OpenAPI document


@dataclass(frozen=True)
class Slice:
    item: object

    @property
    def go(self) -> str:
        return "[]" + self.item.go


@dataclass(frozen=True)
class Map:
    value: object
    go: str = "map[string]string"


DURATION = "metav1.Duration"   # its UnmarshalJSON reads a string and time.ParseDuration
RAW = "runtime.RawExtension"   # any JSON: a plugin's args, decoded on their own afterwards

INT32, INT64 = Scalar("int", "int32", 32), Scalar("int", "int64", 64)
FLOAT32 = Scalar("float", "float32", 32)
STRING, BOOL, BYTES = Scalar("string", "string"), Scalar("bool", "bool"), Scalar("bytes",
                                                                                "[]uint8")
STRINGS = Slice(STRING)


def _string(go: str) -> Scalar:
    return Scalar("string", go)


_PLUGIN = Struct("v1.Plugin", {"name": STRING, "weight": INT32})
_PLUGIN_SET = Struct("v1.PluginSet", {"enabled": Slice(_PLUGIN), "disabled": Slice(_PLUGIN)})
_POINTS = ("preEnqueue", "queueSort", "preFilter", "filter", "postFilter", "preScore", "score",
           "reserve", "permit", "preBind", "bind", "postBind", "multiPoint")
_PROFILE = Struct("v1.KubeSchedulerProfile", {
    "schedulerName": STRING, "percentageOfNodesToScore": INT32,
    "plugins": Struct("v1.Plugins", dict.fromkeys(_POINTS, _PLUGIN_SET)),
    "pluginConfig": Slice(Struct("v1.PluginConfig", {"name": STRING, "args": RAW}))})
_EXTENDER = Struct("v1.Extender", {
    "urlPrefix": STRING, "filterVerb": STRING, "preemptVerb": STRING, "prioritizeVerb": STRING,
    "weight": INT64, "bindVerb": STRING, "enableHTTPS": BOOL,
    "tlsConfig": Struct("v1.ExtenderTLSConfig", {
        "insecure": BOOL, "serverName": STRING, "certFile": STRING, "keyFile": STRING,
        "caFile": STRING, "certData": BYTES, "keyData": BYTES, "caData": BYTES}),
    "httpTimeout": DURATION, "nodeCacheCapable": BOOL,
    "managedResources": Slice(Struct("v1.ExtenderManagedResource",
                                     {"name": STRING, "ignoredByScheduler": BOOL})),
    "ignorable": BOOL})

CONFIGURATION = Struct("v1.KubeSchedulerConfiguration", {
    "parallelism": INT32,
    "leaderElection": Struct("v1alpha1.LeaderElectionConfiguration", {
        "leaderElect": BOOL, "leaseDuration": DURATION, "renewDeadline": DURATION,
        "retryPeriod": DURATION, "resourceLock": STRING, "resourceName": STRING,
        "resourceNamespace": STRING}),
    "clientConnection": Struct("v1alpha1.ClientConnectionConfiguration", {
        "kubeconfig": STRING, "acceptContentTypes": STRING, "contentType": STRING,
        "qps": FLOAT32, "burst": INT32}),
    "enableProfiling": BOOL, "enableContentionProfiling": BOOL,
    "percentageOfNodesToScore": INT32,
    "podInitialBackoffSeconds": INT64, "podMaxBackoffSeconds": INT64,
    "profiles": Slice(_PROFILE), "extenders": Slice(_EXTENDER),
    "delayCacheUntilActive": BOOL,
})

# core/v1 and meta/v1 types held by plugin args.
_LABEL_SELECTOR = Struct("v1.LabelSelector", {
    "matchLabels": Map(STRING),
    "matchExpressions": Slice(Struct("v1.LabelSelectorRequirement", {
        "key": STRING, "operator": _string("v1.LabelSelectorOperator"), "values": STRINGS}))})
_NODE_SELECTOR_TERM = Struct("v1.NodeSelectorTerm", dict.fromkeys(
    ("matchExpressions", "matchFields"),
    Slice(Struct("v1.NodeSelectorRequirement", {
        "key": STRING, "operator": _string("v1.NodeSelectorOperator"), "values": STRINGS}))))
_NODE_AFFINITY = Struct("v1.NodeAffinity", {
    "requiredDuringSchedulingIgnoredDuringExecution": Struct(
        "v1.NodeSelector", {"nodeSelectorTerms": Slice(_NODE_SELECTOR_TERM)}),
    "preferredDuringSchedulingIgnoredDuringExecution": Slice(Struct(
        "v1.PreferredSchedulingTerm", {"weight": INT32, "preference": _NODE_SELECTOR_TERM}))},
    openapi="io.k8s.api.core.v1.NodeAffinity")
_TOPOLOGY_SPREAD_CONSTRAINT = Struct("v1.TopologySpreadConstraint", {
    "maxSkew": INT32, "topologyKey": STRING,
    "whenUnsatisfiable": _string("v1.UnsatisfiableConstraintAction"),
    "labelSelector": _LABEL_SELECTOR, "minDomains": INT32,
    "nodeAffinityPolicy": _string("v1.NodeInclusionPolicy"),
    "nodeTaintsPolicy": _string("v1.NodeInclusionPolicy"), "matchLabelKeys": STRINGS},
    openapi="io.k8s.api.core.v1.TopologySpreadConstraint")

_RESOURCE_SPEC = Slice(Struct("v1.ResourceSpec", {"name": STRING, "weight": INT64}))
_SHAPE = Slice(Struct("v1.UtilizationShapePoint", {"utilization": INT32, "score": INT32}))
TYPE_META = {"apiVersion": STRING, "kind": STRING}
ARGS = {name: Struct(f"v1.{name}Args", {**TYPE_META, **fields}) for name, fields in {
    "DefaultPreemption": {"minCandidateNodesPercentage": INT32,
                          "minCandidateNodesAbsolute": INT32},
    "InterPodAffinity": {"hardPodAffinityWeight": INT32,
                         "ignorePreferredTermsOfExistingPods": BOOL},
    "NodeResourcesFit": {
        "ignoredResources": STRINGS, "ignoredResourceGroups": STRINGS,
        "scoringStrategy": Struct("v1.ScoringStrategy", {
            "type": _string("v1.ScoringStrategyType"), "resources": _RESOURCE_SPEC,
            "requestedToCapacityRatio": Struct("v1.RequestedToCapacityRatioParam",
                                               {"shape": _SHAPE})})},
    "PodTopologySpread": {"defaultConstraints": Slice(_TOPOLOGY_SPREAD_CONSTRAINT),
                          "defaultingType": _string("v1.PodTopologySpreadConstraintsDefaulting")},
    "NodeResourcesBalancedAllocation": {"resources": _RESOURCE_SPEC},
    "VolumeBinding": {"bindTimeoutSeconds": INT64, "shape": _SHAPE},
    "NodeAffinity": {"addedAffinity": _NODE_AFFINITY},
    "DynamicResources": {"filterTimeout": DURATION, "bindingTimeout": DURATION},
}.items()}


class Stop(Exception):
    """An error that stops the decoding where it happens (a Duration's UnmarshalJSON)."""


def _number_text(value) -> str:
    """The number as the YAML-to-JSON conversion writes it (a whole float as an integer)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return repr(value) if isinstance(value, float) else str(value)


def _scalar_fits(value, scalar: Scalar) -> str | None:
    """None when value decodes into scalar, else the error's Value ("string", "number 1.5")."""
    kind = json_kind(value)
    if scalar.kind in ("string", "bytes"):
        return None if kind == "string" else kind
    if scalar.kind == "bool":
        return None if kind == "bool" else kind
    if kind != "number":
        return kind
    text = _number_text(value)
    if scalar.kind == "float":
        limit = 3.4028234663852886e38 if scalar.bits == 32 else math.inf
        return None if abs(float(value)) <= limit else f"number {text}"
    if "." in text or "e" in text or "inf" in text or "nan" in text:
        return f"number {text}"
    low, high = -(2 ** (scalar.bits - 1)), 2 ** (scalar.bits - 1) - 1
    return None if low <= int(text) <= high else f"number {text}"


def _message(got: str, go_type: str, struct: str | None, stack: list[str]) -> str:
    if struct is None and not stack:
        return f"json: cannot unmarshal {got} into Go value of type {go_type}"
    name = struct.rsplit(".", 1)[-1] if struct else ""
    return (f"json: cannot unmarshal {got} into Go struct field {name}.{'.'.join(stack)} "
            f"of type {go_type}")


def first_type_error(value, go_type, struct: str | None = None) -> str | None:
    """The error json.Unmarshal gives for value into go_type, or None; the walk follows the
    document's order, as the decoder reads it, and keeps the first error."""
    first: list[str] = []
    try:
        _walk(value, go_type, struct, [], first)
    except Stop as exc:
        return str(exc)
    return first[0] if first else None


def _walk(value, go_type, struct, stack: list[str], first: list[str]) -> None:
    if value is None or go_type == RAW:
        return                       # null leaves a field as it is; raw takes anything
    if go_type == DURATION:
        if not isinstance(value, str):
            raise Stop(f"json: cannot unmarshal {json_kind(value)} into Go value of type "
                       "string")
        try:
            parse_go_duration(value)
        except ValueError as exc:
            raise Stop(str(exc)) from exc
        return
    if isinstance(go_type, Scalar):
        got = _scalar_fits(value, go_type)
        if got is not None and not first:
            first.append(_message(got, go_type.go, struct, stack))
        return
    wanted = "array" if isinstance(go_type, Slice) else "object"
    if json_kind(value) != wanted:
        if not first:
            first.append(_message(json_kind(value), go_type.go, struct, stack))
        return
    if isinstance(go_type, Slice):
        for item in value:
            _walk(item, go_type.item, struct, stack, first)
    elif isinstance(go_type, Map):
        for item in value.values():
            _walk(item, go_type.value, struct, stack, first)
    else:
        for key, item in value.items():
            if key in go_type.fields:     # case-sensitive; unknown fields are strict errors
                _walk(item, go_type.fields[key], go_type.go, [*stack, key], first)


def whole_floats_as_ints(value):
    """value with every whole float an integer, as sigs.k8s.io/yaml's YAMLToJSON hands YAML's
    `50.0` to the decoder as JSON 50 (so an int32 field takes it)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        return int(value)
    if isinstance(value, list):
        return [whole_floats_as_ints(v) for v in value]
    if isinstance(value, dict):
        return {k: whole_floats_as_ints(v) for k, v in value.items()}
    return value


def decoding_type_error(raw: dict) -> str | None:
    """The type error that fails kube-scheduler's decoding of raw, or None: the outer
    object's first, then the first of the in-tree plugins' args in order
    (KubeSchedulerConfiguration.DecodeNestedObjects stops at the first)."""
    outer = first_type_error(raw, CONFIGURATION)
    if outer:
        return outer
    for i, profile in enumerate(raw.get("profiles") or []):
        for j, plugin_config in enumerate((profile or {}).get("pluginConfig") or []):
            name = (plugin_config or {}).get("name")
            args = (plugin_config or {}).get("args")
            if name not in ARGS or not isinstance(args, dict):
                continue
            error = first_type_error(args, ARGS[name])
            if error:
                return (f"decoding .profiles[{i}].pluginConfig[{j}]: decoding args for plugin "
                        f"{name}: {error}")
    return None
