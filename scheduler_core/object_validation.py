"""The API server's validation of the supported kinds (k8s.io/kubernetes pkg/apis/core/validation
and its policy, scheduling and storage siblings), for the fields the scheduler reads.

validate_object returns every problem as (field path, message), worded as Go words it, the
way `kubectl apply --dry-run=server` lists them; types are checked first (scheduler_core.schema)
and a field of the wrong type is not looked into further.
"""
from __future__ import annotations

import re

from . import errors as fe
from .quantity import QuantityError, resource_value
from .schema import object_type_errors
from .validation import (
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
)

Problem = tuple[str, str]
HIGHEST_USER_DEFINABLE_PRIORITY = 1000000000
TAINT_EFFECTS = ("NoExecute", "NoSchedule", "PreferNoSchedule")
SELECTOR_OPERATORS = ("DoesNotExist", "Exists", "In", "NotIn")
ACCESS_MODES = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod")
_PERCENT = re.compile(r"[0-9]+%")


def _split(path: str, text: str) -> Problem:
    """(path, message) from an errors helper's "path: message"."""
    return path, text[len(path) + 2:]


def _invalid(path, value, detail) -> Problem:
    return _split(path, fe.invalid(path, value, detail))


def _required(path, detail="") -> Problem:
    return _split(path, fe.required(path, detail))


def _unsupported(path, value, supported) -> Problem:
    return _split(path, fe.unsupported(path, value, supported))


def _forbidden(path, detail) -> Problem:
    return _split(path, fe.forbidden(path, detail))


def _check(path, value, check) -> list[Problem]:
    return [_invalid(path, value, msg) for msg in check(value)]


def _enum(path, value, supported) -> list[Problem]:
    return [] if value in supported else [_unsupported(path, value, sorted(supported))]


def _positive(path, value) -> list[Problem]:
    return [] if value is None or value > 0 else [_invalid(path, value,
                                                           "must be greater than zero")]


def _non_negative(path, value) -> list[Problem]:
    return [] if value is None or value >= 0 else [
        _invalid(path, value, "must be greater than or equal to 0")]


def _weight(path, value) -> list[Problem]:
    return [] if value is not None and 1 <= value <= 100 else [
        _invalid(path, value, "must be in the range 1-100")]


# --- metadata -------------------------------------------------------------------------------


def labels(path: str, value) -> list[Problem]:
    """ValidateLabels: qualified-name keys, label values."""
    out = []
    for key, val in (value or {}).items():
        out += _check(path, key, is_qualified_name)
        out += _check(path, val or "", is_valid_label_value)
    return out


def _metadata(meta: dict, name_check) -> list[Problem]:
    name = meta.get("name")
    if not name:
        return [_required("metadata.name", "name or generateName is required")]
    out = _check("metadata.name", name, name_check)
    if meta.get("namespace"):
        out += _check("metadata.namespace", meta["namespace"], is_dns1123_label)
    out += labels("metadata.labels", meta.get("labels"))
    out += [_invalid("metadata.annotations", key, msg)
            for key in (meta.get("annotations") or {}) for msg in is_qualified_name(key.lower())]
    return out


# --- selectors ------------------------------------------------------------------------------


def _values_for(path: str, operator, values, single=("Gt", "Lt")) -> list[Problem]:
    if operator in ("In", "NotIn") and not values:
        return [_required(f"{path}.values",
                          "must be specified when `operator` is 'In' or 'NotIn'")]
    if operator in ("Exists", "DoesNotExist") and values:
        return [_forbidden(f"{path}.values",
                           "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")]
    if operator in single and len(values) != 1:
        return [_required(f"{path}.values",
                          "must be specified single value when `operator` is 'Lt' or 'Gt'")]
    return []


def label_selector(path: str, selector) -> list[Problem]:
    """metav1validation.ValidateLabelSelector."""
    if not selector:
        return []
    out = []
    for i, req in enumerate(selector.get("matchExpressions") or []):
        at = f"{path}.matchExpressions[{i}]"
        operator, values = req.get("operator"), req.get("values") or []
        if operator not in SELECTOR_OPERATORS:
            out.append(_invalid(f"{at}.operator", operator, "not a valid selector operator"))
        out += _values_for(at, operator, values, single=())
        out += _check(f"{at}.key", req.get("key") or "", is_qualified_name)
        out += [p for j, v in enumerate(values) for p in _check(f"{at}.values[{j}]", v,
                                                                is_valid_label_value)]
    return out + labels(f"{path}.matchLabels", selector.get("matchLabels"))


