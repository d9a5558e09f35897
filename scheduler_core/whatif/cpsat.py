"""The global placement as a CP-SAT model (OR-Tools): one boolean per pending pod and node.

x[p, n] exists only where the engine's placement-independent Filter plugins accept the pod
(scheduler_core.whatif.static). On top, what pending pods do to each other, for the pods whose
profile enables the plugin, as the plugin judges it on the final placement (each pod checked
with every other pod placed):
- NodeResourcesFit: per node and resource, the pending pods' requests fit what the running
  pods leave of the allocatable; the pod count fits the allowed pods.
- NodePorts: two pending pods whose host ports conflict never share a node.
- InterPodAffinity: required anti-affinity terms keep matching pending pods out of each
  other's topology domain; required affinity needs, in the pod's domain of every term, a pod
  matching all its terms (running or pending), or the pod is the first of its group: it
  matches its own terms and no other pod matching them is placed anywhere.
- PodTopologySpread (DoNotSchedule): the pod's domain's count of matching pods minus the
  smallest count over the eligible domains is at most maxSkew (0 stands for the smallest
  while there are fewer domains than minDomains). The counts include the pod when it matches
  its own selector; this is the plugin's skew with the pod itself taken out, rewritten.
Objective: the most pods bound, then the highest sum of their static scores (two phases).
"""
from __future__ import annotations

import time

from ortools.sat.python import cp_model

from ..framework.cycle_state import CycleState
from ..framework.types import NodeInfo, PodInfo
from ..plugins.interpodaffinity.filtering import PRE_FILTER_STATE_KEY as AFFINITY_STATE_KEY
from ..plugins.interpodaffinity.terms import pod_matches_all_affinity_terms
from ..plugins.names import (
    INTER_POD_AFFINITY,
    NODE_PORTS,
    NODE_RESOURCES_FIT,
    POD_TOPOLOGY_SPREAD,
)
from ..plugins.nodeports import fits_ports
from ..plugins.noderesources.fit import compute_pod_request
from ..plugins.podtopologyspread.common import (
    nodes_with_all_topology_keys,
    required_node_affinity,
)
from .static import PodView

STATUS_NAMES = {cp_model.OPTIMAL: "OPTIMAL", cp_model.FEASIBLE: "FEASIBLE"}


