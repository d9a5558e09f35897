"""DefaultPreemption: make room for a pod by evicting lower-priority pods
(framework/plugins/defaultpreemption/default_preemption.go, v1.31 with synchronous preemption).

PostFilter runs the Evaluator (preemption.py); this file holds what is specific to the default
plugin: who may preempt, which pods a node would lose (SelectVictimsOnNode, reprieving the most
important pods first and PDB-protected ones before the rest) and how many candidate nodes to
look for (minCandidateNodesPercentage / minCandidateNodesAbsolute).
"""
from __future__ import annotations

import functools

from ...errors import child, invalid, is_int, not_in_range, unmarshal_type_error
from ...framework.cycle_state import CycleState
from ...framework.interfaces import EnqueueExtensions, PostFilterPlugin
from ...framework.runtime import nominated_to_add
from ...framework.status import Code, Status
from ...framework.types import NodeInfo, PodInfo, Victims
from ...labels import LabelSelector, SelectorError
from .. import names
from ..helper import checked_args
from .preemption import Evaluator, importance_key, terminating_by_preemption
from .victims_vector import VictimsOnRows

NAME = names.DEFAULT_PREEMPTION
DETAIL_STATE_KEY = f"{NAME}/detail"
DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE = 10
DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE = 100
PREEMPT_NEVER = "Never"
NOT_ELIGIBLE_NEVER = "not eligible due to preemptionPolicy=Never."
NOT_ELIGIBLE_TERMINATING = "not eligible due to a terminating pod on the nominated node."
NO_VICTIMS = "No preemption victims found for incoming pod"


