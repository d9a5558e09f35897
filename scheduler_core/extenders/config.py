"""KubeSchedulerConfiguration.extenders: decoding, validation and the NodeResourcesFit wiring.

validate_extenders mirrors apis/config/validation.validateExtenders (same messages, same
order), preceded by the type checks kube-scheduler's strict decoder makes. apply_ignored_resources
is the second half of scheduler.go's buildExtenders: the managed resources marked
ignoredByScheduler replace NodeResourcesFit's ignoredResources in every profile.
"""
from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

from ..durations import parse_go_duration
from ..errors import invalid, is_int, required
from ..plugins import names
from ..plugins.noderesources.resource_allocation import is_extended_resource_name
from ..validation import is_qualified_name

# extender.go's DefaultExtenderTimeout, used when httpTimeout is unset or zero.
DEFAULT_EXTENDER_TIMEOUT = 5.0

_STRING_FIELDS = ("urlPrefix", "filterVerb", "prioritizeVerb", "preemptVerb", "bindVerb")
_BOOL_FIELDS = ("enableHTTPS", "nodeCacheCapable", "ignorable")
_TLS_STRING_FIELDS = ("serverName", "certFile", "keyFile", "caFile")
_TLS_DATA_FIELDS = ("certData", "keyData", "caData")


@dataclass(frozen=True)
class ManagedResource:
    name: str
    ignored_by_scheduler: bool = False


@dataclass(frozen=True)
class TLSConfig:
    """ExtenderTLSConfig; the *Data fields are decoded from base64 (Go's []byte in JSON)."""

    insecure: bool = False
    server_name: str = ""
    cert_file: str = ""
    key_file: str = ""
    ca_file: str = ""
    cert_data: bytes = b""
    key_data: bytes = b""
    ca_data: bytes = b""

    def has_ca(self) -> bool:
        return bool(self.ca_file or self.ca_data)


@dataclass(frozen=True)
class ExtenderConfig:
    url_prefix: str
    filter_verb: str = ""
    prioritize_verb: str = ""
    preempt_verb: str = ""
    bind_verb: str = ""
    weight: int = 0
    enable_https: bool = False
    tls: TLSConfig | None = None
    # Seconds; None means no deadline at all (a negative Go duration).
    http_timeout: float | None = DEFAULT_EXTENDER_TIMEOUT
    node_cache_capable: bool = False
    managed_resources: tuple[ManagedResource, ...] = ()
    ignorable: bool = False


def timeout_seconds(value) -> float | None:
    """httpTimeout as the client uses it: unset or zero -> the 5s default, negative -> none.

    A Go duration string is what kube-scheduler reads; a bare number is taken as seconds here
    (a convenience of the playground, Go's decoder would reject it).
    """
    if value is None:
        return DEFAULT_EXTENDER_TIMEOUT
    seconds = parse_go_duration(value) if isinstance(value, str) else float(value)
    if seconds == 0:
        return DEFAULT_EXTENDER_TIMEOUT
    return None if seconds < 0 else seconds


# --- decoding ----------------------------------------------------------------------------------
def _decode_strings(raw: dict, keys, path: str, errors: list[str], values: dict) -> None:
    """The string fields among keys into values (snake_case), "" for a missing or bad one."""
    for key in keys:
        value = raw.get(key) or ""
        if not isinstance(value, str):
            errors.append(invalid(f"{path}.{key}", value, "must be a string"))
            value = ""
        values[_snake(key)] = value


def _decode_tls(raw, path: str, errors: list[str]) -> TLSConfig | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        errors.append(invalid(path, raw, "must be an object"))
        return None
    values: dict = {}
    insecure = raw.get("insecure") or False
    if not isinstance(insecure, bool):
        errors.append(invalid(f"{path}.insecure", insecure, "must be a boolean"))
    values["insecure"] = insecure is True
    _decode_strings(raw, _TLS_STRING_FIELDS, path, errors, values)
    for key in _TLS_DATA_FIELDS:
        value = raw.get(key) or ""
        try:
            values[_snake(key)] = base64.b64decode(value, validate=True) if value else b""
        except (binascii.Error, TypeError, ValueError):
            errors.append(invalid(f"{path}.{key}", "<data>",
                                  "must be base64-encoded (a []byte field in JSON)"))
            values[_snake(key)] = b""
    return TLSConfig(**values)