def _node_selector_term(path: str, term: dict) -> list[Problem]:
    out = []
    for i, req in enumerate(term.get("matchExpressions") or []):
        at = f"{path}.matchExpressions[{i}]"
        operator = req.get("operator")
        if operator not in (*SELECTOR_OPERATORS, "Gt", "Lt"):
            out.append(_invalid(f"{at}.operator", operator, "not a valid selector operator"))
        out += _values_for(at, operator, req.get("values") or [])
        out += _check(f"{at}.key", req.get("key") or "", is_qualified_name)
    for i, req in enumerate(term.get("matchFields") or []):
        at = f"{path}.matchFields[{i}]"
        if req.get("key") != "metadata.name":
            out.append(_invalid(f"{at}.key", req.get("key"), "not a valid field selector key"))
        if req.get("operator") not in ("In", "NotIn"):
            out.append(_invalid(f"{at}.operator", req.get("operator"),
                                "not a valid selector operator"))
        elif len(req.get("values") or []) != 1:
            out.append(_required(f"{at}.values",
                                 "must be only one value when `operator` is 'In' or 'NotIn' "
                                 "for node field selector"))
    return out


def node_selector(path: str, selector) -> list[Problem]:
    if selector is None:
        return []
    terms = selector.get("nodeSelectorTerms") or []
    if not terms:
        return [_required(f"{path}.nodeSelectorTerms",
                          "must have at least one node selector term")]
    return [p for i, t in enumerate(terms)
            for p in _node_selector_term(f"{path}.nodeSelectorTerms[{i}]", t or {})]


def node_affinity(path: str, affinity) -> list[Problem]:
    affinity = affinity or {}
    out = node_selector(f"{path}.requiredDuringSchedulingIgnoredDuringExecution",
                        affinity.get("requiredDuringSchedulingIgnoredDuringExecution"))
    for i, pref in enumerate(affinity.get("preferredDuringSchedulingIgnoredDuringExecution")
                             or []):
        at = f"{path}.preferredDuringSchedulingIgnoredDuringExecution[{i}]"
        out += _weight(f"{at}.weight", pref.get("weight") or 0)
        out += _node_selector_term(f"{at}.preference", pref.get("preference") or {})
    return out


def _pod_affinity_term(path: str, term: dict) -> list[Problem]:
    out = label_selector(f"{path}.labelSelector", term.get("labelSelector"))
    out += label_selector(f"{path}.namespaceSelector", term.get("namespaceSelector"))
    out += [p for i, ns in enumerate(term.get("namespaces") or [])
            for p in _check(f"{path}.namespaces[{i}]", ns, is_dns1123_label)]
    return out + _topology_key(f"{path}.topologyKey", term.get("topologyKey"))


def _topology_key(path: str, key) -> list[Problem]:
    if not key:
        return [_required(path, "can not be empty")]
    return _check(path, key, is_qualified_name)


def _pod_affinity(path: str, affinity) -> list[Problem]:
    affinity = affinity or {}
    required = "requiredDuringSchedulingIgnoredDuringExecution"
    preferred = "preferredDuringSchedulingIgnoredDuringExecution"
    out = [p for i, t in enumerate(affinity.get(required) or [])
           for p in _pod_affinity_term(f"{path}.{required}[{i}]", t or {})]
    for i, weighted in enumerate(affinity.get(preferred) or []):
        at = f"{path}.{preferred}[{i}]"
        out += _weight(f"{at}.weight", weighted.get("weight") or 0)
        out += _pod_affinity_term(f"{at}.podAffinityTerm", weighted.get("podAffinityTerm") or {})
    return out


# --- pods -----------------------------------------------------------------------------------


def resources(path: str, amounts, *, sep: str = ".") -> tuple[list[Problem], dict[str, int]]:
    """Problems of a resource list and the values of its valid entries."""
    out, values = [], {}
    for name, raw in (amounts or {}).items():
        at = f"{path}{sep}{name}"
        try:
            values[name] = resource_value(name, raw)
        except QuantityError as exc:
            out.append((at, str(exc)))
            continue
        if values[name] < 0:
            out.append(_invalid(at, raw, "must be greater than or equal to 0"))
    return out, values


