"""Input fields the chosen release (or its feature gates) does not honour, to be warned of.

The API server of a release without a field, or with its gate off, drops the field when the
object is created (dropDisabledPodFields and friends), so the scheduler never sees it; the
engine does the same and says so: the loader turns each (field, detail) found here into a line
of the run's WarningLog naming the file, the object and the field.

A check is `(kinds, gate, field, present(obj) -> bool)`: it fires when the object of one of
those kinds has the field and the gate is off at the run's release (or the release predates
the gate). Add a row for a new gated field.
"""
from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from .features import RELEASES, FeatureGates, spec_at
from .openapi import served_versions
from .plugins.dynamicresources import taint_rules
from .plugins.dynamicresources.gated import disabled_fields, drop
from .plugins.gangscheduling import objects as workload_api


@dataclass(frozen=True)
class GatedField:
    kinds: tuple[str, ...]
    gate: str
    field: str                # under the pod spec for pod kinds (spec, or the template's)
    present: Callable[[dict], bool]
    what: str
    dropped: bool = False     # the API server drops the field when the gate is off
    minors: range = range(0, 99)   # the releases whose API has the field (others: unknown)
    needs: str = ""           # a second gate without which the scheduler ignores the field


def _spec(obj: dict) -> dict:
    spec = obj.get("spec")
    return spec if isinstance(spec, dict) else {}


def _pod_spec_path(kind: str) -> str:
    if kind == "Pod":
        return "spec"
    return "spec.jobTemplate.spec.template.spec" if kind == "CronJob" else "spec.template.spec"


def _pod_spec(obj: dict) -> dict:
    """The pod spec of a Pod, or of a workload's pod template."""
    if obj.get("kind") == "Pod":
        return _spec(obj)
    template = _spec(obj).get("template")
    if obj.get("kind") == "CronJob":
        template = (_spec(obj).get("jobTemplate") or {}).get("spec", {}).get("template")
    return _spec(template) if isinstance(template, dict) else {}


def _has_pod_level_resources(obj: dict) -> bool:
    res = _pod_spec(obj).get("resources")
    return isinstance(res, dict) and bool(res.get("requests") or res.get("limits"))


def _has_declared_features(obj: dict) -> bool:
    status = obj.get("status")
    return isinstance(status, dict) and bool(status.get("declaredFeatures"))


def _has_workload_ref(obj: dict) -> bool:
    return bool(_pod_spec(obj).get("workloadRef"))


def _has_scheduling_group(obj: dict) -> bool:
    return bool(_pod_spec(obj).get("schedulingGroup"))


POD_KINDS = ("Pod", "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet",
             "ReplicationController", "Job", "CronJob")

CHECKS = (
    GatedField(POD_KINDS, "PodLevelResources", "resources", _has_pod_level_resources,
               "pod-level resources", dropped=True),
    GatedField(("Node",), "NodeDeclaredFeatures", "status.declaredFeatures",
               _has_declared_features, "node declared features"),
    # v1.35's workloadRef became v1.36's schedulingGroup (k8s.io/api core/v1 types.go).
    GatedField(POD_KINDS, "GenericWorkload", "workloadRef", _has_workload_ref,
               "Workload API pod references", dropped=True, minors=range(35, 36),
               needs="GangScheduling"),
    GatedField(POD_KINDS, "GenericWorkload", "schedulingGroup", _has_scheduling_group,
               "Workload API scheduling groups", dropped=True, minors=range(36, 37),
               needs="GangScheduling"),
    # From v1.37 GenericWorkload alone makes the gangs (features.REMOVED_IN).
    GatedField(POD_KINDS, "GenericWorkload", "schedulingGroup", _has_scheduling_group,
               "Workload API scheduling groups", dropped=True, minors=range(37, 99)),
)


def gate_off_detail(what: str, gate: str, gates: FeatureGates) -> str:
    if spec_at(gate, gates.minor) is None:
        return (f"{what} are not in kube-scheduler v{gates.release} (feature gate {gate} "
                f"came later); ignored")
    return (f"{what} are ignored: the {gate} feature gate is off in this run "
            f"(v{gates.release}; --feature-gates {gate}=true turns it on)")


def gated_paths(kind: str, minor: int) -> frozenset[str]:
    """The field paths of a kind that a check here warns of: a release whose API lacks one
    gets this module's explanation, rather than the decoder's bare "unknown field"."""
    return frozenset(f"{_pod_spec_path(kind)}.{c.field}" if kind in POD_KINDS else c.field
                     for c in CHECKS if kind in c.kinds and minor in c.minors)


