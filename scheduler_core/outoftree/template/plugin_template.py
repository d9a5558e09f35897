"""NodePool: a minimal Filter + Score plugin to copy when writing your own.

Nodes belong to pools by a label (by default `example.com/pool`). A pod that carries the same
label runs only on nodes of its pool (Filter); a pod without it may run anywhere. Among the
nodes that pass, the one with the fewest pods wins (Score, reversed by NormalizeScore), which
spreads the pool's pods.

Copy this file and test_plugin_template.py, rename NAME and the class, then register the module
by its dotted path (docs/PLUGIN_GUIDE.md):

    python -m scheduler_core simulate cluster.yaml \
        --plugin NodePool=scheduler_core.outoftree.template.plugin_template
"""
from __future__ import annotations

import copy

from scheduler_core.errors import invalid, required
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import (
    EnqueueExtensions,
    FilterPlugin,
    NodeScore,
    ScoreExtensions,
    ScorePlugin,
)
from scheduler_core.framework.status import Status
from scheduler_core.framework.types import NodeInfo, PodInfo
from scheduler_core.plugins.helper import checked_args, default_normalize_score

NAME = "NodePool"
DEFAULT_LABEL_KEY = "example.com/pool"
# One reason for every rejected node, so that the FailedScheduling message counts them together.
REASON_NOT_IN_POOL = "node(s) were not in the pod's pool"


class NodePool(FilterPlugin, ScorePlugin, ScoreExtensions, EnqueueExtensions):
    NAME = NAME

    def __init__(self, args: dict):
        self.label_key = args["labelKey"]

    # Filter

    def filter(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> Status | None:
        pool = pod.labels.get(self.label_key)
        if pool is None or node_info.labels.get(self.label_key) == pool:
            return None
        # Unresolvable: evicting pods from the node would not move it into the pool.
        return Status.unresolvable(REASON_NOT_IN_POOL)

    # Score

    def score(self, state: CycleState, pod: PodInfo, node_info: NodeInfo):
        return len(node_info.pods), None

    def score_extensions(self) -> ScoreExtensions:
        return self

    def normalize_score(self, state: CycleState, pod: PodInfo,
                        scores: list[NodeScore]) -> Status | None:
        # Fewest pods first: the busiest node gets 0, an empty node 100.
        default_normalize_score(scores, reverse=True)
        return None

    # EnqueueExtensions

    def events_to_register(self) -> set[str]:
        # Only a new node, or a node relabelled into the pool, can help a rejected pod.
        return {"NodeAdd", "NodeUpdate"}


def default_args(args: dict) -> dict:
    out = copy.deepcopy(dict(args or {}))
    if out.get("labelKey") is None:
        out["labelKey"] = DEFAULT_LABEL_KEY
    return out


def validate_args(args: dict, path: str) -> list[str]:
    where = f"{path}.labelKey" if path else "labelKey"
    key = args.get("labelKey")
    if not isinstance(key, str) or not key:
        return [required(where)]
    if any(c.isspace() for c in key):
        return [invalid(where, key, "must be a label key (no whitespace)")]
    return []


def new(args: dict, handle) -> NodePool:
    args = checked_args(args, default_args, validate_args)
    return NodePool(args)