class DefaultPreemption(PostFilterPlugin, EnqueueExtensions):
    NAME = NAME

    def __init__(self, args: dict, handle):
        self.handle = handle
        self.min_candidate_nodes_percentage = args["minCandidateNodesPercentage"]
        self.min_candidate_nodes_absolute = args["minCandidateNodesAbsolute"]
        self.evaluator = Evaluator(NAME, handle, self)
        # v1.37 (PR #140180): a preemption that found a node says so in FailedScheduling.
        self.says_placement = handle.features.minor >= 37

    # PostFilter -------------------------------------------------------------------------
    def post_filter(self, state: CycleState, pod: PodInfo, node_to_status):
        result, status = self.evaluator.preempt(state, pod, node_to_status)
        if self.says_placement and status.is_success() and result is not None:
            victims = len(self.evaluator.last_victims)
            status = Status(Code.SUCCESS, f"found a potential placement for pod on node "
                                          f"{result.nominated_node_name}, preempting {victims} "
                                          "victims")
        message = status.message()
        if message:
            return result, Status(status.code, "preemption: " + message)
        return result, status

    def calculate_num_candidates(self, num_nodes: int) -> int:
        """How many candidates to dry-run for: a share of the nodes, at least the absolute
        minimum, at most every node."""
        n = num_nodes * self.min_candidate_nodes_percentage // 100
        n = max(n, self.min_candidate_nodes_absolute)
        return min(n, num_nodes)

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        """A random start into the potential nodes, so that preemption spreads over the cluster."""
        return self.handle.rng.randrange(num_nodes), self.calculate_num_candidates(num_nodes)

    def candidates_to_victims_map(self, candidates) -> dict[str, Victims]:
        return {c.name: c.victims for c in candidates}

    def without_victims(self, pod: PodInfo, node_info: NodeInfo) -> Status | None:
        """What select_victims_on_node answers for a node with no pod of lower priority than
        `pod` (nothing leaves, so the node is as Filter saw it); None when it has one."""
        if any(p.priority < pod.priority for p in node_info.pods):
            return None
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, NO_VICTIMS)

    def select_victims_on_node(self, state: CycleState, pod: PodInfo, node_info: NodeInfo,
                               pdbs: list[dict]):
        """(victims most important first, PDB violations, Status) on a copy of the node.

        Every lower-priority pod is removed; if the pod still does not fit, the node cannot
        help. Otherwise pods are added back (reprieved) from the most important down, first
        those whose eviction would violate a PDB, then the rest; a pod that no longer lets the
        preemptor fit stays a victim. state and node_info are copies the caller gives away.
        """
        fwk = self.handle.framework
        fit = self._deciding_fit(fwk, state, pod, node_info)
        # When only NodeResourcesFit can change its mind, pods leave and come back on its
        # sums; the node itself is left as it is, the other plugins' verdicts hold for it.
        room = fit.room(state, node_info) if fit is not None else None

        def remove(victim: PodInfo) -> Status:
            if room is not None:
                room.drop(victim)   # one of node_info.pods: no running plugin keeps state
                return Status()
            if not node_info.remove_pod(victim):
                return Status.as_error(f"no corresponding pod {victim.name} in pods of node "
                                       f"{node_info.name}")
            return fwk.run_pre_filter_extension_remove_pod(state, pod, victim, node_info)

        def filter_status() -> Status:
            if room is not None:   # no pod at least as important is nominated here
                return fwk.run_filter_plugins(state, pod, node_info, room=room)
            return fwk.run_filter_plugins_with_nominated_pods(
                state, pod, node_info, nominator=self.handle.nominated_pods_for_node)

        potential = [p for p in node_info.pods if p.priority < pod.priority]
        for victim in potential:
            status = remove(victim)
            if not status.is_success():
                return None, 0, status
        # Nothing was removed: the node is as the Filter saw it, so there is no point retrying.
        if not potential:
            return None, 0, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, NO_VICTIMS)
        # If the preemptor does not fit even without every lower-priority pod, this node cannot
        # help. (A preemptor with affinity to one of its victims is not worked around: Go
        # decided it is not worth the cost, such affinity being a bad idea anyway.)
        status = filter_status()
        if not status.is_success():
            return None, 0, status

        potential.sort(key=importance_key)
        violating, non_violating = filter_pods_with_pdb_violation(potential, pdbs)
        victims: list[PodInfo] = []

        def reprieve(candidate: PodInfo):
            """(still fits with the pod back, error Status or None)."""
            if room is not None:   # the other plugins passed the node already
                if room.take(candidate):
                    return True, None
                victims.append(candidate)
                return False, None
            node_info.add_pod(candidate)
            status = fwk.run_pre_filter_extension_add_pod(state, pod, candidate, node_info)
            if not status.is_success():
                return False, status
            if filter_status().is_success():
                return True, None
            status = remove(candidate)
            if not status.is_success():
                return False, status
            victims.append(candidate)
            return False, None

        num_violating = 0
        for candidate in violating:
            kept, error = reprieve(candidate)
            if error is not None:
                return None, 0, error
            num_violating += not kept
        for candidate in non_violating:
            _, error = reprieve(candidate)
            if error is not None:
                return None, 0, error
        # Two reprieve passes interleave the importance order; restore it.
        if violating and non_violating:
            victims.sort(key=importance_key)
        return victims, num_violating, Status()

    def victims_on_nodes(self, state: CycleState, pod: PodInfo, pdbs: list[dict]):
        """select_victims_on_node for a list of nodes at once, on the columns
        (victims_vector.py), with None for the nodes it leaves to the per-node path; None
        when the dry run must go node by node."""
        split = functools.partial(filter_pods_with_pdb_violation, pdbs=pdbs,
                                  selectors=pdb_selectors(pdbs)) if pdbs else None
        on_rows = VictimsOnRows.of(self.handle.framework, self.handle, state, pod, split)
        return on_rows.select if on_rows is not None else None

    def _deciding_fit(self, fwk, state: CycleState, pod: PodInfo, node_info: NodeInfo):
        """NodeResourcesFit (the Framework's sums_filter) when it alone can change its mind
        as pods leave and come back to this node: every other running Filter plugin looks at
        the node only, no running plugin has AddPod/RemovePod to call, and no pod at least as
        important is nominated here. Then reprieving a pod needs only its sums, with the same
        results."""
        fit = fwk.sums_filter(state.skip_filter_plugins)
        if fit is None or nominated_to_add(pod, self.handle.nominated_pods_for_node(
                node_info.name)):
            return None
        return fit

    def pod_eligible_to_preempt_others(self, pod: PodInfo, nominated_node_status):
        """(eligible, why not). A pod whose earlier victims are still terminating on its
        nominated node waits for them instead of preempting more."""
        if pod.preemption_policy == PREEMPT_NEVER:
            return False, NOT_ELIGIBLE_NEVER
        nominated = pod.nominated_node_name
        if nominated:
            # The nominated node became unresolvable: it will never fit, preempt elsewhere.
            if nominated_node_status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return True, ""
            node_info = self.handle.snapshot.get(nominated)
            if node_info is not None:
                for p in node_info.pods:
                    if p.priority < pod.priority and terminating_by_preemption(p):
                        return False, NOT_ELIGIBLE_TERMINATING
        return True, ""

    # EnqueueExtensions ------------------------------------------------------------------
    def events_to_register(self) -> set[str]:
        # Preemption is synchronous here: the plugin never rejects a pod at PreEnqueue or
        # Filter, so no event can make it change its mind (EventsToRegister returns nil).
        return set()


