"""The preemption Evaluator (framework/preemption/preemption.go).

Preempt finds the nodes where removing lower-priority pods would let the preemptor fit
(DryRunPreemption over a random window of the Unschedulable nodes), lets extenders narrow them,
picks one (pickOneNodeForPreemption) and prepares it: victims are deleted gracefully and
lower-priority pods nominated to the node lose their nomination.

The plugin-specific parts (eligibility, victim selection, which nodes have no possible victim,
how many candidates) come from the `interface` object, the DefaultPreemption plugin, as Go's
Evaluator embeds preemption.Interface.
Go dry-runs nodes in parallel and stops when enough candidates are found; this runs them one by
one (parallelism 1), so the candidates found are the first ones in (offset + i) % n order.
"""
from __future__ import annotations

from ...errors import aggregate
from ...framework.diagnosis import Diagnosis, FitError, NodeToStatus
from ...framework.interfaces import PostFilterResult
from ...framework.status import Code, Status
from ...framework.types import Victims

MAX_INT32 = 2**31 - 1
MIN_CHUNK = 16   # nodes dry-run at once after the first chunk
PREEMPTION_NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_CANDIDATE = "no candidate node for preemption"


class Candidate:
    """A node the preemptor could be nominated to, with the victims that make room."""

    __slots__ = ("name", "victims")

    def __init__(self, name: str, victims: Victims):
        self.name = name
        self.victims = victims

    def __repr__(self):
        return f"Candidate({self.name}, {self.victims!r})"


# --- pod ordering (pkg/scheduler/util) ---------------------------------------------------------
def importance_key(pod) -> tuple:
    """Sort key for MoreImportantPod: higher priority first, then the earlier start time."""
    return (-pod.priority, pod.start_time)


def earliest_pod_start_time(victims: Victims) -> float:
    """GetEarliestPodStartTime: the earliest start among the highest-priority victims."""
    top = max(p.priority for p in victims.pods)
    return min(p.start_time for p in victims.pods if p.priority == top)


# --- pickOneNodeForPreemption ------------------------------------------------------------------
def _sum_adjusted_priorities(victims: Victims) -> int:
    # MaxInt32+1 is added to every priority so that all are >= 0: otherwise a node with a few
    # negative-priority victims would lose to one with fewer victims of the same priority.
    return sum(p.priority + MAX_INT32 + 1 for p in victims.pods)


def _seconds(t: float):
    """A start time (Unix seconds) as the trace shows it: whole seconds without '.0'."""
    return int(t) if float(t).is_integer() else t


# (criterion, score: higher wins, value shown in the trace)
CRITERIA = (
    ("fewest PDB violations",
     lambda v: -v.num_pdb_violations, lambda v: v.num_pdb_violations),
    ("lowest highest-priority victim",
     lambda v: -v.pods[0].priority, lambda v: v.pods[0].priority),
    ("smallest sum of victim priorities (each + 2^31)",
     lambda v: -_sum_adjusted_priorities(v), _sum_adjusted_priorities),
    ("fewest victims",
     lambda v: -len(v.pods), lambda v: len(v.pods)),
    ("latest start time of the highest-priority victims",
     earliest_pod_start_time, lambda v: _seconds(earliest_pod_start_time(v))),
)
ONLY_CANDIDATE = "only candidate"
FIRST_CANDIDATE = "first candidate (every criterion tied)"


