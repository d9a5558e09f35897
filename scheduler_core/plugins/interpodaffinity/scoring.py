"""InterPodAffinity PreScore, Score and NormalizeScore (scoring.go).

PreScore sums, per topology key and value, the weights of preferred terms that match between
the incoming pod and existing pods (both directions) and the existing pods' required affinity
terms the incoming pod matches (weighted by hardPodAffinityWeight); anti-affinity subtracts.
A node's score is the sum over the topology keys it carries; NormalizeScore scales min..max to
0..MAX_NODE_SCORE.
"""
from __future__ import annotations

from ...framework.cycle_state import CycleState, StateData
from ...framework.interfaces import (
    MAX_NODE_SCORE,
    NodeScore,
    PreScorePlugin,
    ScoreExtensions,
    ScorePlugin,
)
from ...framework.status import Status
from ...framework.types import NodeInfo, PodInfo
from ..names import INTER_POD_AFFINITY
from . import vector
from .terms import AffinityTerm, parsed_affinity

PRE_SCORE_STATE_KEY = "PreScore" + INTER_POD_AFFINITY


class PreScoreState(StateData):
    """topology_score: {topology key: {topology value: summed weight}}; on the columns it is
    kept as per-class arrays (`columns`, vector.TopologyScores) and the dict built only when
    read. Never mutated after PreScore, so clone shares it."""

    __slots__ = ("_topology_score", "columns")

    def __init__(self, topology_score: dict | None, columns=None):
        self._topology_score = topology_score
        self.columns = columns

    @property
    def topology_score(self) -> dict:
        if self._topology_score is None:
            self._topology_score = self.columns.as_dict()
        return self._topology_score


def _process_term(scores: dict, term: AffinityTerm, weight: int, pod: PodInfo,
                  ns_labels: dict | None, node_labels: dict, multiplier: int) -> None:
    if term.matches(pod, ns_labels):
        key = term.topology_key
        if key in node_labels:
            values = scores.get(key)
            if values is None:
                values = scores[key] = {}
            value = node_labels[key]
            values[value] = values.get(value, 0) + weight * multiplier


def _process_terms(scores: dict, terms: list[AffinityTerm], pod: PodInfo,
                   ns_labels: dict | None, node_labels: dict, multiplier: int) -> None:
    for term in terms:
        _process_term(scores, term, term.weight, pod, ns_labels, node_labels, multiplier)


def _has_preferred(affinity: dict, kind: str) -> bool:
    return bool((affinity.get(kind) or {}).get("preferredDuringSchedulingIgnoredDuringExecution"))


def get_pre_score_state(state: CycleState) -> PreScoreState | Status:
    data = state.get(PRE_SCORE_STATE_KEY)
    if data is None:
        return Status.as_error(
            f'failed to read "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
    return data


class Scoring(PreScorePlugin, ScorePlugin, ScoreExtensions):
    """The scoring half of InterPodAffinity; needs self.handle, self.hard_pod_affinity_weight
    and self.ignore_preferred_terms_of_existing_pods."""

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status | None:
        affinity = pod.affinity or {}
        has_constraints = (_has_preferred(affinity, "podAffinity")
                           or _has_preferred(affinity, "podAntiAffinity"))
        # Optionally ignore existing pods' preferences when the pod has no preferred terms.
        if self.ignore_preferred_terms_of_existing_pods and not has_constraints:
            return Status.skip()
        snapshot = self.handle.snapshot
        # Without preferred terms of its own, only existing pods with affinity can contribute.
        all_nodes = snapshot.list() if has_constraints else snapshot.have_pods_with_affinity_list

        parsed = parsed_affinity(pod)
        if parsed.error:
            # PreFilter rejects such pods first; reached only when PreFilter did not run.
            return Status.as_error(f"failed to parse pod: {parsed.error}")
        if not has_constraints and not all_nodes:
            return Status.skip()   # no pod with affinity anywhere: the scores would be empty
        objects = self.handle.objects
        preferred = [t.with_merged_namespaces(objects) for t in parsed.preferred_affinity]
        preferred_anti = [t.with_merged_namespaces(objects)
                          for t in parsed.preferred_anti_affinity]
        ns_labels = objects.namespace_labels(pod.namespace)
        hard_weight = self.hard_pod_affinity_weight
        cols = vector.snapshot_columns(state, snapshot)
        index = vector.term_index(cols) if cols is not None else None
        if index is not None:
            columns = vector.topology_score(index, cols, pod, ns_labels, preferred,
                                            preferred_anti, hard_weight)
            if columns.empty():
                return Status.skip()
            state.write(PRE_SCORE_STATE_KEY, PreScoreState(None, columns))
            return None
        scores = self._rescan(all_nodes, has_constraints, pod, ns_labels, preferred,
                              preferred_anti, hard_weight)
        if not scores:
            return Status.skip()
        state.write(PRE_SCORE_STATE_KEY, PreScoreState(scores))
        return None

    @staticmethod
    def _rescan(all_nodes, has_constraints, pod, ns_labels, preferred, preferred_anti,
                hard_weight) -> dict:
        """topology_score from every existing pod's terms and the incoming pod's."""
        scores: dict = {}
        for node_info in all_nodes:
            node_labels = node_info.labels
            if not node_labels:
                continue  # no topology key can match a node without labels
            existing_pods = node_info.pods if has_constraints else node_info.pods_with_affinity
            for existing in existing_pods:
                # The incoming pod's preferred terms against the existing pod; its namespace
                # selectors were merged into names, hence no namespace labels.
                _process_terms(scores, preferred, existing, None, node_labels, 1)
                _process_terms(scores, preferred_anti, existing, None, node_labels, -1)
                # The existing pod's terms against the incoming pod.
                existing_terms = parsed_affinity(existing)
                if hard_weight > 0:
                    for term in existing_terms.required_affinity:
                        _process_term(scores, term, hard_weight, pod, ns_labels, node_labels, 1)
                _process_terms(scores, existing_terms.preferred_affinity, pod, ns_labels,
                               node_labels, 1)
                _process_terms(scores, existing_terms.preferred_anti_affinity, pod, ns_labels,
                               node_labels, -1)
        return scores

    def score(self, state: CycleState, pod: PodInfo,
              node_info: NodeInfo) -> tuple[int, Status | None]:
        s = get_pre_score_state(state)
        if isinstance(s, Status):
            return 0, s
        labels = node_info.labels
        score = 0
        for key, values in s.topology_score.items():
            if key in labels:
                score += values.get(labels[key], 0)
        return score, None

    def score_vector(self, state: CycleState, pod: PodInfo, cols, rows):
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return None  # the per-node Score reports the missing state
        if s.columns is not None:
            return s.columns.of_rows(rows)
        return vector.score_vector(s.topology_score, cols, rows)

    def score_extensions(self) -> ScoreExtensions:
        return self

    def normalize_score(self, state: CycleState, pod: PodInfo,
                        scores: list[NodeScore]) -> Status | None:
        s = get_pre_score_state(state)
        if isinstance(s, Status):
            return s
        if not s.topology_score or not scores:
            return None
        min_count = min(ns.score for ns in scores)
        diff = max(ns.score for ns in scores) - min_count
        for ns in scores:
            # float64 arithmetic truncated to int64, as Go computes it.
            ns.score = int(float(MAX_NODE_SCORE) * (float(ns.score - min_count) / float(diff))) \
                if diff > 0 else 0
        return None

    def normalize_vector(self, state: CycleState, pod: PodInfo, scores):
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return None  # the per-node NormalizeScore reports the missing state
        if s.columns is None and not s.topology_score:
            return scores
        return vector.normalize_vector(scores)