def _snake(key: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", key).lower()


def decode_extender(raw, path: str, errors: list[str]) -> ExtenderConfig | None:
    """One extenders[i] entry, with a field error for every value of the wrong type."""
    if not isinstance(raw, dict):
        errors.append(invalid(path, raw, "must be an object"))
        return None
    values: dict = {}
    _decode_strings(raw, _STRING_FIELDS, path, errors, values)
    if not values["url_prefix"]:
        # Go accepts an empty prefix and fails on every call; the playground says so up front.
        errors.append(required(f"{path}.urlPrefix"))
    for key in _BOOL_FIELDS:
        value = raw.get(key) or False
        if not isinstance(value, bool):
            errors.append(invalid(f"{path}.{key}", value, "must be a boolean"))
            value = False
        values["enable_https" if key == "enableHTTPS" else _snake(key)] = value
    weight = raw.get("weight", 0)
    if weight is None:
        weight = 0
    if not is_int(weight):
        errors.append(invalid(f"{path}.weight", weight, "must be an integer"))
        weight = 0
    values["weight"] = weight
    values["tls"] = _decode_tls(raw.get("tlsConfig"), f"{path}.tlsConfig", errors)
    try:
        timeout = raw.get("httpTimeout")
        if timeout is not None and (isinstance(timeout, bool)
                                    or not isinstance(timeout, str | int | float)):
            raise ValueError("must be a duration such as \"5s\" or a number of seconds")
        values["http_timeout"] = timeout_seconds(timeout)
    except ValueError as exc:
        errors.append(invalid(f"{path}.httpTimeout", raw.get("httpTimeout"), str(exc)))
    resources = []
    raw_resources = raw.get("managedResources") or []
    if not isinstance(raw_resources, list):
        errors.append(invalid(f"{path}.managedResources", raw_resources, "must be a list"))
        raw_resources = []
    for j, res in enumerate(raw_resources):
        rpath = f"{path}.managedResources[{j}]"
        if not isinstance(res, dict):
            errors.append(invalid(rpath, res, "must be an object"))
            continue
        name = res.get("name") or ""
        if not isinstance(name, str):
            errors.append(invalid(f"{rpath}.name", name, "must be a string"))
            name = ""
        ignored = res.get("ignoredByScheduler") or False
        if not isinstance(ignored, bool):
            errors.append(invalid(f"{rpath}.ignoredByScheduler", ignored, "must be a boolean"))
            ignored = False
        resources.append(ManagedResource(name, ignored))
    values["managed_resources"] = tuple(resources)
    return ExtenderConfig(**values)


# --- validation --------------------------------------------------------------------------------
def _extended_resource_name_errors(path: str, name: str) -> list[str]:
    """validateExtendedResourceName."""
    errs = [invalid(path, name, msg) for msg in is_qualified_name(name)]
    if errs:
        return errs
    if not is_extended_resource_name(name):
        return [invalid(path, name, "is an invalid extended resource name")]
    return []


def validate_extenders(extenders: list) -> list[str]:
    """Decoding errors, then validateExtenders' own checks, with kube-scheduler's messages."""
    errors: list[str] = []
    if not isinstance(extenders, list):
        return [invalid("extenders", extenders, "must be a list")]
    binders = 0
    managed: set[str] = set()
    for i, raw in enumerate(extenders):
        path = f"extenders[{i}]"
        ext = decode_extender(raw, path, errors)
        if ext is None:
            continue
        if ext.prioritize_verb and ext.weight <= 0:
            errors.append(invalid(f"{path}.weight", ext.weight,
                                  "must have a positive weight applied to it"))
        if ext.bind_verb:
            binders += 1
        for j, res in enumerate(ext.managed_resources):
            name_path = f"{path}.managedResources[{j}].name"
            errors += _extended_resource_name_errors(name_path, res.name)
            if res.name in managed:
                errors.append(invalid(name_path, res.name,
                                      "duplicate extender managed resource name"))
            managed.add(res.name)
    if binders > 1:
        errors.append(invalid("extenders", f"found {binders} extenders implementing bind",
                              "only one extender can implement bind"))
    return errors


def ignored_resources(extenders: list[dict]) -> list[str]:
    """The managed resources marked ignoredByScheduler, in configuration order."""
    return [res["name"] for ext in extenders for res in ext.get("managedResources") or []
            if res.get("ignoredByScheduler")]


def apply_ignored_resources(profiles, extenders: list[dict]) -> list[str]:
    """buildExtenders: ignored resources REPLACE NodeResourcesFit's ignoredResources everywhere.

    Like Go, a profile that has no NodeResourcesFit args (the plugin is neither enabled nor
    configured) makes this fail.
    """
    ignored = ignored_resources(extenders)
    if not ignored:
        return []
    for profile in profiles:
        args = profile.plugin_config.get(names.NODE_RESOURCES_FIT)
        if args is None:
            return ["can't find NodeResourcesFitArgs in plugin config"]
        args["ignoredResources"] = list(ignored)
    return []