def pick_one_node_for_preemption(nodes_to_victims: dict[str, Victims]) -> tuple[str, dict]:
    """The node to preempt on, and why it won (the deciding criterion and the runner-up).

    Each criterion keeps the nodes with the best score; the first one that leaves a single
    node decides. Victims are ordered most important first, so pods[0] is the highest priority.
    If every criterion ties, the first node in candidate order wins (Go takes the first of a
    map, that is an arbitrary one).
    """
    remaining = list(nodes_to_victims)
    if len(remaining) == 1:
        return remaining[0], {"node": remaining[0], "criterion": ONLY_CANDIDATE,
                              "runnerUp": None, "why": f"{remaining[0]} is the only candidate"}
    for criterion, score, shown in CRITERIA:
        scores = {node: score(nodes_to_victims[node]) for node in remaining}
        best = max(scores.values())
        selected = [node for node in remaining if scores[node] == best]
        if len(selected) == 1:
            winner = selected[0]
            second = max(s for s in scores.values() if s != best)
            runner_up = next(node for node in remaining if scores[node] == second)
            return winner, _decision(winner, runner_up, criterion,
                                     shown(nodes_to_victims[winner]),
                                     shown(nodes_to_victims[runner_up]))
        remaining = selected
    first, runner_up = remaining[0], remaining[1]
    return first, {"node": first, "criterion": FIRST_CANDIDATE, "runnerUp": runner_up,
                   "why": f"{first} and {runner_up} tie on every criterion; {first} comes first"}


def _decision(winner: str, runner_up: str, criterion: str, won, lost) -> dict:
    return {
        "node": winner, "criterion": criterion, "runnerUp": runner_up,
        "values": {winner: won, runner_up: lost},
        "why": f"{winner} beats {runner_up} on {criterion}: {won} vs {lost}",
    }


