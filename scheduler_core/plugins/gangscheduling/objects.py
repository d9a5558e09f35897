"""The Workload API's objects as the gang plugin reads them, per release.

scheduling.k8s.io went through three shapes (k8s.io/api at v0.35.0, v0.36.0, v0.37.0):
- v1.35 (v1alpha1): a Workload lists `spec.podGroups[]` (name, `policy.basic` or
  `policy.gang.minCount`); a pod joins one with `spec.workloadRef` {name, podGroup,
  podGroupReplicaKey}, each replica key a gang of its own.
- v1.36 (v1alpha2) and v1.37 (v1alpha3, v1beta1): a PodGroup object carries
  `spec.schedulingPolicy` (basic, or gang.minCount); a pod joins it with
  `spec.schedulingGroup.podGroupName`. Workloads hold only templates from which controllers
  make PodGroups; the scheduler reads PodGroups alone.
The versions a release serves come from that release's OpenAPI document (openapi.py), so no
list is kept here. Everything is behind GenericWorkload: with it off the API server serves none
of these kinds and drops the pod fields.
"""
from __future__ import annotations

from ...errors import InputError, is_int
from ...features import FeatureGates
from ...openapi import check_served

GROUP = "scheduling.k8s.io"
WORKLOAD, POD_GROUP, COMPOSITE_POD_GROUP = "Workload", "PodGroup", "CompositePodGroup"
KINDS = (WORKLOAD, POD_GROUP, COMPOSITE_POD_GROUP)
SCHEDULING_GROUP_SINCE = 36   # v1.36's PodGroups and schedulingGroup replaced workloadRef


def handles(obj: dict) -> bool:
    """A Workload, PodGroup or CompositePodGroup of scheduling.k8s.io (scheduler-plugins'
    PodGroup, scheduling.x-k8s.io, is another kind of the same name)."""
    api_version = str(obj.get("apiVersion") or "")
    return obj.get("kind") in KINDS and api_version.split("/")[0] == GROUP


def skip_reason(obj: dict, gates: FeatureGates, where: str) -> str:
    """'' when the engine keeps the object for the run, else why it is skipped (a warning);
    InputError for a version the release's API server does not serve."""
    kind = obj.get("kind")
    check_served(obj, GROUP, gates.release, where)
    if not gates.enabled("GenericWorkload"):
        return (f"the Workload API is not served: the GenericWorkload feature gate is off in "
                f"this run (v{gates.release}; --feature-gates GenericWorkload=true turns it "
                f"on); skipped")
    if kind == COMPOSITE_POD_GROUP:
        return ("CompositePodGroup (the CompositePodGroup gate's hierarchies) is not modelled "
                "by the engine; skipped")
    if kind == WORKLOAD and gates.minor >= SCHEDULING_GROUP_SINCE:
        return (f"from v1.36 kube-scheduler reads PodGroups, not Workloads, and no controller "
                f"here makes PodGroups from the Workload's templates; write the PodGroup "
                f"objects (v{gates.release}); skipped")
    return ""


def policy_problems(obj: dict) -> list[tuple[str, str]]:
    """(field, message) for a gang policy's minCount that is not a positive integer, as the
    API server's validation refuses it."""
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    if obj.get("kind") == WORKLOAD:
        groups = spec.get("podGroups") or []
        policies = [(f"spec.podGroups[{i}].policy", (g or {}).get("policy"))
                    for i, g in enumerate(groups) if isinstance(g, dict)]
    else:
        policies = [("spec.schedulingPolicy", spec.get("schedulingPolicy"))]
    out = []
    for path, policy in policies:
        gang = (policy or {}).get("gang") if isinstance(policy, dict) else None
        if gang is None:
            continue
        count = gang.get("minCount") if isinstance(gang, dict) else None
        if not is_int(count) or count <= 0:
            out.append((f"{path}.gang.minCount", f"Invalid value: {count!r}: must be greater "
                                                 f"than zero"))
    return out


# PodGroup fields (v1.36+) behind features the engine does not model, each with what
# kube-scheduler does with it (pkg/scheduler/schedule_one_podgroup.go, algorithm_podgroup.go).
# The pod group scheduling cycle itself is modelled (podgroup_cycle.py).
_WORKLOAD_PREEMPTION = ("workload-aware preemption (the group's priority, preemption policy and "
                        "disruption mode weighed for the whole group) is not modelled: "
                        "preemption here weighs each pod on its own priority; only v1.37's "
                        "check that the members share the group's priority (and, with "
                        "PodGroupPreemptionPolicy, its preemption policy) reads it")
UNMODELLED_POD_GROUP_FIELDS = (
    ("spec.schedulingConstraints", "topology-aware workload scheduling "
     "(TopologyAwareWorkloadScheduling: the group's placements over the topology key's "
     "domains, podGroupSchedulingPlacementAlgorithm) is not modelled; the pod group cycle "
     "places the group over all nodes; ignored"),
    ("spec.priority", _WORKLOAD_PREEMPTION),
    ("spec.priorityClassName", _WORKLOAD_PREEMPTION),
    ("spec.preemptionPolicy", _WORKLOAD_PREEMPTION),
    ("spec.disruptionMode", _WORKLOAD_PREEMPTION),
    ("spec.resourceClaims", "claims shared by the group (DRAWorkloadResourceClaims) are not "
     "modelled; ignored"),
    ("spec.parentCompositePodGroupName", "CompositePodGroup hierarchies are not modelled; "
     "ignored"),
)


def unmodelled_fields(obj: dict):
    """(field, why) for each field of UNMODELLED_POD_GROUP_FIELDS a kept PodGroup sets."""
    if obj.get("kind") != POD_GROUP:
        return
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    for path, why in UNMODELLED_POD_GROUP_FIELDS:
        if spec.get(path.split(".", 1)[1]) not in (None, "", [], {}):
            yield path, why


def admit(obj: dict, gates: FeatureGates, where: str) -> str:
    """The loader's check of a Workload API object: raises InputError on an unserved version
    or an invalid policy, returns why it is skipped ('' when kept)."""
    reason = skip_reason(obj, gates, where)
    if not reason:
        problems = policy_problems(obj)
        if problems:
            path, message = problems[0]
            raise InputError(message, obj=where, field=path)
    return reason
