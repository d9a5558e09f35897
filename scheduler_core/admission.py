"""What the API server writes into a pod before any scheduler sees it.

A pod of the input is a pod being created: kube-apiserver defaults it (pkg/apis/core/v1/
defaults.go) and runs its admission plugins on it. Only what changes scheduling is done here:
- Priority (plugin/pkg/admission/priority): spec.priority and spec.preemptionPolicy from the
  pod's PriorityClass, or from the globalDefault one when the pod names none, with Go's
  Forbidden errors for a missing class or a pod that contradicts its class;
- DefaultTolerationSeconds: tolerations of the not-ready and unreachable NoExecute taints;
- SetDefaults_PodSpec / SetDefaults_Pod: schedulerName, host ports equal to the container
  ports on the host network, and a container's requests defaulted to its limits;
- LimitRanger (scheduler_core.limit_ranger): the defaults and checks of the namespace's
  LimitRanges.

One deviation: a pod that already carries spec.priority and names no class is taken as already
admitted, as kube-scheduler's own tests build pods, rather than rejected as Go would.
"""
from __future__ import annotations

from . import limit_ranger
from .errors import InputError

PREEMPT_LOWER_PRIORITY = "PreemptLowerPriority"
DEFAULT_SCHEDULER_NAME = "default-scheduler"
# The classes kube-apiserver creates at start-up (scheduling/util SystemPriorityClasses).
SYSTEM_PRIORITY_CLASSES = {
    "system-node-critical": {"value": 2000001000, "preemptionPolicy": PREEMPT_LOWER_PRIORITY},
    "system-cluster-critical": {"value": 2000000000, "preemptionPolicy": PREEMPT_LOWER_PRIORITY},
}
DEFAULT_TOLERATION_SECONDS = 300
NOT_READY_TAINT = "node.kubernetes.io/not-ready"
UNREACHABLE_TAINT = "node.kubernetes.io/unreachable"


def admit_pods(pods: list[dict], classes: dict[str, dict], limit_ranges: list[dict]) -> None:
    """Default and admit every pod in place; InputError names the first pod refused."""
    default = default_priority_class(classes)
    for pod in pods:
        admit_pod(pod, classes, default, limit_ranges)


def default_priority_class(classes: dict[str, dict]) -> tuple[str, dict] | None:
    """getDefaultPriorityClass: of several globalDefault classes, the lowest value wins."""
    defaults = [(name, pc) for name, pc in classes.items() if pc.get("globalDefault")]
    return min(defaults, key=lambda item: int(item[1].get("value", 0)), default=None)


def admit_pod(pod: dict, classes: dict[str, dict], default: tuple[str, dict] | None,
              limit_ranges: list[dict]) -> None:
    """limit_ranges: every LimitRange of the cluster (the pod's namespace's apply); a pod
    they forbid raises limit_ranger.Forbidden."""
    spec = pod.setdefault("spec", {})
    _default_requests(spec)
    ranges = limit_ranger.ranges_for(_namespace(pod), limit_ranges)
    if ranges and not _stored(pod):
        try:
            limit_ranger.admit_pod(pod, ranges)
        except limit_ranger.Forbidden as exc:
            raise limit_ranger.Forbidden(str(exc), obj=_label(pod)) from None
    _admit_priority(pod, spec, classes, default)
    _add_default_tolerations(spec)
    spec.setdefault("schedulerName", DEFAULT_SCHEDULER_NAME)
    if spec.get("hostNetwork"):
        _default_host_ports(spec)


def _namespace(pod: dict) -> str:
    return (pod.get("metadata") or {}).get("namespace") or "default"


def _label(pod: dict) -> str:
    return f"Pod {_namespace(pod)}/{(pod.get('metadata') or {}).get('name', '')}"


def _stored(pod: dict) -> bool:
    """A pod the API server already holds (a `kubectl get` or simulator export carries its
    creationTimestamp or resourceVersion): LimitRanger admitted it when it was created, under
    the ranges of that time, and does not look at it again."""
    meta = pod.get("metadata") or {}
    return bool(meta.get("creationTimestamp") or meta.get("resourceVersion"))


def _default_requests(spec: dict) -> None:
    """SetDefaults_Pod: a resource a container limits but does not request is requested at
    its limit (before any admission plugin, so LimitRanger's default request does not apply)."""
    for group in ("containers", "initContainers"):
        for container in spec.get(group) or []:
            resources = (container or {}).get("resources") or {}
            limits = resources.get("limits") or {}
            if not limits:
                continue
            requests = dict(resources.get("requests") or {})
            for name, value in limits.items():
                requests.setdefault(name, value)
            resources["requests"] = requests


def _resolve_class(pod: dict, spec: dict, classes, default) -> tuple[str, dict | None]:
    name = spec.get("priorityClassName") or ""
    if not name:
        return default if default is not None else ("", None)
    pc = classes.get(name) or SYSTEM_PRIORITY_CLASSES.get(name)
    if pc is None:
        raise InputError(f'no PriorityClass with name "{name}" was found', obj=_label(pod),
                         field="spec.priorityClassName")
    return name, pc


def _admit_priority(pod: dict, spec: dict, classes, default) -> None:
    if spec.get("priority") is not None and not spec.get("priorityClassName"):
        return  # already admitted (see the module's docstring)
    name, pc = _resolve_class(pod, spec, classes, default)
    priority = int(pc.get("value", 0)) if pc is not None else 0
    given = spec.get("priority")
    if given is not None and given != priority:
        raise InputError(
            f"the integer value of priority ({given}) must not be provided in pod spec; "
            f"priority admission controller computed {priority} from the given PriorityClass "
            "name", obj=_label(pod), field="spec.priority")
    if name:
        spec["priorityClassName"] = name
    spec["priority"] = priority
    if pc is None:
        return
    # The API server defaults a PriorityClass's policy, so a class always carries one.
    policy = pc.get("preemptionPolicy") or PREEMPT_LOWER_PRIORITY
    given = spec.get("preemptionPolicy")
    if given is not None and given != policy:
        raise InputError(
            f"the string value of PreemptionPolicy ({given}) must not be provided in pod spec; "
            f"priority admission controller computed {policy} from the given PriorityClass "
            "name", obj=_label(pod), field="spec.preemptionPolicy")
    spec["preemptionPolicy"] = policy


def _tolerates_no_execute(tolerations: list, key: str) -> bool:
    return any((t.get("key") or "") in ("", key) and (t.get("effect") or "") in ("", "NoExecute")
               for t in tolerations)


def _add_default_tolerations(spec: dict) -> None:
    """DefaultTolerationSeconds: pods ride out a node's short outage for five minutes."""
    tolerations = list(spec.get("tolerations") or [])
    added = [{"key": key, "operator": "Exists", "effect": "NoExecute",
              "tolerationSeconds": DEFAULT_TOLERATION_SECONDS}
             for key in (NOT_READY_TAINT, UNREACHABLE_TAINT)
             if not _tolerates_no_execute(tolerations, key)]
    if added:
        spec["tolerations"] = tolerations + added


def _default_host_ports(spec: dict) -> None:
    """defaultHostNetworkPorts: on the host network a container port is a host port."""
    for group in ("containers", "initContainers"):
        for container in spec.get(group) or []:
            for port in (container or {}).get("ports") or []:
                if not port.get("hostPort"):
                    port["hostPort"] = port.get("containerPort")
