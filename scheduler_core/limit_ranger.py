"""The LimitRanger admission plugin (plugin/pkg/admission/limitranger) over pods and claims.

A LimitRange of the pod's namespace first defaults what its containers leave out (Admit:
PodMutateLimitFunc), then the pod is checked against the ranges' min, max and
maxLimitRequestRatio (Validate: PodValidateLimitFunc); a claim's storage request against the
PersistentVolumeClaim ranges. A violation is the API server's Forbidden error, worded as Go
words it: `pods "web" is forbidden: maximum cpu usage per Container is 1, but limit is 2`.

The LimitRange itself is defaulted as the API server stores it (SetDefaults_LimitRangeItem):
a Container item's default limit falls back to its max, its default request to the default
limit, then to its min.

Quantities are printed as Go's Quantity.String() prints them ("1.5Gi" as "1536Mi"). Go
ranges over maps, so the order of several errors varies there; here it is sorted by resource
name.
"""
from __future__ import annotations

import copy
from decimal import ROUND_CEILING, Decimal

from .errors import InputError
from .quantity import canonical, parse_quantity

ANNOTATION = "kubernetes.io/limit-ranger"
CONTAINER, POD, CLAIM = "Container", "Pod", "PersistentVolumeClaim"


class Forbidden(InputError):
    """admission.NewForbidden: the object is refused as it stands."""


def ranges_for(namespace: str, limit_ranges: list[dict]) -> list[dict]:
    """The namespace's LimitRanges, each defaulted as the API server stores it."""
    return [defaulted(lr) for lr in limit_ranges
            if ((lr.get("metadata") or {}).get("namespace") or "default") == namespace]


def defaulted(limit_range: dict) -> dict:
    """SetDefaults_LimitRangeItem on a copy."""
    limit_range = copy.deepcopy(limit_range)
    for item in (limit_range.get("spec") or {}).get("limits") or []:
        if item.get("type") != CONTAINER:
            continue
        default = item.setdefault("default", {}) or {}
        request = item.setdefault("defaultRequest", {}) or {}
        for key, value in (item.get("max") or {}).items():
            default.setdefault(key, value)
        for key, value in default.items():
            request.setdefault(key, value)
        for key, value in (item.get("min") or {}).items():
            request.setdefault(key, value)
        item["default"], item["defaultRequest"] = default, request
    return limit_range


# --- Admit ------------------------------------------------------------------------------------


def admit_pod(pod: dict, ranges: list[dict]) -> None:
    """Every range's defaults (PodMutateLimitFunc), then every range's checks (Forbidden)."""
    for limit_range in ranges:
        _merge_pod(pod, _default_requirements(limit_range))
    for limit_range in ranges:
        errors = validate_pod(pod, limit_range)
        if errors:
            raise Forbidden(_forbidden("pods", pod, errors))


def admit_claim(pvc: dict, ranges: list[dict]) -> None:
    for limit_range in ranges:
        errors = validate_claim(pvc, limit_range)
        if errors:
            raise Forbidden(_forbidden("persistentvolumeclaims", pvc, errors))


def _forbidden(resource: str, obj: dict, errors: list[str]) -> str:
    """admission.NewForbidden over utilerrors.NewAggregate (duplicates dropped)."""
    unique = list(dict.fromkeys(errors))
    text = unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"
    return f'{resource} "{(obj.get("metadata") or {}).get("name", "")}" is forbidden: {text}'


def _default_requirements(limit_range: dict) -> tuple[dict, dict]:
    """defaultContainerResourceRequirements: (limits, requests) of the Container items."""
    limits, requests = {}, {}
    for item in (limit_range.get("spec") or {}).get("limits") or []:
        if item.get("type") == CONTAINER:
            requests.update(item.get("defaultRequest") or {})
            limits.update(item.get("default") or {})
    return limits, requests


def _merge_pod(pod: dict, defaults: tuple[dict, dict]) -> None:
    """mergePodResourceRequirements, with its kubernetes.io/limit-ranger annotation."""
    spec = pod.get("spec") or {}
    notes: list[str] = []
    for group, prefix in (("containers", "container"), ("initContainers", "init container")):
        for container in spec.get(group) or []:
            notes += _merge_container(container, defaults, prefix)
    if notes:
        meta = pod.setdefault("metadata", {})
        meta["annotations"] = {**(meta.get("annotations") or {}),
                               ANNOTATION: "LimitRanger plugin set: " + "; ".join(notes)}


def _merge_container(container: dict, defaults: tuple[dict, dict], prefix: str) -> list[str]:
    default_limits, default_requests = defaults
    resources = container.setdefault("resources", {})
    limits = resources["limits"] = dict(resources.get("limits") or {})
    requests = resources["requests"] = dict(resources.get("requests") or {})
    set_limits = sorted(k for k in default_limits if k not in limits)
    set_requests = sorted(k for k in default_requests if k not in requests)
    limits.update({k: default_limits[k] for k in set_limits})
    requests.update({k: default_requests[k] for k in set_requests})
    name = container.get("name", "")
    notes = []
    if set_requests:
        notes.append(", ".join(set_requests) + f" request for {prefix} {name}")
    if set_limits:
        notes.append(", ".join(set_limits) + f" limit for {prefix} {name}")
    return notes


