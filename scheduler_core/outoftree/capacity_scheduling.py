"""CapacityScheduling with ElasticQuota (kubernetes-sigs/scheduler-plugins pkg/capacityscheduling).

An ElasticQuota (scheduling.x-k8s.io/v1alpha1, one per namespace) gives the namespace a `min`
it is guaranteed and a `max` it may never exceed; between the two it borrows what other
quotas leave unused. PreFilter rejects a pod when

- its quota's used resources plus the pod (and the nominated pods of its namespace that are at
  least as important) would exceed the quota's max, or
- all quotas' used resources plus the pod (and the nominated pods that count) would exceed the
  sum of all mins: nobody may borrow beyond what is guaranteed in total.

The plugin keeps each quota's used resources and the pods counted in them, as the Go plugin
does: Reserve counts the pod being scheduled (addPodIfNotPresent) and Unreserve takes it out
again (deletePodIfPresent). What the Go plugin's informers bring (quotas added, updated or
deleted; pods assigned, deleted or finished) is read at each PreFilter from the cluster's
ElasticQuotas and this cycle's snapshot, whose pods are the bound and assumed ones: a pod
counted once is not counted twice, and a counted pod the snapshot no longer holds is taken out.
Pods of namespaces without a quota are not limited. PostFilter preempts with the quotas in mind
(capacity_preemption.py); like the Go plugin, it is meant to replace DefaultPreemption at
PostFilter.
"""
from __future__ import annotations

from ..framework.interfaces import (
    EnqueueExtensions,
    PostFilterPlugin,
    PreFilterExtensions,
    PreFilterPlugin,
    ReservePlugin,
)
from ..framework.status import Status
from ..framework.types import Resource
from ..plugins.defaultpreemption.preemption import Evaluator
from ..quantity import QuantityError
from .capacity_preemption import QuotaPreemptor

NAME = "CapacityScheduling"
KIND = "ElasticQuota"
SNAPSHOT_KEY = NAME + "/ElasticQuotaSnapshot"
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
UPPER_BOUND_OF_MAX = 2**63 - 1   # math.MaxInt64: an unset max is no limit
LOWER_BOUND_OF_MIN = 0


def _bound(value: int) -> Resource:
    """makeResourceListForBound: cpu, memory and ephemeral storage only."""
    return Resource(milli_cpu=value, memory=value, ephemeral_storage=value)


def exceeds(x1: Resource, x2: Resource, y: Resource, bound: int) -> bool:
    """cmp2: x1 + x2 > y in some resource; a scalar y does not name counts as `bound`."""
    for name in ("milli_cpu", "memory", "ephemeral_storage", "allowed_pod_number"):
        if getattr(x1, name) + getattr(x2, name) > getattr(y, name):
            return True
    return any(quantity + x2.scalar.get(name, 0) > y.scalar.get(name, bound)
               for name, quantity in x1.scalar.items())


class ElasticQuotaInfo:
    """One namespace's quota; `pods` maps the key (uid) of each pod counted in `used` to its
    requests, so a pod is counted once and taken out with what it added."""

    def __init__(self, namespace: str, min_: Resource, max_: Resource, used: Resource,
                 pods: dict[str, Resource] | None = None):
        self.namespace, self.min, self.max, self.used = namespace, min_, max_, used
        self.pods = dict(pods or {})

    def add_pod_if_not_present(self, pod) -> None:
        if pod.uid not in self.pods:
            self.pods[pod.uid] = pod.requests
            self.used.add(pod.requests)

    def delete_pod_if_present(self, uid: str) -> None:
        requests = self.pods.pop(uid, None)
        if requests is not None:
            self.used.add(requests, -1)

    def used_over_max_with(self, request: Resource) -> bool:
        return exceeds(request, self.used, self.max, UPPER_BOUND_OF_MAX)

    def used_over_min_with(self, request: Resource) -> bool:
        return exceeds(request, self.used, self.min, LOWER_BOUND_OF_MIN)

    def used_over_min(self) -> bool:
        return exceeds(self.used, Resource(), self.min, LOWER_BOUND_OF_MIN)

    def clone(self) -> ElasticQuotaInfo:
        return ElasticQuotaInfo(self.namespace, self.min, self.max, self.used.clone(),
                                self.pods)


class ElasticQuotaInfos(dict):
    """namespace -> ElasticQuotaInfo; a cycle-state value AddPod/RemovePod update."""

    def clone(self) -> ElasticQuotaInfos:
        return ElasticQuotaInfos({ns: info.clone() for ns, info in self.items()})

    def aggregated_used_over_min_with(self, request: Resource) -> bool:
        used, min_ = request.clone(), Resource()
        for info in self.values():
            used.add(info.used)
            min_.add(info.min)
        return exceeds(used, Resource(), min_, LOWER_BOUND_OF_MIN)


def sync_quotas(infos: ElasticQuotaInfos, quotas: list[dict]) -> None:
    """The ElasticQuota informer's handlers: a new quota starts empty, an updated one keeps its
    pods and used resources (updateElasticQuota), a deleted one is dropped."""
    limits = {}
    for eq in quotas:
        spec = eq.get("spec") or {}
        meta = eq.get("metadata") or {}
        limits[meta.get("namespace") or "default"] = (
            _limit(spec, "min", LOWER_BOUND_OF_MIN, meta),
            _limit(spec, "max", UPPER_BOUND_OF_MAX, meta))
    for ns in set(infos) - set(limits):
        del infos[ns]
    for ns, (min_, max_) in limits.items():
        old = infos.get(ns)
        infos[ns] = ElasticQuotaInfo(ns, min_, max_, old.used if old else Resource(),
                                     old.pods if old else None)