class PlacementModel:
    def __init__(self, scheduler, views: list[PodView]):
        self.s = scheduler
        self.views = views
        self.pods: list[PodInfo] = [v.pod for v in views]
        self.nodes: dict[str, NodeInfo] = dict(scheduler.snapshot.node_info_map)
        self.m = cp_model.CpModel()
        self.x: dict[tuple[int, str], cp_model.IntVar] = {}
        for i, view in enumerate(views):
            for n in view.nodes:
                self.x[i, n] = self.m.NewBoolVar(f"x{i}_{n}")
            self.m.AddAtMostOne(self.x[i, n] for n in view.nodes)
        self._domain_cache: dict = {}
        self._placed: dict = {}
        self.scores = {(i, n): max(self.views[i].scores.get(n, 0), 0) for (i, n) in self.x}
        # No domain count exceeds every pod of the cluster.
        self._count_bound = len(scheduler.pods)

    # --- helpers ---------------------------------------------------------------------------
    def enabled(self, i: int, plugin: str) -> bool:
        fwk = self.s.frameworks[self.pods[i].scheduler_name]
        return plugin in fwk.names_by_point["filter"]

    def plugin(self, i: int, plugin: str):
        return self.s.frameworks[self.pods[i].scheduler_name].instances[plugin]

    def forbid(self, i: int, n: str) -> None:
        if (i, n) in self.x:
            self.m.Add(self.x[i, n] == 0)

    def in_domain(self, j: int, key: str, value: str, among=None) -> list:
        """x[j, m] for the nodes m of the domain key=value (limited to `among`)."""
        return [self.x[j, m] for m in self.views[j].nodes
                if self.nodes[m].labels.get(key) == value and (among is None or m in among)]

    # --- constraints -----------------------------------------------------------------------
    def add_resources(self) -> None:
        users = [i for i in range(len(self.pods)) if self.enabled(i, NODE_RESOURCES_FIT)]
        requests = {}
        for i in users:
            fit = self.plugin(i, NODE_RESOURCES_FIT)
            req = compute_pod_request(self.pods[i], fit.ignored_resources,
                                      fit.ignored_resource_groups)
            requests[i] = {"cpu": req.milli_cpu, "memory": req.memory,
                           "ephemeral-storage": req.ephemeral_storage, **dict(req.scalars)}
        for name, ni in self.nodes.items():
            here = [i for i in users if (i, name) in self.x]
            if not here:
                continue
            self.m.Add(sum(self.x[i, name] for i in here)
                       <= max(ni.allocatable.allowed_pod_number - len(ni.pods), 0))
            for resource in {r for i in here for r, v in requests[i].items() if v > 0}:
                free = ni.allocatable.get(resource) - ni.requested.get(resource)
                terms = [(self.x[i, name], requests[i].get(resource, 0)) for i in here
                         if requests[i].get(resource, 0) > 0]
                self.m.Add(sum(v * q for v, q in terms) <= max(free, 0))

    def add_ports(self) -> None:
        users = [i for i, p in enumerate(self.pods)
                 if p.host_ports and self.enabled(i, NODE_PORTS)]
        for a, i in enumerate(users):
            for j in users[a + 1:]:
                used = {}
                for ip, protocol, port in self.pods[j].host_ports:
                    used.setdefault((protocol, port), []).append(ip)
                if fits_ports(self.pods[i].host_ports, used):
                    continue
                for n in set(self.views[i].nodes) & set(self.views[j].nodes):
                    self.m.AddAtMostOne([self.x[i, n], self.x[j, n]])

    def add_inter_pod_affinity(self) -> None:
        for i in range(len(self.pods)):
            if not self.enabled(i, INTER_POD_AFFINITY):
                continue
            state = self._affinity_state(i)
            if state is None:
                continue
            for term in state.anti_affinity_terms:
                self._anti_affinity(i, term)
            if state.affinity_terms:
                self._affinity(i, state.affinity_terms, state.affinity_counts)

    def _affinity_state(self, i: int):
        plugin = self.plugin(i, INTER_POD_AFFINITY)
        state = CycleState()
        _, status = plugin.pre_filter(state, self.pods[i], self.s.snapshot.list())
        return state.get(AFFINITY_STATE_KEY) if status is None or status.is_success() else None

    def placed_in(self, i: int, key: str, value: str):
        """A literal true when pod i is placed in the domain key=value (its x's sum to 0/1)."""
        xs = self.in_domain(i, key, value)
        if len(xs) == 1:
            return xs[0]
        cached = self._placed.get((i, key, value))
        if cached is None:
            cached = self._placed[i, key, value] = self.m.NewBoolVar(f"in{i}_{value}")
            self.m.Add(cached == sum(xs))
        return cached

    def _anti_affinity(self, i: int, term) -> None:
        """Pod i in a domain of the term's key: no other pending pod it matches there."""
        key = term.topology_key
        values = {self.nodes[n].labels[key] for n in self.views[i].nodes
                  if key in self.nodes[n].labels}
        matched = [j for j in range(len(self.pods)) if j != i and term.matches(self.pods[j], None)]
        for value in values:
            others = [x for j in matched for x in self.in_domain(j, key, value)]
            if others:
                self.m.Add(sum(others) == 0).OnlyEnforceIf(self.placed_in(i, key, value))

    def _affinity(self, i: int, terms, counts) -> None:
        matchers = [j for j in range(len(self.pods))
                    if j != i and pod_matches_all_affinity_terms(terms, self.pods[j])]
        first = None
        if not counts and pod_matches_all_affinity_terms(terms, self.pods[i]):
            first = self.m.NewBoolVar(f"first{i}")
            keys = {t.topology_key for t in terms}
            for j in matchers:
                for m in self.views[j].nodes:
                    if keys & set(self.nodes[m].labels):
                        self.m.AddAtMostOne([self.x[j, m], first])
        for n in self.views[i].nodes:
            labels = self.nodes[n].labels
            if any(t.topology_key not in labels for t in terms):
                self.forbid(i, n)
                continue
            for t in terms:
                value = labels[t.topology_key]
                if counts.get((t.topology_key, value), 0) > 0:
                    continue
                support = [x for j in matchers for x in self.in_domain(j, t.topology_key, value)]
                if first is not None:
                    support.append(first)
                self.m.Add(self.x[i, n] <= sum(support))

    def add_topology_spread(self) -> None:
        all_nodes = self.s.snapshot.list()
        for i, pod in enumerate(self.pods):
            if not self.enabled(i, POD_TOPOLOGY_SPREAD):
                continue
            plugin = self.plugin(i, POD_TOPOLOGY_SPREAD)
            state = plugin.cal_pre_filter_state(pod, all_nodes)
            for k, c in enumerate(state.constraints):
                self._spread(i, c, state.constraints, state.tp_value_to_match_num[k], all_nodes)

    def _spread(self, i, c, constraints, existing: dict, all_nodes) -> None:
        pod = self.pods[i]
        eligible = nodes_with_all_topology_keys(all_nodes, constraints)
        affinity = required_node_affinity(pod)
        if c.honors_policies(affinity):
            eligible = [ni for ni in eligible if c.matches_inclusion_policies(pod, ni, affinity)]
        names = frozenset(ni.name for ni in eligible)
        counts, smallest = self._domain_counts(pod.namespace, c, names, existing)
        few = len(existing) < c.min_domains
        for n in self.views[i].nodes:
            labels = self.nodes[n].labels
            if any(other.topology_key not in labels for other in constraints):
                self.forbid(i, n)
                continue
            value = labels[c.topology_key]
            count = counts.get(value)
            if count is None:   # the node is outside the constraint's domains: counts 0
                count = 1 if c.selector.matches(pod.labels) else 0
            if few:
                self.m.Add(count <= c.max_skew).OnlyEnforceIf(self.x[i, n])
            else:
                self.m.Add(count - smallest <= c.max_skew).OnlyEnforceIf(self.x[i, n])

    def _domain_counts(self, namespace, c, names: frozenset, existing: dict) -> tuple:
        """({domain: IntVar} of the pods matching c in namespace on its eligible nodes, the
        smallest of them), shared by the pods of one constraint."""
        key = (namespace, c.selector_key, c.topology_key, names)
        if key in self._domain_cache:
            return self._domain_cache[key]
        members = [j for j, p in enumerate(self.pods)
                   if p.namespace == namespace and c.selector.matches(p.labels)]
        out = {}
        for value, running in existing.items():
            terms = [x for j in members
                     for x in self.in_domain(j, c.topology_key, value, among=names)]
            var = self.m.NewIntVar(0, self._count_bound, f"count{len(self._domain_cache)}")
            self.m.Add(var == running + sum(terms))
            out[value] = var
        self._domain_cache[key] = out, self._smallest(out)
        return self._domain_cache[key]

    def _smallest(self, counts: dict):
        if not counts:
            return 0
        low = self.m.NewIntVar(0, self._count_bound, "min")
        self.m.AddMinEquality(low, list(counts.values()))
        return low

    # --- objective and solving -------------------------------------------------------------
    # Two phases, as the contract orders them: the most pods bound, then, with that many
    # bound, the highest sum of scores. Each phase starts from the best placement known (the
    # scheduler's, then the first phase's); once the model accepts it, the answer never binds
    # fewer pods than it.
    # The model refuses the scheduler's placement when a pod bound later broke an earlier
    # pod's affinity or spread (optimize's `violations`), or when the scheduler preempted a
    # running pod the model keeps; only then (or when that check runs out of time and the
    # answer is FEASIBLE) can it bind fewer pods than the scheduler.
    # Probing is off: on 15,000 booleans it spends the whole time limit in presolve before any
    # search.

    def _solver(self, seconds: float, workers: int, seed: int, **extra) -> cp_model.CpSolver:
        solver = cp_model.CpSolver()
        solver.parameters.max_time_in_seconds = max(float(seconds), 0.1)
        solver.parameters.num_workers = workers
        solver.parameters.random_seed = seed
        solver.parameters.cp_model_probing_level = 0
        for name, value in extra.items():
            setattr(solver.parameters, name, value)
        return solver

    def _hint(self, chosen: set) -> None:
        self.m.ClearHints()
        for key, x in self.x.items():
            self.m.AddHint(x, 1 if key in chosen else 0)

    def _accepts(self, chosen: set, seconds: float) -> bool:
        """Whether the placement `chosen` satisfies the model (a fixed-hint check)."""
        self._hint(chosen)
        solver = self._solver(seconds, 1, 0, fix_variables_to_their_hinted_value=True)
        return solver.Solve(self.m) in STATUS_NAMES

    def solve(self, bindings: dict[str, str | None], time_limit: float, workers: int,
              seed: int) -> tuple[str, dict]:
        deadline = time.perf_counter() + time_limit
        count = sum(self.x.values())
        chosen = {(i, n) for (i, n) in self.x if bindings.get(self.pods[i].key) == n}
        # The scheduler's placement, once accepted, is kept as an answer to beat rather than
        # as a constraint `count >= len(chosen)` on the objective itself: OR-Tools 9.15's
        # presolve aborts the process on some such models ("Check failed:
        # context_->VarToConstraints(var).empty()", test_optimize's regression case).
        accepted = chosen if chosen and self._accepts(chosen, time_limit / 10) else set()
        self.m.Maximize(count)
        self._hint(chosen)
        first = self._solver((deadline - time.perf_counter()) * 2 / 3, workers, seed)
        status = first.Solve(self.m)
        if status not in STATUS_NAMES and not accepted:
            return first.StatusName(status), {}
        optimal = status == cp_model.OPTIMAL
        if status in STATUS_NAMES:
            chosen = {key for key, x in self.x.items() if first.Value(x)}
        if not optimal and len(chosen) < len(accepted):
            chosen = accepted
        self.m.Add(count >= len(chosen))
        self.m.Maximize(sum(x * self.scores[key] for key, x in self.x.items()))
        self._hint(chosen)
        second = self._solver(deadline - time.perf_counter(), workers, seed)
        status = second.Solve(self.m)
        if status in STATUS_NAMES:
            chosen = {key for key, x in self.x.items() if second.Value(x)}
            optimal = optimal and status == cp_model.OPTIMAL
        placed = {self.pods[i].key: n for (i, n) in chosen}
        return "OPTIMAL" if optimal else "FEASIBLE", placed

    def build(self) -> PlacementModel:
        self.add_resources()
        self.add_ports()
        self.add_inter_pod_affinity()
        self.add_topology_spread()
        return self
