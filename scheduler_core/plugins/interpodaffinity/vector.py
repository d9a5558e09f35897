"""InterPodAffinity on the columns: PreFilter's and PreScore's per-topology-pair counts summed
from per-node counts kept up to date as pods come and go (instead of rescanning every pod each
cycle), and Filter and Score decided for every node at once from those counts.

Two kinds of per-node counts are kept:
- for the incoming pod's own terms, how many existing pods on each node match them: the
  columns' `pod_counts`, recounted on the rows that change;
- for the terms existing pods carry (`TermIndex`), how many pods on each node carry each
  distinct term, by kind: a changed row takes its old pods' terms out and its new pods' in.

The per-node code (filtering.py, scoring.py) stays the reference; what is built here are the
same dicts it builds, so Filter, AddPod/RemovePod (preemption, nominated pods) and Score work on
either.
"""
from __future__ import annotations

import weakref

import numpy as np

from ...columns import COLUMNS_KEY
from ...framework.interfaces import MAX_NODE_SCORE
from ..names import INTER_POD_AFFINITY
from .pair_counts import PairCounts, class_sums, value_index
from .terms import AffinityTerm, parsed_affinity, pod_matches_all_affinity_terms

REQUIRED_AFFINITY, REQUIRED_ANTI_AFFINITY, PREFERRED_AFFINITY, PREFERRED_ANTI_AFFINITY = range(4)
# Beyond this many distinct terms carried by existing pods, dense per-node counts cost more
# than the rescan they save: the reference path is used.
MAX_TERMS = 256
_KEYS = INTER_POD_AFFINITY + ".index-keys"


def _selector_identity(selector) -> tuple:
    return (selector.nothing, tuple(sorted(selector.match_labels.items())),
            tuple(selector.expressions))


def term_identity(term: AffinityTerm) -> tuple:
    """What decides which pods the term matches, where and how much: equal terms of different
    pods (one template) share one count."""
    return (term.topology_key, term.namespaces, _selector_identity(term.selector),
            _selector_identity(term.namespace_selector), term.weight)


def _index_keys(pod) -> list[tuple]:
    """(kind, identity, term) of every term the pod carries, cached on the PodInfo."""
    keys = pod.parsed.get(_KEYS)
    if keys is None:
        parsed = parsed_affinity(pod)
        keys = pod.parsed[_KEYS] = [
            (kind, term_identity(term), term)
            for kind, terms in ((REQUIRED_AFFINITY, parsed.required_affinity),
                                (REQUIRED_ANTI_AFFINITY, parsed.required_anti_affinity),
                                (PREFERRED_AFFINITY, parsed.preferred_affinity),
                                (PREFERRED_ANTI_AFFINITY, parsed.preferred_anti_affinity))
            for term in terms]
    return keys


class TermIndex:
    """Per distinct (kind, term) carried by existing pods: (term, pods carrying it per row).
    Brought up to date lazily: rows the columns updated since the last sync (the snapshot
    swaps in a fresh copy whenever a node changes, and the columns stamp that row's version)
    are accounted again; reading the stamps, not comparing every row's NodeInfo, keeps a
    cycle that changed one node from paying for all of them."""

    def __init__(self, cols):
        self.cols = cols
        self.entries: dict[tuple, tuple[AffinityTerm, np.ndarray]] = {}
        self.accounted = list(cols.node_infos)
        self.seen = cols.version
        for row, ni in enumerate(self.accounted):
            self._account(row, ni, 1)

    def sync(self) -> bool:
        """Bring the counts in step with the columns; False when there are too many terms."""
        cols, accounted, infos = self.cols, self.accounted, self.cols.node_infos
        if cols.version == self.seen:
            return len(self.entries) <= MAX_TERMS
        changed = cols.changed_since(self.seen).tolist()
        self.seen = cols.version
        for row in changed:
            if accounted[row] is infos[row]:
                continue
            self._account(row, accounted[row], -1)
            self._account(row, infos[row], 1)
            accounted[row] = infos[row]
        if len(self.entries) > MAX_TERMS:
            self.entries = {k: e for k, e in self.entries.items() if e[1].any()}
        return len(self.entries) <= MAX_TERMS

    def _account(self, row: int, ni, delta: int) -> None:
        entries = self.entries
        for pod in ni.pods_with_affinity:
            for kind, identity, term in _index_keys(pod):
                entry = entries.get((kind, identity))
                if entry is None:
                    entry = entries[(kind, identity)] = (term, np.zeros(self.cols.size, np.int64))
                entry[1][row] += delta

    def of_kind(self, kind: int):
        return [(term, counts) for (k, _), (term, counts) in self.entries.items() if k == kind]