def unhonoured_fields(obj: dict, gates: FeatureGates) -> Iterator[tuple[str, str]]:
    """(field, why) for every field of `obj` the run's release and gates do not honour; a
    field the API server would drop (dropDisabledPodFields) is removed from `obj`."""
    kind = obj.get("kind")
    if workload_api.handles(obj):
        yield from workload_api.unmodelled_fields(obj)
    for check in _checks_of(kind, gates.minor):
        if not check.present(obj):
            continue
        path = f"{_pod_spec_path(kind)}.{check.field}" if kind in POD_KINDS else check.field
        if not gates.enabled(check.gate):
            if check.dropped:
                _pod_spec(obj).pop(check.field, None)
            yield path, gate_off_detail(check.what, check.gate, gates)
        elif check.needs and not gates.enabled(check.needs):
            yield path, (f"{check.what} do not make a gang: the {check.needs} feature gate is "
                         f"off in this run, so the pod is scheduled on its own, as "
                         f"kube-scheduler v{gates.release} does (--feature-gates "
                         f"{check.needs}=true turns it on)")


@functools.cache
def _checks_of(kind: str | None, minor: int) -> tuple[GatedField, ...]:
    """The checks that apply to a kind under a release: asked once per loaded object."""
    return tuple(c for c in CHECKS if kind in c.kinds and minor in c.minors)


def dropped_dra_fields(obj: dict, gates: FeatureGates) -> Iterator[tuple[str, str]]:
    """(field, why) for each DRA field behind a gate that is off, dropped from `obj` as the
    API server drops it on create (plugins/dynamicresources/gated.py). Each field gets its own
    line (a row such as binding conditions covers several: bindingConditions,
    bindingFailureConditions, bindsToNode); the first place a field is set names it, its other
    places (the same field in other devices or requests) are counted."""
    for row, places in disabled_fields(obj, gates.enabled):
        drop(row, places)
        detail = kept_detail(row, gates) if row.kept else gate_off_detail(row.what, row.gate,
                                                                          gates)
        for first, count in _by_field(places):
            yield first, detail + (f" (and {count - 1} more)" if count > 1 else "")


def _by_field(places) -> list[tuple[str, int]]:
    """(the first path, how many places) per field, a field being the path without its list
    indexes and map keys (spec.devices[0].taints and spec.devices[3].taints are one)."""
    fields: dict[str, list] = {}
    for path, _, _ in places:
        fields.setdefault(_INDEXES.sub("", path), [path, 0])[1] += 1
    return [(first, count) for first, count in fields.values()]


_INDEXES = re.compile(r"\[[^]]*\]")


def kept_detail(row, gates: FeatureGates) -> str:
    """Why a field the scheduler reads behind its gate is not honoured at this release."""
    if spec_at(row.gate, gates.minor) is None:
        why = (f"{row.what} are not in kube-scheduler v{gates.release} (feature gate "
               f"{row.gate} came later)")
    else:
        why = (f"{row.what} are not read: the {row.gate} feature gate is off in this run "
               f"(v{gates.release}; --feature-gates {row.gate}=true turns it on)")
    return f"{why}; {row.kept}"


# Kinds served only under some releases and gates: each module's admit(obj, gates, where)
# refuses an unserved version (InputError) and says why an object the run does not honour is
# skipped ('' when it is kept).
GATED_KINDS = (workload_api, taint_rules)


def served_by_other_releases(obj: dict, gates: FeatureGates) -> str:
    """For a cluster import, which stores objects for runs under any release: why a gated
    kind at an apiVersion that gates.release does not serve, but another supported release
    does (a v1.36 PodGroup at scheduling.k8s.io/v1alpha2), is stored without the release's
    checks; '' for any other object. A run under a release that does not serve the version
    refuses the object as simulate --release does (skipped_kind)."""
    for gated in GATED_KINDS:
        if not gated.handles(obj):
            continue
        kind, version = obj.get("kind"), obj.get("apiVersion")
        releases = [r for r in RELEASES if version in served_versions(gated.GROUP, kind, r)]
        if not releases or gates.release in releases:
            return ""
        served = ", ".join(f"v{r}" for r in releases)
        return (f"{version} is served by kube-apiserver {served}, not v{gates.release}: "
                f"stored for runs under {served}; a run under another release refuses it")
    return ""


def skipped_kind(obj: dict, gates: FeatureGates, where: str) -> str:
    """Why the release and gates leave obj out of the run ('' when it is kept); InputError
    for a version the release does not serve."""
    for gated in GATED_KINDS:
        if gated.handles(obj):
            return gated.admit(obj, gates, where)
    return ""
