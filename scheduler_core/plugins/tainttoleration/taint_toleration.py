"""TaintToleration: nodes whose NoSchedule/NoExecute taints the pod does not tolerate are
filtered out; nodes with fewer untolerated PreferNoSchedule taints score higher."""
from __future__ import annotations

import numpy as np

from ...columns.verdict import Verdict
from ...framework.cycle_state import CycleState
from ...framework.interfaces import (
    EnqueueExtensions,
    FilterPlugin,
    NodeScore,
    PreScorePlugin,
    ScoreExtensions,
    ScorePlugin,
)
from ...framework.status import Code, Status
from ...framework.types import NodeInfo, PodInfo
from ...taints import does_not_schedule, find_untolerated_taint, tolerations_tolerate_taint
from .. import names
from ..helper import default_normalize_score, default_normalize_vector
from . import queueing_hints

NAME = names.TAINT_TOLERATION
PRE_SCORE_STATE_KEY = "PreScore" + NAME
PREFER_NO_SCHEDULE = "PreferNoSchedule"


class _PreScoreState:
    __slots__ = ("tolerations_prefer_no_schedule",)

    def __init__(self, tolerations):
        self.tolerations_prefer_no_schedule = tolerations


def _tolerations_prefer_no_schedule(tolerations: list) -> list:
    # An empty effect tolerates every effect, PreferNoSchedule included.
    return [t for t in tolerations if not t.get("effect") or t.get("effect") == PREFER_NO_SCHEDULE]


def _count_intolerable_prefer_no_schedule(taints: list, tolerations: list) -> int:
    return sum(1 for taint in taints if taint.get("effect") == PREFER_NO_SCHEDULE
               and not tolerations_tolerate_taint(tolerations, taint))


def _untolerated_reason(taints: list, pod: PodInfo) -> str | None:
    taint = find_untolerated_taint(taints, pod.tolerations, does_not_schedule)
    if taint is None:
        return None
    # Go prints the taint with "{%s: %s}", so an empty value leaves "{key: }".
    key, value = taint.get("key") or "", taint.get("value") or ""
    return f"node(s) had untolerated taint {{{key}: {value}}}"


class TaintToleration(FilterPlugin, PreScorePlugin, ScorePlugin, ScoreExtensions,
                      EnqueueExtensions):
    NAME = NAME
    NODE_ONLY = True

    # Filter

    def filter(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> Status | None:
        reason = _untolerated_reason(node_info.taints, pod)
        return None if reason is None else Status.unresolvable(reason)

    def filter_vector(self, state: CycleState, pod: PodInfo, cols) -> Verdict:
        """Decided once per distinct set of taints."""
        outcomes = []
        for taints in cols.taint_groups:
            reason = _untolerated_reason(taints, pod)
            outcomes.append(None if reason is None
                            else (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (reason,)))
        return Verdict.by_class(cols.taint_group, outcomes)

    # PreScore

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status | None:
        state.write(PRE_SCORE_STATE_KEY,
                    _PreScoreState(_tolerations_prefer_no_schedule(pod.tolerations)))
        return None

    # Score

    def score(self, state: CycleState, pod: PodInfo, node_info: NodeInfo):
        pre_score = state.get(PRE_SCORE_STATE_KEY)
        if pre_score is None:
            return 0, Status.as_error(ValueError(
                f'failed to read "{PRE_SCORE_STATE_KEY}" from cycleState: not found'))
        return _count_intolerable_prefer_no_schedule(
            node_info.taints, pre_score.tolerations_prefer_no_schedule), None

    def score_vector(self, state: CycleState, pod: PodInfo, cols, rows):
        pre_score = state.get(PRE_SCORE_STATE_KEY)
        if pre_score is None:
            return None
        tolerations = pre_score.tolerations_prefer_no_schedule
        counts = [_count_intolerable_prefer_no_schedule(taints, tolerations)
                  for taints in cols.taint_groups]
        if not any(counts):
            return np.zeros(len(rows), np.int64)   # the usual case: no PreferNoSchedule taint
        return np.array(counts, np.int64)[cols.taint_group[rows]]

    def score_extensions(self):
        return self

    def normalize_score(self, state: CycleState, pod: PodInfo,
                        scores: list[NodeScore]) -> Status | None:
        # More untolerated PreferNoSchedule taints means a lower score.
        default_normalize_score(scores, reverse=True)
        return None

    def normalize_vector(self, state: CycleState, pod: PodInfo, scores):
        return default_normalize_vector(scores, reverse=True)

    # EnqueueExtensions

    def events_to_register(self) -> set[str]:
        # Node/Add|UpdateNodeTaint (|UpdateNodeLabel without queueing hints), and with queueing
        # hints Pod/UpdatePodToleration of the unschedulable pod itself.
        return {"NodeAdd", "NodeUpdate", "UnscheduledPodUpdate"}

    def queueing_hints(self) -> dict:
        return queueing_hints.for_taint_toleration(self)


def new(args: dict, handle) -> TaintToleration:
    return TaintToleration()