def snapshot_columns(state, snapshot):
    """The cycle's columns when they are the snapshot's own and exact, else None."""
    cols = state.get(COLUMNS_KEY)
    if cols is None or cols is not snapshot.columns or not cols.exact:
        return None
    return cols


_INDEXES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def term_index(cols) -> TermIndex | None:
    """The columns' TermIndex, in step with them; None when the reference path is cheaper."""
    index = _INDEXES.get(cols)
    if index is None:
        index = _INDEXES[cols] = TermIndex(cols)
    return index if index.sync() else None


# --- per-node counts of the incoming pod's terms ----------------------------------------------
def _matching_all(cols, terms: list[AffinityTerm]) -> np.ndarray:
    """Per node, the existing pods matching every one of the terms."""
    key = (INTER_POD_AFFINITY, "all", tuple(term_identity(t) for t in terms))
    return cols.pod_counts(key, lambda ni: sum(
        1 for p in ni.pods if pod_matches_all_affinity_terms(terms, p)))


def _matching(cols, term: AffinityTerm) -> np.ndarray:
    """Per node, the existing pods matching the term (namespaces merged into names)."""
    key = (INTER_POD_AFFINITY, term_identity(term))
    return cols.pod_counts(key, lambda ni: sum(1 for p in ni.pods if term.matches(p, None)))


# --- counts per pair --------------------------------------------------------------------------
def _at_pairs(cols, counts, key: str) -> np.ndarray:
    """Per node, counts[(key, the node's value)], from PairCounts or the per-node code's dict."""
    if isinstance(counts, PairCounts):
        return counts.per_node(key)
    return value_index(cols).per_node(
        cols, key, ((value, c) for (k, value), c in counts.items() if k == key))


def _topology_keys(counts) -> set[str]:
    if isinstance(counts, PairCounts):
        return counts.topology_keys()
    return {key for key, _ in counts}


# --- PreFilter -------------------------------------------------------------------------------
def existing_anti_affinity_counts(index: TermIndex, cols, pod, ns_labels: dict) -> PairCounts:
    """filtering.existing_anti_affinity_counts from the kept per-term counts."""
    counts = PairCounts(cols)
    for term, per_node in index.of_kind(REQUIRED_ANTI_AFFINITY):
        if term.matches(pod, ns_labels):
            counts.add(term.topology_key, per_node)
    return counts


def incoming_counts(cols, affinity_terms, anti_affinity_terms) -> tuple[PairCounts, PairCounts]:
    """filtering.incoming_affinity_anti_affinity_counts from the kept per-node counts."""
    affinity = PairCounts(cols)
    anti_affinity = PairCounts(cols)
    if affinity_terms:
        matched = _matching_all(cols, affinity_terms)
        for term in affinity_terms:
            affinity.add(term.topology_key, matched)
    for term in anti_affinity_terms:
        anti_affinity.add(term.topology_key, _matching(cols, term))
    return affinity, anti_affinity


# --- Filter ----------------------------------------------------------------------------------
AFFINITY_NOT_MATCH, ANTI_AFFINITY_NOT_MATCH, EXISTING_ANTI_AFFINITY_NOT_MATCH = 1, 2, 3


