"""GPUScorer: ranks nodes for GPU pods by GPU model and free GPU memory.

A node describes its GPUs with the labels GPU Feature Discovery puts on it:
`nvidia.com/gpu.product` (the model, e.g. NVIDIA-A100-SXM4-80GB) and `nvidia.com/gpu.memory`
(memory per GPU in MiB). Its free GPUs are allocatable `nvidia.com/gpu` minus what the pods
on it (assumed ones included) request. Each node's points are

    modelWeight x (weight of its model in preferredModels, 0 when unlisted)
    + memoryWeight x (free GPUs x memory per GPU, in whole GiB)

and NormalizeScore scales them so that the best node gets 100. A pod that requests no GPU gets
Skip at PreScore, so the plugin leaves its scores alone. Fitting is NodeResourcesFit's job:
GPUScorer only scores nodes that passed Filter.
"""
from __future__ import annotations

import copy

from ..errors import child, duplicate, invalid, is_int, required
from ..framework.cycle_state import CycleState
from ..framework.interfaces import NodeScore, PreScorePlugin, ScoreExtensions, ScorePlugin
from ..framework.status import Status
from ..framework.types import NodeInfo, PodInfo
from ..plugins.helper import checked_args, default_normalize_score

NAME = "GPUScorer"
MIB_PER_GIB = 1024
MAX_MODEL_WEIGHT = 100

DEFAULT_ARGS = {
    "resourceName": "nvidia.com/gpu",
    "modelLabel": "nvidia.com/gpu.product",
    "memoryLabel": "nvidia.com/gpu.memory",
    "preferredModels": [],
    "modelWeight": 1,
    "memoryWeight": 1,
}
ARGS_FIELDS = {**dict.fromkeys(DEFAULT_ARGS), "preferredModels": [None]}


def gpu_memory_mib(labels: dict, memory_label: str) -> int:
    """Memory per GPU from the node's label; a missing or unreadable label counts as none."""
    try:
        return max(int(str(labels.get(memory_label, "0")).strip()), 0)
    except ValueError:
        return 0


def free_gpus(node_info: NodeInfo, resource_name: str) -> int:
    return max(node_info.allocatable.get(resource_name) - node_info.requested.get(resource_name),
               0)


class GPUScorer(PreScorePlugin, ScorePlugin, ScoreExtensions):
    NAME = NAME

    def __init__(self, args: dict):
        self.resource_name = args["resourceName"]
        self.model_label = args["modelLabel"]
        self.memory_label = args["memoryLabel"]
        self.model_weights = {m["model"]: m["weight"] for m in args["preferredModels"]}
        self.model_weight = args["modelWeight"]
        self.memory_weight = args["memoryWeight"]

    # PreScore

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status | None:
        if pod.requests.get(self.resource_name) <= 0:
            return Status.skip()
        return None

    # Score

    def node_points(self, node_info: NodeInfo) -> int:
        model_points = self.model_weights.get(node_info.labels.get(self.model_label, ""), 0)
        memory_mib = free_gpus(node_info, self.resource_name) * \
            gpu_memory_mib(node_info.labels, self.memory_label)
        return self.model_weight * model_points + \
            self.memory_weight * (memory_mib // MIB_PER_GIB)

    def score(self, state: CycleState, pod: PodInfo, node_info: NodeInfo):
        return self.node_points(node_info), None

    def score_extensions(self) -> ScoreExtensions:
        return self

    def normalize_score(self, state: CycleState, pod: PodInfo,
                        scores: list[NodeScore]) -> Status | None:
        default_normalize_score(scores)
        return None


# --- args ----------------------------------------------------------------------------------------
def default_args(args: dict) -> dict:
    """The defaults above; a preferred model without a weight weighs 1."""
    out = copy.deepcopy(dict(args or {}))
    for name, value in DEFAULT_ARGS.items():
        if out.get(name) is None:
            out[name] = copy.deepcopy(value)
    for model in out["preferredModels"] if isinstance(out["preferredModels"], list) else ():
        if isinstance(model, dict) and model.get("weight") is None:
            model["weight"] = 1
    return out


def _validate_name(args: dict, path: str, name: str) -> list[str]:
    value = args.get(name)
    if not isinstance(value, str) or not value.strip():
        return [required(child(path, name))]
    return []


def _validate_preferred_models(models, path: str) -> list[str]:
    if not isinstance(models, list):
        return [invalid(path, models, "must be a list of {model, weight}")]
    errs, seen = [], set()
    for i, entry in enumerate(models):
        where = f"{path}[{i}]"
        if not isinstance(entry, dict):
            errs.append(invalid(where, entry, "must be a mapping with model and weight"))
            continue
        model, weight = entry.get("model"), entry.get("weight")
        if not isinstance(model, str) or not model:
            errs.append(required(f"{where}.model"))
        elif model in seen:
            errs.append(duplicate(f"{where}.model", model))
        else:
            seen.add(model)
        if not is_int(weight) or not 0 <= weight <= MAX_MODEL_WEIGHT:
            errs.append(invalid(f"{where}.weight", weight,
                                f"must be an integer in the range [0, {MAX_MODEL_WEIGHT}]"))
    return errs


def validate_args(args: dict, path: str) -> list[str]:
    errs = []
    for name in ("resourceName", "modelLabel", "memoryLabel"):
        errs += _validate_name(args, path, name)
    resource = args.get("resourceName")
    if isinstance(resource, str) and resource.strip() and "/" not in resource:
        errs.append(invalid(child(path, "resourceName"), resource,
                            "must be an extended resource name (domain/name)"))
    errs += _validate_preferred_models(args.get("preferredModels"),
                                       child(path, "preferredModels"))
    weights_ok = True
    for name in ("modelWeight", "memoryWeight"):
        value = args.get(name)
        if not is_int(value) or value < 0:
            errs.append(invalid(child(path, name), value,
                                "must be an integer greater than or equal to 0"))
            weights_ok = False
    if weights_ok and args["modelWeight"] == 0 and args["memoryWeight"] == 0:
        errs.append(invalid(child(path, "memoryWeight"), 0,
                            "modelWeight and memoryWeight cannot both be 0"))
    return errs


def new(args: dict, handle) -> GPUScorer:
    args = checked_args(args, default_args, validate_args)
    return GPUScorer(args)