def sync_pods(infos: ElasticQuotaInfos, node_infos) -> None:
    """The pod informer's handlers for assigned pods (addPod, deletePod): every pod on a node
    counts in its namespace's quota once; a counted pod no longer on any node (deleted, or
    finished: the cache holds running pods only) is taken out."""
    on_nodes: dict[str, set[str]] = {}
    for ni in node_infos:
        for pi in ni.pods:
            info = infos.get(pi.namespace)
            if info is not None:
                info.add_pod_if_not_present(pi)
                on_nodes.setdefault(pi.namespace, set()).add(pi.uid)
    for ns, info in infos.items():
        for uid in set(info.pods) - on_nodes.get(ns, set()):
            info.delete_pod_if_present(uid)


def _limit(spec: dict, field: str, bound: int, meta: dict) -> Resource:
    if spec.get(field) is None:
        return _bound(bound)
    try:
        return Resource.from_list(spec[field])
    except (QuantityError, AttributeError) as exc:
        raise ValueError(f"{KIND} {meta.get('namespace') or 'default'}/{meta.get('name', '')}: "
                         f"field spec.{field}: {exc}") from exc


class PodRequests:
    """PreFilterState: the pod's requests, alone and with the nominated pods that count
    against its quota (in_eq) and against all quotas (in_all)."""

    __slots__ = ("in_all", "in_eq", "pod")

    def __init__(self, pod: Resource, in_eq: Resource, in_all: Resource):
        self.pod, self.in_eq, self.in_all = pod, in_eq, in_all

    def clone(self) -> PodRequests:
        return self


class CapacityScheduling(PreFilterPlugin, PreFilterExtensions, PostFilterPlugin, ReservePlugin,
                         EnqueueExtensions):
    NAME = NAME

    def __init__(self, handle):
        self.handle = handle
        self.elastic_quota_infos = ElasticQuotaInfos()   # the live bookkeeping, across cycles

    def pre_filter(self, state, pod, nodes):
        try:
            sync_quotas(self.elastic_quota_infos, self.handle.objects.extra.get(KIND) or [])
        except ValueError as exc:
            return None, Status.as_error(str(exc))
        sync_pods(self.elastic_quota_infos, self.handle.snapshot.list())
        infos = self.elastic_quota_infos.clone()   # snapshotElasticQuota
        state.write(SNAPSHOT_KEY, infos)
        eq = infos.get(pod.namespace)
        if eq is None:
            state.write(PRE_FILTER_STATE_KEY, PodRequests(pod.requests, pod.requests,
                                                          pod.requests))
            return None, None
        in_eq, in_all = pod.requests.clone(), pod.requests.clone()
        for p in self._nominated_pods(pod):
            info = infos.get(p.namespace)
            if info is None:
                continue
            if p.namespace == pod.namespace and p.priority >= pod.priority:
                in_eq.add(p.requests)
                in_all.add(p.requests)
            elif p.namespace != pod.namespace and not info.used_over_min():
                in_all.add(p.requests)
        state.write(PRE_FILTER_STATE_KEY, PodRequests(pod.requests, in_eq, in_all))
        if eq.used_over_max_with(in_eq):
            return None, Status.unschedulable(
                f"Pod {pod.namespace}/{pod.name} is rejected in PreFilter because "
                f"ElasticQuota {eq.namespace} is more than Max")
        if infos.aggregated_used_over_min_with(in_all):
            return None, Status.unschedulable(
                f"Pod {pod.namespace}/{pod.name} is rejected in PreFilter because total "
                "ElasticQuota used is more than min")
        return None, None

    def _nominated_pods(self, pod):
        for ni in self.handle.snapshot.list():
            for p in self.handle.nominated_pods_for_node(ni.name):
                if p.uid != pod.uid:
                    yield p

    def pre_filter_extensions(self):
        return self

    def add_pod(self, state, pod, pod_to_add, node_info):
        info = state.read(SNAPSHOT_KEY).get(pod_to_add.namespace)
        if info is not None:
            info.used.add(pod_to_add.requests)
        return None

    def remove_pod(self, state, pod, pod_to_remove, node_info):
        info = state.read(SNAPSHOT_KEY).get(pod_to_remove.namespace)
        if info is not None:
            info.used.add(pod_to_remove.requests, -1)
        return None

    def post_filter(self, state, pod, node_to_status):
        preemptor = QuotaPreemptor(self.handle, state, lambda s: s.read(SNAPSHOT_KEY),
                                   lambda s: s.read(PRE_FILTER_STATE_KEY))
        return Evaluator(NAME, self.handle, preemptor).preempt(state, pod, node_to_status)

    def reserve(self, state, pod, node_name):
        info = self.elastic_quota_infos.get(pod.namespace)
        if info is not None:
            info.add_pod_if_not_present(pod)
        return None

    def unreserve(self, state, pod, node_name):
        info = self.elastic_quota_infos.get(pod.namespace)
        if info is not None:
            info.delete_pod_if_present(pod.uid)

    def events_to_register(self) -> set[str]:
        # A deleted pod frees quota; a quota added, changed or removed changes the limits.
        return {"AssignedPodDelete", "ElasticQuotaAdd", "ElasticQuotaUpdate",
                "ElasticQuotaDelete"}


def new(args: dict, handle) -> CapacityScheduling:
    return CapacityScheduling(handle)