# --- the Evaluator -----------------------------------------------------------------------------
class Evaluator:
    """preemption.Evaluator: the generic preemption flow, specialised by `interface`."""

    def __init__(self, plugin_name: str, handle, interface):
        self.plugin_name = plugin_name
        self.handle = handle
        self.interface = interface
        self.last_victims: list = []   # the victims of the last successful preemption

    def preempt(self, state, pod, node_to_status: NodeToStatus):
        """(PostFilterResult | None, Status), with Go's meanings:

        None + Error: a transient failure; None + Unschedulable: not eligible (the nomination
        stays); PostFilterResult("") + Unschedulable: preemption cannot help (the nomination is
        cleared); PostFilterResult(node) + Success: victims are being deleted on node.
        What was tried, and why the chosen node won, is left in state under detail_key.
        """
        nominated_status = node_to_status.get(pod.nominated_node_name)
        eligible, message = self.interface.pod_eligible_to_preempt_others(pod, nominated_status)
        if not eligible:
            return None, Status(Code.UNSCHEDULABLE, message)

        all_nodes = self.handle.snapshot.list()
        detail: dict = {}
        candidates, statuses, errors = self.find_candidates(state, all_nodes, pod,
                                                            node_to_status, detail)
        state.write(self.detail_key, detail)
        if errors and not candidates:
            return None, Status.as_error(aggregate(errors))
        if not candidates:
            diagnosis = Diagnosis()
            diagnosis.node_to_status = statuses
            statuses.absent = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, PREEMPTION_NOT_HELPFUL)
            # An empty nominated node name clears the pod's nomination, if it has one.
            return PostFilterResult(""), Status(Code.UNSCHEDULABLE,
                                                str(FitError(pod, len(all_nodes), diagnosis)))

        candidates, status = self.call_extenders(pod, candidates)
        if not status.is_success():
            return None, status
        if self.handle.extenders:
            detail["afterExtenders"] = [c.name for c in candidates]
        best, decision = self.select_candidate(candidates)
        if best is None or not best.name:
            return None, Status(Code.UNSCHEDULABLE, NO_CANDIDATE)
        detail["decision"] = decision

        status = self.prepare_candidate(best, pod)
        if not status.is_success():
            return None, status
        self.last_victims = list(best.victims.pods)
        return PostFilterResult(best.name), Status()

    @property
    def detail_key(self) -> str:
        return f"{self.plugin_name}/detail"

    def find_candidates(self, state, all_nodes, pod, node_to_status: NodeToStatus,
                        detail: dict):
        """(candidates, NodeToStatus of the nodes that gave none, error messages), from the
        nodes that failed with Unschedulable (not Unresolvable); `detail` records the search:
        how many potential nodes, the offset, the candidates and the nodes rejected."""
        if not all_nodes:
            return [], NodeToStatus(), ["no nodes available"]
        potential = node_to_status.nodes_for_status_code(all_nodes, Code.UNSCHEDULABLE)
        detail["potentialNodes"] = len(potential)
        if not potential:
            return [], NodeToStatus(), []
        pdbs = list(self.handle.objects.pdbs)
        offset, num_candidates = self.interface.get_offset_and_num_candidates(len(potential))
        detail["offset"], detail["numCandidates"] = offset, num_candidates
        candidates, statuses, errors = self.dry_run_preemption(
            state, pod, potential, pdbs, offset, num_candidates)
        detail["candidates"] = [
            {"node": c.name, "victims": [p.key for p in c.victims.pods],
             "pdbViolations": c.victims.num_pdb_violations} for c in candidates]
        detail["rejected"] = {name: f"{s.code.label}: {s.message()}" if s.message()
                              else s.code.label for name, s in statuses.items()}
        return candidates, statuses, errors

    def dry_run_preemption(self, state, pod, potential_nodes, pdbs, offset: int,
                           num_candidates: int):
        """(candidates, statuses of the nodes that gave none, error messages).

        Nodes are tried from `offset` on, wrapping around, each on a copy of its NodeInfo and
        of the CycleState. Candidates that violate no PDB come first. Each list keeps at most
        `num_candidates`; the search stops once there is a non-violating candidate and the two
        lists hold `num_candidates` together, so it may look past `num_candidates` nodes to
        find one that violates no PDB. Nodes are worked in chunks, so that an interface
        deciding many nodes at once works about as many as are needed: `num_candidates`
        first, then as many as candidates are still missing (at least MIN_CHUNK).
        """
        non_violating: list[Candidate] = []
        violating: list[Candidate] = []
        statuses = NodeToStatus()
        errors: list[str] = []
        n = len(potential_nodes)
        # The interface may decide many nodes at once (None for a node: ask it alone).
        batch = getattr(self.interface, "victims_on_nodes", None)
        select_many = batch(state, pod, pdbs) if batch is not None else None
        first, chunk = 0, max(num_candidates, 1)
        while first < n:
            nodes = [potential_nodes[(offset + i) % n] for i in range(first, min(n, first + chunk))]
            first += len(nodes)
            decided = select_many(nodes) if select_many is not None else [None] * len(nodes)
            for node, result in zip(nodes, decided):
                if result is None:
                    result = self._select_victims_alone(state, pod, node, pdbs)
                pods, num_violations, status = result
                if status.is_success() and pods:
                    chosen = non_violating if num_violations == 0 else violating
                    if len(chosen) < num_candidates:
                        chosen.append(Candidate(node.name, Victims(pods, num_violations)))
                    if non_violating and len(non_violating) + len(violating) >= num_candidates:
                        return non_violating + violating, statuses, errors
                    continue
                if status.is_success():
                    status = Status.as_error(
                        f'expected at least one victim pod on node "{node.name}"')
                if status.code == Code.ERROR:
                    errors.append(status.message())
                statuses.set(node.name, status)
            # A candidate or two short (a node with a nominated pod in the first chunk):
            # another whole chunk would be mostly nodes the search never needs.
            chunk = max(num_candidates - len(non_violating) - len(violating), MIN_CHUNK)
        return non_violating + violating, statuses, errors

    def _select_victims_alone(self, state, pod, node, pdbs):
        """select_victims_on_node on copies of the node and the state."""
        # A node where nothing could be a victim gets SelectVictimsOnNode's answer without
        # the copies of the node and the state (most nodes, when pods of one priority fill
        # a cluster: copying them was most of a failed cycle).
        status = self.interface.without_victims(pod, node)
        if status is not None:
            return None, 0, status
        return self.interface.select_victims_on_node(state.clone(), pod, node.clone(), pdbs)

    def call_extenders(self, pod, candidates: list[Candidate]):
        """Let extenders that support preemption narrow the candidates (and their victims).

        The seam with the extender client: each extender offers supports_preemption(),
        is_interested(pod), is_ignorable(), name() and process_preemption(pod, victims_by_node)
        -> {node name: Victims}, raising OSError or ValueError when the call fails.
        """
        extenders = self.handle.extenders
        if not extenders:
            return candidates, Status()
        victims_map = self.interface.candidates_to_victims_map(candidates)
        if not victims_map:
            return candidates, Status()
        for extender in extenders:
            if not extender.supports_preemption() or not extender.is_interested(pod):
                continue
            try:
                narrowed = dict(extender.process_preemption(pod, victims_map))
            except (OSError, ValueError) as exc:
                if extender.is_ignorable():
                    continue
                return None, Status.as_error(exc)
            for node_name, victims in list(narrowed.items()):
                if victims is None or not victims.pods:
                    if extender.is_ignorable():
                        del narrowed[node_name]
                        continue
                    return None, Status.as_error(
                        f'expected at least one victim pod on node "{node_name}"')
            # Later extenders see what the earlier ones left.
            victims_map = narrowed
            if not victims_map:
                break
        return [Candidate(name, victims) for name, victims in victims_map.items()], Status()

    def select_candidate(self, candidates: list[Candidate]):
        """(the best candidate or None, the decision for the trace)."""
        if not candidates:
            return None, None
        victims_map = self.interface.candidates_to_victims_map(candidates)
        node, decision = pick_one_node_for_preemption(victims_map)
        return Candidate(node, victims_map[node]), decision

    def prepare_candidate(self, candidate: Candidate, pod) -> Status:
        """Delete the victims and clear lower-priority nominations on the chosen node.

        A victim waiting on Permit is rejected rather than deleted (the handle does that);
        the others get the DisruptionTarget condition, then a graceful deletion.
        """
        for victim in candidate.victims.pods:
            if victim.terminating:
                continue  # its graceful deletion has already started
            if self.handle.get_waiting_pod(victim.uid) is None:
                mark_preempted(victim, pod)
            self.handle.delete_pod(victim, "preempted")
        # Lower-priority pods nominated here may no longer fit: drop their nomination so they
        # look elsewhere rather than wait for the victims to go.
        for nominated in get_lower_priority_nominated_pods(self.handle, pod, candidate.name):
            self.handle.clear_nominated_node(nominated)
        return Status()