# --- Validate ---------------------------------------------------------------------------------


def validate_pod(pod: dict, limit_range: dict) -> list[str]:
    """PodValidateLimitFunc: the Container items per container, the Pod items on the sums."""
    spec = pod.get("spec") or {}
    errors: list[str] = []
    for item in (limit_range.get("spec") or {}).get("limits") or []:
        kind = item.get("type")
        if kind == CONTAINER:
            for group in ("containers", "initContainers"):
                for container in spec.get(group) or []:
                    resources = container.get("resources") or {}
                    errors += _check_item(item, kind, resources.get("requests") or {},
                                          resources.get("limits") or {})
        elif kind == POD:
            errors += _check_item(item, kind, _pod_total(spec, "requests"),
                                  _pod_total(spec, "limits"))
    return errors


def validate_claim(pvc: dict, limit_range: dict) -> list[str]:
    """PersistentVolumeClaimValidateLimitFunc: min and max against the storage request."""
    requests = ((pvc.get("spec") or {}).get("resources") or {}).get("requests") or {}
    errors: list[str] = []
    for item in (limit_range.get("spec") or {}).get("limits") or []:
        if item.get("type") != CLAIM:
            continue
        for name, enforced in sorted((item.get("min") or {}).items()):
            errors += _min(CLAIM, name, enforced, requests, {})
        for name, enforced in sorted((item.get("max") or {}).items()):
            errors += _max_request(CLAIM, name, enforced, requests)
    return errors


def _check_item(item: dict, kind: str, requests: dict, limits: dict) -> list[str]:
    errors = []
    for name, enforced in sorted((item.get("min") or {}).items()):
        errors += _min(kind, name, enforced, requests, limits)
    for name, enforced in sorted((item.get("max") or {}).items()):
        errors += _max(kind, name, enforced, requests, limits)
    for name, enforced in sorted((item.get("maxLimitRequestRatio") or {}).items()):
        errors += _ratio(kind, name, enforced, requests, limits)
    return errors


def _pod_total(spec: dict, field: str) -> dict:
    """podRequests / podLimits: max(sum of the containers, each init container), no overhead;
    the pod-level resources (cpu, memory) override the sums."""
    def of(container):
        return {k: parse_quantity(v)
                for k, v in ((container.get("resources") or {}).get(field) or {}).items()}
    total: dict[str, Decimal] = {}
    for container in spec.get("containers") or []:
        for k, v in of(container).items():
            total[k] = total.get(k, Decimal(0)) + v
    for container in spec.get("initContainers") or []:
        for k, v in of(container).items():
            total[k] = max(total.get(k, Decimal(0)), v)
    out = {k: _text(v) for k, v in total.items()}
    for k, v in ((spec.get("resources") or {}).get(field) or {}).items():
        if k in ("cpu", "memory"):
            out[k] = v
    return out


def _text(value: Decimal) -> str:
    return format(value.normalize(), "f")


def _milli(value) -> int:
    """requestLimitEnforcedValues compares at milli precision (values here fit int64)."""
    return int((parse_quantity(value) * 1000).to_integral_value(ROUND_CEILING))


def _usage(bound: str, name: str, kind: str, enforced) -> str:
    return f"{bound} {name} usage per {kind} is {canonical(enforced)}"


def _min(kind, name, enforced, requests, limits) -> list[str]:
    head = _usage("minimum", name, kind, enforced)
    if name not in requests:
        return [f"{head}.  No request is specified"]
    if _milli(requests[name]) < _milli(enforced):
        return [f"{head}, but request is {canonical(requests[name])}"]
    if name in limits and _milli(limits[name]) < _milli(enforced):
        return [f"{head}, but limit is {canonical(limits[name])}"]
    return []


def _max(kind, name, enforced, requests, limits) -> list[str]:
    head = _usage("maximum", name, kind, enforced)
    if name not in limits:
        return [f"{head}.  No limit is specified"]
    if _milli(limits[name]) > _milli(enforced):
        return [f"{head}, but limit is {canonical(limits[name])}"]
    if name in requests and _milli(requests[name]) > _milli(enforced):
        return [f"{head}, but request is {canonical(requests[name])}"]
    return []


def _max_request(kind, name, enforced, requests) -> list[str]:
    head = _usage("maximum", name, kind, enforced)
    if name not in requests:
        return [f"{head}.  No request is specified"]
    if _milli(requests[name]) > _milli(enforced):
        return [f"{head}, but request is {canonical(requests[name])}"]
    return []


def _ratio(kind, name, enforced, requests, limits) -> list[str]:
    head = f"{name} max limit to request ratio per {kind} is {canonical(enforced)}"
    request = _milli(requests[name]) if name in requests else 0
    limit = _milli(limits[name]) if name in limits else 0
    if request == 0:
        return [f"{head}, but no request is specified or request is 0"]
    if limit == 0:
        return [f"{head}, but no limit is specified or limit is 0"]
    ratio = limit / request
    if ratio * 1000 > _milli(enforced):
        return [f"{head}, but provided ratio is {ratio:f}"]
    return []
