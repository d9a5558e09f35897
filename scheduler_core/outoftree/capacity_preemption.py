"""CapacityScheduling's PostFilter: preemption that respects ElasticQuota (capacity_scheduling.go
preemptor), on the generic preemption.Evaluator DefaultPreemption also uses.

A preemptor whose quota would stay within its min (with its nominated pods) takes back what
other quotas borrowed: its victims are pods of other quotas that use more than their min,
whatever their priority. A preemptor that would pass its min may only evict lower-priority
pods of its own quota. Pods of namespaces without a quota only preempt, and are only
preempted by, pods without a quota, by priority.
"""
from __future__ import annotations

from ..framework.status import Code, Status
from ..plugins.defaultpreemption.default_preemption import filter_pods_with_pdb_violation
from ..plugins.defaultpreemption.preemption import importance_key

PREEMPT_NEVER = "Never"
NOT_ELIGIBLE_NEVER = "not eligible due to preemptionPolicy=Never."
NOT_ELIGIBLE_TERMINATING = "not eligible due to a terminating pod on the nominated node."
GLOBAL_QUOTA_EXCEEDED = "global quota max exceeded"


class QuotaPreemptor:
    """The preemption.Interface of CapacityScheduling for one PostFilter call on `state`.
    `quotas(state)` and `requests(state)` read what its PreFilter left in a cycle state."""

    def __init__(self, handle, state, quotas, requests):
        self.handle = handle
        self.state = state
        self._quotas = quotas
        self._requests = requests

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        return 0, num_nodes   # every node, from the first

    def candidates_to_victims_map(self, candidates) -> dict:
        return {c.name: c.victims for c in candidates}

    def pod_eligible_to_preempt_others(self, pod, nominated_node_status):
        if pod.preemption_policy == PREEMPT_NEVER:
            return False, NOT_ELIGIBLE_NEVER
        node_info = self.handle.snapshot.get(pod.nominated_node_name) \
            if pod.nominated_node_name else None
        if node_info is None or nominated_node_status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
            return True, ""
        infos, req = self._quotas(self.state), self._requests(self.state)
        own = infos.get(pod.namespace)
        for p in node_info.pods:
            if not p.terminating:
                continue
            other = infos.get(p.namespace)
            if own is None:
                blocking = other is None and p.priority < pod.priority
            elif other is None:
                blocking = False
            elif p.namespace == pod.namespace:
                blocking = p.priority < pod.priority
            else:
                blocking = not own.used_over_min_with(req.in_eq) and other.used_over_min()
            if blocking:
                return False, NOT_ELIGIBLE_TERMINATING
        return True, ""

    def without_victims(self, pod, node_info):
        """None: who may be a victim depends on the quotas of the cycle's state, so every
        node is dry-run."""
        return None

    def select_victims_on_node(self, state, pod, node_info, pdbs):
        infos, req = self._quotas(state), self._requests(state)
        fwk = self.handle.framework

        def remove(victim) -> Status:
            if not node_info.remove_pod(victim):
                return Status.as_error(f"no corresponding pod {victim.name} in pods of node "
                                       f"{node_info.name}")
            return fwk.run_pre_filter_extension_remove_pod(state, pod, victim, node_info)

        def fits() -> bool:
            return fwk.run_filter_plugins_with_nominated_pods(
                state, pod, node_info, nominator=self.handle.nominated_pods_for_node
            ).is_success()

        own = infos.get(pod.namespace)
        potential = [p for p in sorted(node_info.pods, key=importance_key, reverse=True)
                     if _potential_victim(p, pod, infos, own, req)]
        for victim in potential:
            status = remove(victim)
            if not status.is_success():
                return None, 0, status
        if not potential:
            return None, 0, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                   f"No victims found on node {node_info.name} for preemptor "
                                   f"pod {pod.name}")
        status = fwk.run_filter_plugins_with_nominated_pods(
            state, pod, node_info, nominator=self.handle.nominated_pods_for_node)
        if not status.is_success():
            return None, 0, status
        if own is not None and (own.used_over_max_with(req.pod)
                                or infos.aggregated_used_over_min_with(req.pod)):
            return None, 0, Status.unschedulable(GLOBAL_QUOTA_EXCEEDED)
        potential.sort(key=importance_key)
        violating, non_violating = filter_pods_with_pdb_violation(potential, pdbs)
        victims: list = []

        def reprieve(p):
            """(fits with p back, error Status or None), as reprievePod."""
            node_info.add_pod(p)
            status = fwk.run_pre_filter_extension_add_pod(state, pod, p, node_info)
            if not status.is_success():
                return False, status
            fit = fits()
            if not fit:
                status = remove(p)
                if not status.is_success():
                    return False, status
                victims.append(p)
            if own is not None and (own.used_over_max_with(req.in_eq)
                                    or infos.aggregated_used_over_min_with(req.in_all)):
                status = remove(p)
                if not status.is_success():
                    return False, status
                victims.append(p)
            return fit, None

        num_violating = 0
        for p in violating:
            fit, error = reprieve(p)
            if error is not None:
                return None, 0, error
            num_violating += not fit
        for p in non_violating:
            _, error = reprieve(p)
            if error is not None:
                return None, 0, error
        return victims, num_violating, Status()


def _potential_victim(p, pod, infos, own, req) -> bool:
    other = infos.get(p.namespace)
    if own is None:
        return other is None and p.priority < pod.priority
    if other is None:
        return False
    if own.used_over_min_with(req.in_eq):
        return p.namespace == pod.namespace and p.priority < pod.priority
    return p.namespace != pod.namespace and other.used_over_min()
