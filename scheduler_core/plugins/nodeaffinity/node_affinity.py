"""NodeAffinity: the pod's nodeSelector and node affinity, plus scheduler-enforced affinity.

Filter rejects nodes that miss the required terms (UnschedulableAndUnresolvable); Score sums
the weights of the preferred terms a node matches and normalizes them to [0, 100]. PreFilter
narrows the cycle to the node names required terms pin with `metadata.name In`.
"""
from __future__ import annotations

import numpy as np

from ...columns.verdict import Verdict
from ...errors import aggregate, child
from ...framework.cycle_state import CycleState
from ...framework.interfaces import (
    EnqueueExtensions,
    FilterPlugin,
    NodeScore,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    ScoreExtensions,
    ScorePlugin,
)
from ...framework.status import Code, Status
from ...framework.types import NodeInfo, PodInfo
from .. import names
from ..helper import default_normalize_score, default_normalize_vector
from . import queueing_hints
from .selector import (
    IN,
    NODE_NAME_FIELD,
    RequiredNodeAffinity,
    new_node_selector,
    new_preferred_scheduling_terms,
)

NAME = names.NODE_AFFINITY
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME
_LABEL_KEYS = "columns.labelKeys"  # PodInfo.parsed key of the label keys the pod reads

ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
ERR_REASON_CONFLICT = "pod affinity terms conflict"

_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def _required_node_names(terms: list) -> set[str] | None:
    """getPreFilterNodeNames: the union over terms of the names each term's In fields pin.

    None when some term pins no name (terms are ORed, so every node stays eligible); an empty
    set when every term pins names but their intersections are empty.
    """
    node_names: set[str] | None = None
    for term in terms:
        term_names = None
        for req in (term or {}).get("matchFields") or []:
            if req.get("key") == NODE_NAME_FIELD and req.get("operator") == IN:
                values = set(req.get("values") or [])
                term_names = values if term_names is None else term_names & values
        if term_names is None:
            return None
        node_names = term_names if node_names is None else node_names | term_names
    return node_names


class _PodNodeAffinity:
    """What NodeAffinity parses from a pod once; cached in PodInfo.parsed across cycles."""

    __slots__ = (
        "node_names",
        "pinned_terms",
        "preferred",
        "preferred_error",
        "required",
        "skippable",
    )

    def __init__(self, spec: dict):
        node_affinity = (spec.get("affinity") or {}).get("nodeAffinity") or {}
        required = node_affinity.get(_REQUIRED)
        # Go tests these for nil, so an empty nodeSelector map still runs the Filter.
        self.skippable = required is None and spec.get("nodeSelector") is None
        self.required = RequiredNodeAffinity(spec)
        terms = (required or {}).get("nodeSelectorTerms") or []
        self.pinned_terms = bool(terms)
        self.node_names = _required_node_names(terms) if terms else None
        self.preferred = self.preferred_error = None
        preferred = node_affinity.get(_PREFERRED)
        if preferred is not None:
            self.preferred, errors = new_preferred_scheduling_terms(preferred)
            if errors:
                self.preferred_error = aggregate(errors)


# Pods alike (a DaemonSet's, a Deployment's) share one parse: what _PodNodeAffinity holds
# depends on these two fields alone and is never changed once made.
_BY_SHAPE: dict[str, _PodNodeAffinity] = {}
MAX_SHAPES = 4096


def _pod_node_affinity(pod: PodInfo) -> _PodNodeAffinity:
    parsed = pod.parsed.get(NAME)
    if parsed is None:
        spec = pod.spec
        shape = repr((spec.get("nodeSelector"), (spec.get("affinity") or {}).get("nodeAffinity")))
        parsed = _BY_SHAPE.get(shape)
        if parsed is None:
            if len(_BY_SHAPE) >= MAX_SHAPES:
                _BY_SHAPE.clear()
            parsed = _BY_SHAPE[shape] = _PodNodeAffinity(spec)
        pod.parsed[NAME] = parsed
    return parsed


def _term_label_keys(terms) -> list[str] | None:
    """Label keys node selector terms read; None when one reads a node field (the name)."""
    keys = []
    for term in terms or []:
        if not isinstance(term, dict) or term.get("matchFields"):
            return None
        for expr in term.get("matchExpressions") or []:
            if not isinstance(expr, dict):
                return None
            keys.append(str(expr.get("key", "")))
    return keys


def _label_keys(pod: PodInfo, required: bool) -> tuple[str, ...] | None:
    """The node label keys the pod's required (nodeSelector and required terms) or preferred
    node affinity reads, sorted: the verdict is the same for nodes alike under them. None when
    it reads anything else."""
    cache_key = (_LABEL_KEYS, required)
    if cache_key in pod.parsed:
        return pod.parsed[cache_key]
    node_affinity = (pod.spec.get("affinity") or {}).get("nodeAffinity") or {}
    if required:
        selector = pod.spec.get("nodeSelector") or {}
        terms = (node_affinity.get(_REQUIRED) or {}).get("nodeSelectorTerms")
        keys = _term_label_keys(terms)
        keys = None if keys is None or not isinstance(selector, dict) else keys + list(selector)
    else:
        prefs = node_affinity.get(_PREFERRED) or []
        keys = _term_label_keys([p.get("preference") if isinstance(p, dict) else None
                                 for p in prefs])
    keys = None if keys is None else tuple(sorted(set(keys)))
    pod.parsed[cache_key] = keys
    return keys


class _PreScoreState:
    __slots__ = ("preferred",)

    def __init__(self, preferred):
        self.preferred = preferred