def _container_resources(path: str, res: dict) -> list[Problem]:
    out, requests = resources(f"{path}.requests", res.get("requests"))
    more, limits = resources(f"{path}.limits", res.get("limits"))
    for name, amount in requests.items():
        if name in limits and amount > limits[name]:
            out.append(_invalid(f"{path}.requests", res["requests"][name],
                                f"must be less than or equal to {name} limit of "
                                f"{res['limits'][name]}"))
    return out + more


def _containers(path: str, containers, seen: set[str]) -> list[Problem]:
    out = []
    for i, c in enumerate(containers or []):
        at = f"{path}[{i}]"
        name = c.get("name")
        if not name:
            out.append(_required(f"{at}.name"))
        else:
            out += _check(f"{at}.name", name, is_dns1123_label)
            if name in seen:
                out.append(_split(f"{at}.name", fe.duplicate(f"{at}.name", name)))
            seen.add(name)
        out += _container_resources(f"{at}.resources", c.get("resources") or {})
    return out


TOLERATION_OPERATORS = ("Equal", "Exists")
# TaintTolerationComparisonOperators (alpha, v1.35): validation then takes Lt and Gt with a
# canonical int64 value (no sign but '-', no leading zero).
COMPARISON_OPERATORS = ("Lt", "Gt")
_INT64 = re.compile(r"^(0|-?[1-9][0-9]*)$")


def _comparison_value(path: str, value: str) -> list[Problem]:
    if _INT64.match(value) and -(2**63) <= int(value) < 2**63:
        return []
    return [_invalid(f"{path}.value", value, "value must be a valid integer for Lt and Gt "
                                               "operators")]


def _toleration(path: str, tol: dict, comparison: bool = False) -> list[Problem]:
    key, operator = tol.get("key") or "", tol.get("operator") or "Equal"
    value, effect = tol.get("value") or "", tol.get("effect") or ""
    out = _check(f"{path}.key", key, is_qualified_name) if key else []
    if not key and operator != "Exists":
        out.append(_invalid(f"{path}.operator", operator,
                            "operator must be Exists when `key` is empty, which means "
                            '"match all values and all keys"'))
    if tol.get("tolerationSeconds") is not None and effect != "NoExecute":
        out.append(_invalid(f"{path}.effect", effect,
                            "effect must be 'NoExecute' when `tolerationSeconds` is set"))
    if operator == "Equal":
        out += _check(f"{path}.value", value, is_valid_label_value)
    elif operator == "Exists":
        if value:
            out.append(_invalid(f"{path}.operator", tol,
                                "value must be empty when `operator` is 'Exists'"))
    elif comparison and operator in COMPARISON_OPERATORS:
        out += _comparison_value(path, value)
    else:
        out += _enum(f"{path}.operator", operator, TOLERATION_OPERATORS +
                     (COMPARISON_OPERATORS if comparison else ()))
    if effect:
        out += _enum(f"{path}.effect", effect, TAINT_EFFECTS)
    return out


def topology_spread_constraints(path: str, constraints) -> list[Problem]:
    """validateTopologySpreadConstraints."""
    out, seen = [], set()
    for i, c in enumerate(constraints or []):
        at = f"{path}[{i}]"
        when = c.get("whenUnsatisfiable")
        out += _positive(f"{at}.maxSkew", c.get("maxSkew") or 0)
        out += _topology_key(f"{at}.topologyKey", c.get("topologyKey"))
        out += _enum(f"{at}.whenUnsatisfiable", when, ("DoNotSchedule", "ScheduleAnyway"))
        if c.get("minDomains") is not None:
            out += _positive(f"{at}.minDomains", c["minDomains"])
            if when != "DoNotSchedule":
                out.append(_invalid(f"{at}.minDomains", c["minDomains"],
                                    "can only use minDomains if "
                                    f"whenUnsatisfiable=DoNotSchedule, not {when}"))
        for policy in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            if c.get(policy) is not None:
                out += _enum(f"{at}.{policy}", c[policy], ("Honor", "Ignore"))
        pair = (c.get("topologyKey"), when)
        if pair in seen:
            out.append(_split(at, fe.duplicate(at, f"{{{pair[0]}, {pair[1]}}}")))
        seen.add(pair)
        out += label_selector(f"{at}.labelSelector", c.get("labelSelector"))
    return out