def filter_pods_with_pdb_violation(pods: list[PodInfo], pdbs: list[dict], selectors=None):
    """(violating, non-violating), keeping the input order within each.

    Each matching PDB's disruptionsAllowed is spent pod by pod in order; a pod that takes one
    below zero would violate it. Pods already listed in the PDB's disruptedPods were counted
    by the API server and spend nothing. selectors: pdb_selectors(pdbs), when already made.
    """
    allowed = [int((pdb.get("status") or {}).get("disruptionsAllowed") or 0) for pdb in pdbs]
    if selectors is None:
        selectors = pdb_selectors(pdbs)
    violating, non_violating = [], []
    for pod in pods:
        violated = False
        # A pod with no labels matches no PDB.
        if pod.labels:
            for i, pdb in enumerate(pdbs):
                meta = pdb.get("metadata") or {}
                if (meta.get("namespace") or "default") != pod.namespace:
                    continue
                selector = selectors[i]
                if selector is None or not selector.matches(pod.labels):
                    continue
                if pod.name in ((pdb.get("status") or {}).get("disruptedPods") or {}):
                    continue
                allowed[i] -= 1
                if allowed[i] < 0:
                    violated = True
        (violating if violated else non_violating).append(pod)
    return violating, non_violating


def pdb_selectors(pdbs: list[dict]) -> list[LabelSelector | None]:
    return [_pdb_selector(pdb) for pdb in pdbs]


def _pdb_selector(pdb: dict) -> LabelSelector | None:
    """The PDB's selector, or None when it matches nothing (nil, empty or invalid)."""
    try:
        selector = LabelSelector((pdb.get("spec") or {}).get("selector"))
    except SelectorError:
        return None
    if selector.nothing or selector.is_empty():
        return None
    return selector


# Args ---------------------------------------------------------------------------------------
def default_args(args: dict) -> dict:
    """SetDefaults_DefaultPreemptionArgs: 10% of the nodes, at least 100 of them."""
    out = dict(args or {})
    for field, default in (("minCandidateNodesPercentage", DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE),
                           ("minCandidateNodesAbsolute", DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE)):
        value = out.get(field)
        if value is None:
            out[field] = default
        elif isinstance(value, float) and value.is_integer():
            out[field] = int(value)  # YAML 10.0 reaches Go's decoder as the JSON number 10
        elif not is_int(value):
            raise unmarshal_type_error(f"DefaultPreemptionArgs.{field}", value, "int32")
    return out


def validate_args(args: dict, path: str) -> list[str]:
    """ValidateDefaultPreemptionArgs."""
    percentage = args.get("minCandidateNodesPercentage", DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE)
    absolute = args.get("minCandidateNodesAbsolute", DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE)
    percentage_path = child(path, "minCandidateNodesPercentage")
    absolute_path = child(path, "minCandidateNodesAbsolute")
    errs = []
    if percentage < 0 or percentage > 100:
        errs.append(not_in_range(percentage_path, percentage, 0, 100))
    if absolute < 0:
        errs.append(not_in_range(absolute_path, absolute, 0))
    if percentage == 0 and absolute == 0:
        errs.append(invalid(percentage_path, percentage,
                            "cannot be zero at the same time as minCandidateNodesAbsolute"))
        errs.append(invalid(absolute_path, absolute,
                            "cannot be zero at the same time as minCandidateNodesPercentage"))
    return errs


def new(args: dict, handle) -> DefaultPreemption:
    args = checked_args(args, default_args, validate_args)
    return DefaultPreemption(args, handle)