class NodeAffinity(PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, ScoreExtensions,
                   EnqueueExtensions):
    NAME = NAME
    NODE_ONLY = True

    def __init__(self, added_node_selector=None, added_pref_terms=None):
        self.added_node_selector = added_node_selector
        self.added_pref_terms = added_pref_terms

    # PreFilter

    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]):
        parsed = _pod_node_affinity(pod)
        if parsed.skippable and self.added_node_selector is None:
            return None, Status.skip()
        state.write(PRE_FILTER_STATE_KEY, parsed.required)
        if not parsed.pinned_terms or parsed.node_names is None:
            return None, None
        if not parsed.node_names:
            return None, Status.unresolvable(ERR_REASON_CONFLICT)
        return PreFilterResult(parsed.node_names), None

    def pre_filter_extensions(self):
        return None  # the state does not depend on the pods on a node

    # Filter

    def filter(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> Status | None:
        if self.added_node_selector is not None and \
                not self.added_node_selector.matches(node_info.labels, node_info.name):
            return Status.unresolvable(ERR_REASON_ENFORCED)
        required = state.get(PRE_FILTER_STATE_KEY)
        if required is None:  # PreFilter disabled
            required = _pod_node_affinity(pod).required
        if not required.matches(node_info.labels, node_info.name):
            return Status.unresolvable(ERR_REASON_POD)
        return None

    def filter_vector(self, state: CycleState, pod: PodInfo, cols) -> Verdict | None:
        """Decided once per class of nodes alike under the label keys the pod reads."""
        keys = _label_keys(pod, required=True)
        if keys is None or self.added_node_selector is not None:
            return None
        required = state.get(PRE_FILTER_STATE_KEY)
        if required is None:
            required = _pod_node_affinity(pod).required
        class_ids, classes = cols.label_classes(keys)
        rejected = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_POD,))
        return Verdict.by_class(class_ids, [None if required.matches(labels, "") else rejected
                                            for labels in classes])

    # PreScore

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status | None:
        parsed = _pod_node_affinity(pod)
        if parsed.preferred_error is not None:
            return Status.as_error(ValueError(parsed.preferred_error))
        if parsed.preferred is None and self.added_pref_terms is None:
            return Status.skip()
        state.write(PRE_SCORE_STATE_KEY, _PreScoreState(parsed.preferred))
        return None

    # Score

    def score(self, state: CycleState, pod: PodInfo, node_info: NodeInfo):
        count = 0
        if self.added_pref_terms is not None:
            count += self.added_pref_terms.score(node_info.labels, node_info.name)
        pre_score = state.get(PRE_SCORE_STATE_KEY)
        if pre_score is None:  # PreScore disabled
            parsed = _pod_node_affinity(pod)
            if parsed.preferred_error is not None:
                return 0, Status.as_error(ValueError(parsed.preferred_error))
            preferred = parsed.preferred
        else:
            preferred = pre_score.preferred
        if preferred is not None:
            count += preferred.score(node_info.labels, node_info.name)
        return count, None

    def score_vector(self, state: CycleState, pod: PodInfo, cols, rows):
        pre_score = state.get(PRE_SCORE_STATE_KEY)
        keys = _label_keys(pod, required=False)
        if pre_score is None or keys is None or self.added_pref_terms is not None:
            return None
        class_ids, classes = cols.label_classes(keys)
        preferred = pre_score.preferred
        per_class = np.array([preferred.score(labels, "") if preferred is not None else 0
                              for labels in classes], np.int64)
        return per_class[class_ids[rows]]

    def score_extensions(self):
        return self

    def normalize_score(self, state: CycleState, pod: PodInfo,
                        scores: list[NodeScore]) -> Status | None:
        default_normalize_score(scores, reverse=False)
        return None

    def normalize_vector(self, state: CycleState, pod: PodInfo, scores):
        return default_normalize_vector(scores, reverse=False)

    # EnqueueExtensions

    def events_to_register(self) -> set[str]:
        # Node/Add|UpdateNodeLabel (|UpdateNodeTaint without queueing hints).
        return {"NodeAdd", "NodeUpdate"}

    def queueing_hints(self) -> dict:
        return queueing_hints.for_node_affinity(self)


def default_args(args: dict) -> dict:
    """NodeAffinityArgs has no defaults: addedAffinity stays unset."""
    return dict(args or {})


def validate_args(args: dict, path: str) -> list[str]:
    """ValidateNodeAffinityArgs: the added affinity must parse as NewNodeSelector and
    NewPreferredSchedulingTerms parse it."""
    added = (args or {}).get("addedAffinity")
    if added is None:
        return []
    base = child(path, "addedAffinity")
    errors = []
    required = added.get(_REQUIRED)
    if required is not None:
        errors += new_node_selector(required, f"{base}.{_REQUIRED}")[1]
    preferred = added.get(_PREFERRED) or []
    if preferred:
        errors += new_preferred_scheduling_terms(preferred, f"{base}.{_PREFERRED}")[1]
    return list(dict.fromkeys(errors))


def new(args: dict, handle) -> NodeAffinity:
    errors = validate_args(args, "")
    if errors:
        raise ValueError(aggregate(errors))
    added = (args or {}).get("addedAffinity") or {}
    selector = None
    if added.get(_REQUIRED) is not None:
        selector, _ = new_node_selector(added[_REQUIRED])
    pref_terms = None
    if added.get(_PREFERRED):
        pref_terms, _ = new_preferred_scheduling_terms(added[_PREFERRED])
    return NodeAffinity(selector, pref_terms)