def pod_spec(path: str, spec, comparison: bool = False) -> list[Problem]:
    """ValidatePodSpec, for what the scheduler reads; comparison: PodValidationOptions'
    toleration comparison operators (the TaintTolerationComparisonOperators gate)."""
    if not isinstance(spec, dict):
        return [_required(path)]
    if not spec.get("containers"):
        out = [_required(f"{path}.containers")]
    else:
        out = []
    seen: set[str] = set()
    out += _containers(f"{path}.containers", spec.get("containers"), seen)
    out += _containers(f"{path}.initContainers", spec.get("initContainers"), seen)
    out += resources(f"{path}.overhead", spec.get("overhead"))[0]
    for field in ("nodeName", "schedulerName", "priorityClassName"):
        if spec.get(field):
            out += _check(f"{path}.{field}", spec[field], is_dns1123_subdomain)
    if spec.get("restartPolicy"):
        out += _enum(f"{path}.restartPolicy", spec["restartPolicy"],
                     ("Always", "Never", "OnFailure"))
    if spec.get("preemptionPolicy"):
        out += _enum(f"{path}.preemptionPolicy", spec["preemptionPolicy"],
                     ("Never", "PreemptLowerPriority"))
    out += labels(f"{path}.nodeSelector", spec.get("nodeSelector"))
    affinity = spec.get("affinity") or {}
    out += node_affinity(f"{path}.affinity.nodeAffinity", affinity.get("nodeAffinity"))
    for kind in ("podAffinity", "podAntiAffinity"):
        out += _pod_affinity(f"{path}.affinity.{kind}", affinity.get(kind))
    out += [p for i, t in enumerate(spec.get("tolerations") or [])
            for p in _toleration(f"{path}.tolerations[{i}]", t or {}, comparison)]
    return out + topology_spread_constraints(f"{path}.topologySpreadConstraints",
                                             spec.get("topologySpreadConstraints"))


# --- the kinds ------------------------------------------------------------------------------


def _pod(obj, comparison: bool = False):
    return pod_spec("spec", obj.get("spec"), comparison)


def _node(obj):
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    out, seen = [], set()
    for i, taint in enumerate(spec.get("taints") or []):
        at = f"spec.taints[{i}]"
        out += _check(f"{at}.key", taint.get("key") or "", is_qualified_name)
        if taint.get("value"):
            out += _check(f"{at}.value", taint["value"], is_valid_label_value)
        effect = taint.get("effect")
        out += [_required(f"{at}.effect")] if not effect else \
            _enum(f"{at}.effect", effect, TAINT_EFFECTS)
        if (taint.get("key"), effect) in seen:
            out.append(_split(at, fe.duplicate(at, f"{taint.get('key')}:{effect}")))
        seen.add((taint.get("key"), effect))
    for field in ("capacity", "allocatable"):
        out += resources(f"status.{field}", status.get(field))[0]
    return out


def _priority_class(obj):
    value = obj.get("value")
    if value is None:
        return [_required("value")]
    out = []
    name = (obj.get("metadata") or {}).get("name") or ""
    if not name.startswith("system-") and value > HIGHEST_USER_DEFINABLE_PRIORITY:
        out.append(_invalid("value", value, f"must be no greater than "
                                            f"{HIGHEST_USER_DEFINABLE_PRIORITY}"))
    if obj.get("preemptionPolicy") is not None:
        out += _enum("preemptionPolicy", obj["preemptionPolicy"],
                     ("Never", "PreemptLowerPriority"))
    return out


def _int_or_percent(path: str, value) -> list[Problem]:
    if value is None:
        return []
    if isinstance(value, str):
        if not _PERCENT.fullmatch(value):
            return [_invalid(path, value, "a valid percent string must be a numeric string "
                                          "followed by an ending '%' (e.g. '1%',  or '93%', "
                                          "regex used for validation is '[0-9]+%')")]
        if int(value[:-1]) > 100:
            return [_invalid(path, value, "must not be greater than 100%")]
        return []
    return _non_negative(path, value)


