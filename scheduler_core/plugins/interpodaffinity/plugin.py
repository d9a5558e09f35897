"""The InterPodAffinity plugin: args, events and its factory (plugin.go).

Extension points: PreFilter (+ AddPod/RemovePod), Filter, PreScore, Score (+ NormalizeScore),
EnqueueExtensions. The work lives in filtering.py and scoring.py, as in kube-scheduler.
"""
from __future__ import annotations

from ...errors import ConfigError, invalid
from ...framework.interfaces import EnqueueExtensions
from ..names import INTER_POD_AFFINITY
from .filtering import Filtering
from .scoring import Scoring

DEFAULT_HARD_POD_AFFINITY_WEIGHT = 1
MIN_HARD_POD_AFFINITY_WEIGHT = 0
MAX_HARD_POD_AFFINITY_WEIGHT = 100


class InterPodAffinity(Filtering, Scoring, EnqueueExtensions):
    NAME = INTER_POD_AFFINITY

    def __init__(self, args: dict, handle):
        self.handle = handle
        self.hard_pod_affinity_weight = int(args.get("hardPodAffinityWeight",
                                                     DEFAULT_HARD_POD_AFFINITY_WEIGHT))
        self.ignore_preferred_terms_of_existing_pods = bool(
            args.get("ignorePreferredTermsOfExistingPods", False))

    def events_to_register(self) -> set[str]:
        # Pod add/label update/delete: an assigned pod may now satisfy the pod's affinity or no
        # longer violate an anti-affinity. Node add/label/taint update: a node may now carry
        # the topology keys (taints only because NodeAdd can be missed by preCheck).
        return {"AssignedPodAdd", "AssignedPodUpdate", "AssignedPodDelete",
                "NodeAdd", "NodeUpdate"}


def default_args(args: dict) -> dict:
    """SetDefaults_InterPodAffinityArgs: hardPodAffinityWeight 1 when unset."""
    out = dict(args or {})
    if out.get("hardPodAffinityWeight") is None:
        out["hardPodAffinityWeight"] = DEFAULT_HARD_POD_AFFINITY_WEIGHT
    out.setdefault("ignorePreferredTermsOfExistingPods", False)
    return out


def validate_args(args: dict, path: str) -> list[str]:
    """ValidateInterPodAffinityArgs."""
    field = f"{path}.hardPodAffinityWeight" if path else "hardPodAffinityWeight"
    weight = args.get("hardPodAffinityWeight", DEFAULT_HARD_POD_AFFINITY_WEIGHT)
    if isinstance(weight, bool) or not isinstance(weight, int):
        return [invalid(field, weight, "must be an integer")]
    if not MIN_HARD_POD_AFFINITY_WEIGHT <= weight <= MAX_HARD_POD_AFFINITY_WEIGHT:
        return [invalid(field, weight, f"not in valid range [{MIN_HARD_POD_AFFINITY_WEIGHT}, "
                                       f"{MAX_HARD_POD_AFFINITY_WEIGHT}]")]
    return []


def new(args: dict, handle) -> InterPodAffinity:
    args = default_args(args)
    errors = validate_args(args, "")
    if errors:
        raise ConfigError(errors)
    return InterPodAffinity(args, handle)
