"""DeviceTaintRule (resource.k8s.io): taints an administrator puts on devices without
touching their ResourceSlices. The scheduler's ResourceSlice tracker
(dynamic-resource-allocation/resourceslice/tracker/tracker.go, `applyPatches`) hands the
allocator each slice with every matching rule's taint appended to its devices' own taints;
the allocator then treats them as any device taint (device_taints.py: NoSchedule and
NoExecute need a toleration of the request).

A rule matches a device when each of `deviceSelector.driver`, `.pool`, `.device` that is set
equals the slice's driver, the slice's pool name and the device's name (no selector: every
device). Behind DRADeviceTaintRules (alpha v1.35, beta and off v1.36, GA and on v1.37); in
v1.34 the kind was part of DRADeviceTaints, with a device class and CEL selectors too, which
the engine does not evaluate (such a rule is skipped with a warning). The versions served
(v1alpha3; v1beta2 from v1.36; v1 from v1.37) are the release's OpenAPI document's. The
rules' taints count only while DRADeviceTaints is on, as the allocator ignores taints then.
"""
from __future__ import annotations

import copy

from ...errors import InputError, unsupported
from ...features import FeatureGates, spec_at
from ...openapi import check_served

KIND = "DeviceTaintRule"
GROUP = "resource.k8s.io"
EFFECTS = ("None", "NoSchedule", "NoExecute")
V134_ONLY_SELECTORS = ("deviceClassName", "selectors")


def handles(obj: dict) -> bool:
    return obj.get("kind") == KIND and str(obj.get("apiVersion") or "").startswith(GROUP + "/")


def rule_gate(gates: FeatureGates) -> str:
    """The gate that serves the kind: its own from v1.35, DRADeviceTaints before."""
    return "DRADeviceTaintRules" if spec_at("DRADeviceTaintRules", gates.minor) else \
        "DRADeviceTaints"


def _selector(obj: dict) -> dict:
    selector = (obj.get("spec") or {}).get("deviceSelector")
    return selector if isinstance(selector, dict) else {}


def _taint_problem(obj: dict) -> tuple[str, str] | None:
    taint = (obj.get("spec") or {}).get("taint")
    if not isinstance(taint, dict) or not taint.get("key"):
        return "spec.taint.key", "Required value"
    if taint.get("effect") not in EFFECTS:
        return "spec.taint.effect", unsupported("spec.taint.effect", taint.get("effect"),
                                                EFFECTS).split(": ", 1)[1]
    return None


def admit(obj: dict, gates: FeatureGates, where: str) -> str:
    """The loader's check: InputError for an unserved version or an invalid taint; the
    reason the rule is skipped (a warning), '' when it is kept for the run."""
    check_served(obj, GROUP, gates.release, where)
    gate = rule_gate(gates)
    if not gates.enabled(gate):
        return (f"DeviceTaintRules are not served: the {gate} feature gate is off in this run "
                f"(v{gates.release}; --feature-gates {gate}=true turns it on); skipped")
    problem = _taint_problem(obj)
    if problem is not None:
        raise InputError(problem[1], obj=where, field=problem[0])
    unmodelled = [f for f in V134_ONLY_SELECTORS if _selector(obj).get(f)]
    if unmodelled:
        return (f"field spec.deviceSelector.{unmodelled[0]}: device class and CEL selectors "
                f"of a DeviceTaintRule are not modelled by the engine; the rule is skipped")
    if not gates.enabled("DRADeviceTaints"):
        return (f"device taints are ignored: the DRADeviceTaints feature gate is off in this "
                f"run (v{gates.release}); the rule taints nothing; skipped")
    return ""


def _matches(selector: dict, slice_spec: dict, device: dict) -> bool:
    pool = (slice_spec.get("pool") or {}).get("name")
    return all(selector.get(field) is None or selector[field] == value
               for field, value in (("driver", slice_spec.get("driver")), ("pool", pool),
                                    ("device", device.get("name"))))


def apply_rules(slices: list[dict], rules: list[dict]) -> list[dict]:
    """applyPatches over every slice: a slice a rule touches is copied with the rules' taints
    appended to its matching devices' taints, in rule order; the others are the same objects."""
    if not rules:
        return slices
    out = []
    for rs in slices:
        spec = rs.get("spec") or {}
        patched = rs
        for rule in rules:
            selector, taint = _selector(rule), (rule.get("spec") or {}).get("taint") or {}
            for i, device in enumerate(spec.get("devices") or []):
                if not _matches(selector, spec, device):
                    continue
                if patched is rs:
                    patched = copy.deepcopy(rs)
                target = patched["spec"]["devices"][i]
                target["taints"] = [*(target.get("taints") or []),
                                    {k: taint[k] for k in ("key", "value", "effect",
                                                           "timeAdded") if k in taint}]
        out.append(patched)
    return out