def _pdb(obj):
    spec = obj.get("spec") or {}
    out = []
    if spec.get("minAvailable") is not None and spec.get("maxUnavailable") is not None:
        out.append(_invalid("spec", spec, "minAvailable and maxUnavailable cannot be both set"))
    for field in ("minAvailable", "maxUnavailable"):
        out += _int_or_percent(f"spec.{field}", spec.get(field))
    return out + label_selector("spec.selector", spec.get("selector"))


def _access_modes(path: str, modes) -> list[Problem]:
    return [p for m in modes or [] for p in _enum(path, m, ACCESS_MODES)]


def _pv(obj):
    spec = obj.get("spec") or {}
    out = resources("spec.capacity", spec.get("capacity"))[0]
    out += _access_modes("spec.accessModes", spec.get("accessModes"))
    if spec.get("volumeMode") is not None:
        out += _enum("spec.volumeMode", spec["volumeMode"], ("Block", "Filesystem"))
    return out + node_selector("spec.nodeAffinity.required",
                               (spec.get("nodeAffinity") or {}).get("required"))


def _pvc(obj):
    spec = obj.get("spec") or {}
    out = resources("spec.resources.requests",
                    (spec.get("resources") or {}).get("requests"))[0]
    out += _access_modes("spec.accessModes", spec.get("accessModes"))
    return out + label_selector("spec.selector", spec.get("selector"))


def _storage_class(obj):
    out = [] if obj.get("provisioner") else [_required("provisioner")]
    if obj.get("volumeBindingMode") is not None:
        out += _enum("volumeBindingMode", obj["volumeBindingMode"],
                     ("Immediate", "WaitForFirstConsumer"))
    if obj.get("reclaimPolicy") is not None:
        out += _enum("reclaimPolicy", obj["reclaimPolicy"], ("Delete", "Retain"))
    return out


def _workload(obj, comparison: bool = False):
    spec = obj.get("spec") or {}
    out = _non_negative("spec.replicas", spec.get("replicas"))
    out += label_selector("spec.selector", spec.get("selector"))
    template = spec.get("template") or {}
    out += labels("spec.template.metadata.labels",
                  (template.get("metadata") or {}).get("labels"))
    return out + pod_spec("spec.template.spec", template.get("spec"), comparison)


_BY_KIND = {
    "Pod": (is_dns1123_subdomain, _pod),
    "Node": (is_dns1123_subdomain, _node),
    "Namespace": (is_dns1123_label, None),
    "PriorityClass": (is_dns1123_subdomain, _priority_class),
    "PodDisruptionBudget": (is_dns1123_subdomain, _pdb),
    "PersistentVolume": (is_dns1123_subdomain, _pv),
    "PersistentVolumeClaim": (is_dns1123_subdomain, _pvc),
    "StorageClass": (is_dns1123_subdomain, _storage_class),
    "CSINode": (is_dns1123_subdomain, None),
    **{kind: (is_dns1123_subdomain, _workload)
       for kind in ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job")},
}


def validate_object(obj: dict, comparison_operators: bool = False) -> list[Problem]:
    """Every problem of an object, as (field path, message); [] when the API server would
    take it. Kinds without a validation here get their metadata checked alone.
    comparison_operators: tolerations may use Lt and Gt (TaintTolerationComparisonOperators)."""
    problems = object_type_errors(obj)
    if problems:
        return problems
    name_check, validate = _BY_KIND.get(obj.get("kind") or "", (is_dns1123_subdomain, None))
    if validate in (_pod, _workload):
        return _metadata(obj.get("metadata") or {}, name_check) + validate(
            obj, comparison_operators)
    return _metadata(obj.get("metadata") or {}, name_check) + (validate(obj) if validate
                                                               else [])


class ObjectInvalid(fe.InputError):
    """An object the API server would refuse, with all its problems (file, object, fields)."""

    def __init__(self, problems: list[Problem], *, file: str = "", obj: str = ""):
        self.problems = problems
        text = "; ".join(f"field {path}: {message}" for path, message in problems)
        super().__init__(text, file=file, obj=obj)
        self.field = problems[0][0]
