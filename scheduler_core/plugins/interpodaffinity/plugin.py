"""The InterPodAffinity plugin: args, events and its factory (plugin.go).

Extension points: PreFilter (+ AddPod/RemovePod), Filter, PreScore, Score (+ NormalizeScore),
EnqueueExtensions. The work lives in filtering.py and scoring.py, as in kube-scheduler.
"""
from __future__ import annotations

from ...errors import child, is_int, not_in_range, unmarshal_type_error
from ...framework.interfaces import EnqueueExtensions
from ..helper import checked_args
from ..names import INTER_POD_AFFINITY
from . import queueing_hints
from .filtering import Filtering
from .scoring import Scoring

DEFAULT_HARD_POD_AFFINITY_WEIGHT = 1
MIN_HARD_POD_AFFINITY_WEIGHT = 0
MAX_HARD_POD_AFFINITY_WEIGHT = 100


class InterPodAffinity(Filtering, Scoring, EnqueueExtensions):
    NAME = INTER_POD_AFFINITY

    def __init__(self, args: dict, handle):
        self.handle = handle
        self.hard_pod_affinity_weight = args["hardPodAffinityWeight"]
        self.ignore_preferred_terms_of_existing_pods = args["ignorePreferredTermsOfExistingPods"]

    def events_to_register(self) -> set[str]:
        # Pod add/label update/delete: an assigned pod may now satisfy the pod's affinity or no
        # longer violate an anti-affinity. Node add/label/taint update: a node may now carry
        # the topology keys (taints only because NodeAdd can be missed by preCheck).
        return {"AssignedPodAdd", "AssignedPodUpdate", "AssignedPodDelete",
                "NodeAdd", "NodeUpdate"}

    def queueing_hints(self) -> dict:
        return queueing_hints.for_inter_pod_affinity(self)


def _decode_error(field: str, value, go_type: str) -> TypeError:
    return unmarshal_type_error(f"InterPodAffinityArgs.{field}", value, go_type)


def default_args(args: dict) -> dict:
    """Decodes the args as the v1 types do and applies SetDefaults_InterPodAffinityArgs:
    hardPodAffinityWeight 1 when unset."""
    out = dict(args or {})
    weight = out.get("hardPodAffinityWeight")
    if weight is None:
        out["hardPodAffinityWeight"] = DEFAULT_HARD_POD_AFFINITY_WEIGHT
    elif isinstance(weight, float) and weight.is_integer():
        out["hardPodAffinityWeight"] = int(weight)  # YAML 1.0 reaches Go's decoder as JSON 1
    elif not is_int(weight):
        raise _decode_error("hardPodAffinityWeight", weight, "int32")
    ignore = out.get("ignorePreferredTermsOfExistingPods")
    if ignore is None:
        out["ignorePreferredTermsOfExistingPods"] = False
    elif not isinstance(ignore, bool):
        raise _decode_error("ignorePreferredTermsOfExistingPods", ignore, "bool")
    return out


def validate_args(args: dict, path: str) -> list[str]:
    """ValidateInterPodAffinityArgs: hardPodAffinityWeight within [0, 100]."""
    weight = args.get("hardPodAffinityWeight", DEFAULT_HARD_POD_AFFINITY_WEIGHT)
    if not MIN_HARD_POD_AFFINITY_WEIGHT <= weight <= MAX_HARD_POD_AFFINITY_WEIGHT:
        return [not_in_range(child(path, "hardPodAffinityWeight"), weight,
                             MIN_HARD_POD_AFFINITY_WEIGHT, MAX_HARD_POD_AFFINITY_WEIGHT)]
    return []


def new(args: dict, handle) -> InterPodAffinity:
    args = checked_args(args, default_args, validate_args)
    return InterPodAffinity(args, handle)