# --- helpers -----------------------------------------------------------------------------------
DISRUPTION_TARGET = "DisruptionTarget"
REASON_PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"


def mark_preempted(victim, preemptor) -> None:
    """Add the DisruptionTarget condition the scheduler patches onto a victim before deleting."""
    status = victim.obj.setdefault("status", {})
    conditions = [c for c in status.get("conditions") or [] if c.get("type") != DISRUPTION_TARGET]
    conditions.append({
        "type": DISRUPTION_TARGET, "status": "True", "reason": REASON_PREEMPTION_BY_SCHEDULER,
        "message": f"{preemptor.scheduler_name}: preempting to accommodate a higher priority pod",
    })
    status["conditions"] = conditions


def terminating_by_preemption(pod) -> bool:
    """podTerminatingByPreemption: being deleted, with the scheduler's DisruptionTarget."""
    if not pod.terminating:
        return False
    for condition in (pod.obj.get("status") or {}).get("conditions") or []:
        if condition.get("type") == DISRUPTION_TARGET:
            return (condition.get("status") == "True"
                    and condition.get("reason") == REASON_PREEMPTION_BY_SCHEDULER)
    return False


def get_lower_priority_nominated_pods(handle, pod, node_name: str) -> list:
    return [p for p in handle.nominated_pods_for_node(node_name) if p.priority < pod.priority]