def filter_kinds(s, cols) -> np.ndarray:
    """Per node, 0 when Filter passes it, else which check rejects it first, in the per-node
    Filter's order of checks."""
    size = cols.size
    affinity = np.zeros(size, bool)
    if s.affinity_terms:
        pods_exist = np.ones(size, bool)
        for term in s.affinity_terms:
            affinity |= ~cols.has_label(term.topology_key)
            pods_exist &= _at_pairs(cols, s.affinity_counts, term.topology_key) > 0
        # The first pod of a group: see filtering.satisfy_pod_affinity.
        first_of_group = not s.affinity_counts and pod_matches_all_affinity_terms(
            s.affinity_terms, s.pod)
        if not first_of_group:
            affinity |= ~pods_exist
    anti = np.zeros(size, bool)
    if s.anti_affinity_counts:
        for key in {t.topology_key for t in s.anti_affinity_terms}:
            anti |= _at_pairs(cols, s.anti_affinity_counts, key) > 0
    existing = np.zeros(size, bool)
    for key in _topology_keys(s.existing_anti_affinity_counts):
        existing |= _at_pairs(cols, s.existing_anti_affinity_counts, key) > 0
    kinds = np.where(existing, EXISTING_ANTI_AFFINITY_NOT_MATCH, 0)
    kinds = np.where(anti, ANTI_AFFINITY_NOT_MATCH, kinds)
    return np.where(affinity, AFFINITY_NOT_MATCH, kinds).astype(np.int32)


# --- PreScore and Score ----------------------------------------------------------------------
class TopologyScores:
    """PreScore's topology_score as per-class arrays: per topology key, the summed weight of
    each class of nodes alike under the key and how many contributions made it (a pair exists
    in topology_score once anything contributed, even a zero weight). Score reads the arrays;
    the dict is built only for the per-node Score."""

    def __init__(self, cols):
        self.cols = cols
        self.per_node: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self.by_key: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]] = {}

    def add(self, key: str, per_node: np.ndarray, weight: int) -> None:
        sums = self.per_node.get(key)
        if sums is None:
            sums = self.per_node[key] = (np.zeros(self.cols.size, np.int64),
                                         np.zeros(self.cols.size, np.int64))
        weights, contributions = sums
        weights += per_node * weight
        contributions += per_node

    def close(self) -> TopologyScores:
        """Sum per class; nodes without the key take no part."""
        cols = self.cols
        for key, (weights, contributions) in self.per_node.items():
            present = class_sums(cols, key, contributions)
            if present.any():
                class_ids, classes = cols.label_classes((key,))
                self.by_key[key] = (class_ids, class_sums(cols, key, weights), present, classes)
        self.per_node = {}
        return self

    def empty(self) -> bool:
        return not self.by_key

    def as_dict(self) -> dict:
        out: dict = {}
        for key, (_, totals, present, classes) in self.by_key.items():
            out[key] = {classes[cid][key]: int(totals[cid])
                        for cid in np.flatnonzero(present).tolist()}
        return out

    def of_rows(self, rows: np.ndarray) -> np.ndarray:
        scores = np.zeros(len(rows), np.int64)
        for class_ids, totals, _, _ in self.by_key.values():
            scores += totals[class_ids[rows]]
        return scores


def topology_score(index: TermIndex, cols, pod, ns_labels: dict, preferred, preferred_anti,
                   hard_weight: int) -> TopologyScores:
    """scoring.Scoring.pre_score's topology_score from the kept per-node counts."""
    sums = TopologyScores(cols)
    # The incoming pod's preferred terms against the existing pods.
    for terms, sign in ((preferred, 1), (preferred_anti, -1)):
        for term in terms:
            sums.add(term.topology_key, _matching(cols, term), sign * term.weight)
    # The existing pods' terms against the incoming pod.
    weights = {PREFERRED_AFFINITY: lambda t: t.weight, PREFERRED_ANTI_AFFINITY: lambda t: -t.weight}
    if hard_weight > 0:
        weights[REQUIRED_AFFINITY] = lambda t: hard_weight
    for kind, weight in weights.items():
        for term, per_node in index.of_kind(kind):
            if term.matches(pod, ns_labels):
                sums.add(term.topology_key, per_node, weight(term))
    return sums.close()


def score_vector(topology: dict, cols, rows: np.ndarray) -> np.ndarray:
    """Score of the given rows from the per-node code's topology_score dict."""
    scores = np.zeros(len(rows), np.int64)
    for key, values in topology.items():
        scores += value_index(cols).per_node(cols, key, values.items())[rows]
    return scores


def normalize_vector(scores: np.ndarray) -> np.ndarray:
    """NormalizeScore on the array: float64 arithmetic truncated, as Go computes it."""
    low = scores.min()
    diff = scores.max() - low
    if diff <= 0:
        return np.zeros(len(scores), np.int64)
    ratio = (scores - low).astype(np.float64) / float(diff)
    return (float(MAX_NODE_SCORE) * ratio).astype(np.int64)
