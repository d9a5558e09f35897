"""GPUScorer, table-driven: PreScore's Skip, points per node, NormalizeScore, args."""
import pytest

from scheduler_core.errors import ConfigError
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.handle import FakeHandle
from scheduler_core.framework.interfaces import NodeScore
from scheduler_core.framework.snapshot import Snapshot
from scheduler_core.framework.status import Code
from scheduler_core.outoftree.gpu_scorer import default_args, new, validate_args
from scheduler_core.testing import make_node, make_pod, pod_info

A100, H100, T4 = "NVIDIA-A100-SXM4-80GB", "NVIDIA-H100-80GB-HBM3", "Tesla-T4"


def gpu_node(name, gpus, model=None, memory_mib=None, resource="nvidia.com/gpu",
             model_label="nvidia.com/gpu.product", memory_label="nvidia.com/gpu.memory"):
    labels = {}
    if model is not None:
        labels[model_label] = model
    if memory_mib is not None:
        labels[memory_label] = str(memory_mib)
    return make_node(name, labels=labels, allocatable={resource: str(gpus)} if gpus else None)


def gpu_pod(name, gpus=1, node=None, resource="nvidia.com/gpu"):
    requests = {resource: str(gpus)} if gpus else {}
    containers = [{"name": "c", "image": "cuda",
                   "resources": {"requests": requests, "limits": requests}}]
    return pod_info(make_pod(name, node_name=node, containers=containers))


CLUSTER = [
    gpu_node("a100", 4, A100, 81920),
    gpu_node("h100", 8, H100, 81920),
    gpu_node("t4", 4, T4, 15360),
    gpu_node("bare", 2),
    gpu_node("cpu", 0),
]
# One A100 is taken: 3 free x 80 GiB = 240 GiB there; 640 GiB on h100, 60 GiB on t4.
ON_A100 = [gpu_pod("busy", 1, node="a100")]
PREFER_H100 = [{"model": H100, "weight": 100}, {"model": A100, "weight": 50}]


def run_scores(args, nodes=CLUSTER, placed=ON_A100, pod=None):
    snapshot = Snapshot.from_objects(nodes, placed)
    pl = new(args, FakeHandle(snapshot))
    pod, state = pod or gpu_pod("train"), CycleState()
    assert pl.pre_score(state, pod, snapshot.list()) is None
    scores = [NodeScore(ni.name, pl.score(state, pod, ni)[0]) for ni in snapshot.list()]
    raw = [s.score for s in scores]
    assert pl.score_extensions().normalize_score(state, pod, scores) is None
    return raw, [s.score for s in scores]


@pytest.mark.parametrize("args,want_raw,want_normalized", [
    pytest.param({}, [240, 640, 60, 0, 0], [37, 100, 9, 0, 0],
                 id="by default free GPU memory in GiB decides"),
    pytest.param({"preferredModels": PREFER_H100, "modelWeight": 2},
                 [340, 840, 60, 0, 0], [40, 100, 7, 0, 0],
                 id="preferred models add their weight times modelWeight"),
    pytest.param({"preferredModels": PREFER_H100, "memoryWeight": 0},
                 [50, 100, 0, 0, 0], [50, 100, 0, 0, 0],
                 id="without memoryWeight only the model counts"),
    pytest.param({"preferredModels": [{"model": T4, "weight": 100}], "modelWeight": 10},
                 [240, 640, 1060, 0, 0], [22, 60, 100, 0, 0],
                 id="a heavily preferred small GPU beats more memory"),
])
def test_score(args, want_raw, want_normalized):
    assert run_scores(args) == (want_raw, want_normalized)


def test_requested_gpus_of_assumed_pods_are_not_free():
    placed = ON_A100 + [gpu_pod(f"h{i}", 2, node="h100") for i in range(3)]
    raw, _ = run_scores({}, placed=placed)
    assert raw[:2] == [240, 160]


@pytest.mark.parametrize("memory_label,want_raw", [
    pytest.param("81920", 240, id="memory in MiB"),
    pytest.param("80GB", 0, id="an unreadable memory label counts as none"),
    pytest.param("-5", 0, id="a negative memory label counts as none"),
])
def test_memory_label(memory_label, want_raw):
    node = make_node("n", labels={"nvidia.com/gpu.memory": memory_label},
                     allocatable={"nvidia.com/gpu": "3"})
    raw, _ = run_scores({}, nodes=[node], placed=[])
    assert raw == [want_raw]


def test_no_gpu_anywhere_scores_zero_everywhere():
    assert run_scores({}, nodes=[gpu_node("a", 0), gpu_node("b", 0)], placed=[]) == (
        [0, 0], [0, 0])


def test_another_vendor_by_args():
    nodes = [gpu_node("mi300", 8, "MI300X", 196608, "amd.com/gpu", "amd.com/gpu.product",
                      "amd.com/gpu.vram"),
             gpu_node("h100", 8, H100, 81920)]
    args = {"resourceName": "amd.com/gpu", "modelLabel": "amd.com/gpu.product",
            "memoryLabel": "amd.com/gpu.vram"}
    assert run_scores(args, nodes=nodes, placed=[], pod=gpu_pod("p", resource="amd.com/gpu")) \
        == ([1536, 0], [100, 0])


@pytest.mark.parametrize("pod,want_skip", [
    pytest.param(gpu_pod("cpu-only", 0), True, id="pod requesting no GPU is skipped"),
    pytest.param(gpu_pod("trainer", 2), False, id="pod requesting GPUs is scored"),
    pytest.param(gpu_pod("amd", 1, resource="amd.com/gpu"), True,
                 id="pod requesting another resource is skipped"),
])
def test_pre_score(pod, want_skip):
    status = new({}, FakeHandle()).pre_score(CycleState(), pod, [])
    assert (status is not None and status.code == Code.SKIP) is want_skip


@pytest.mark.parametrize("args,want", [
    pytest.param({}, {"resourceName": "nvidia.com/gpu", "modelLabel": "nvidia.com/gpu.product",
                      "memoryLabel": "nvidia.com/gpu.memory", "preferredModels": [],
                      "modelWeight": 1, "memoryWeight": 1}, id="all defaults"),
    pytest.param({"preferredModels": [{"model": A100}], "memoryWeight": 3},
                 {"resourceName": "nvidia.com/gpu", "modelLabel": "nvidia.com/gpu.product",
                  "memoryLabel": "nvidia.com/gpu.memory",
                  "preferredModels": [{"model": A100, "weight": 1}], "modelWeight": 1,
                  "memoryWeight": 3}, id="a model without a weight weighs 1"),
])
def test_default_args(args, want):
    assert default_args(args) == want


@pytest.mark.parametrize("args,want", [
    pytest.param({}, [], id="defaults are valid"),
    pytest.param({"resourceName": ""}, ["args.resourceName: Required value"],
                 id="an empty resource name is required"),
    pytest.param({"resourceName": "gpu"},
                 ['args.resourceName: Invalid value: "gpu": must be an extended resource name '
                  '(domain/name)'], id="a resource name without a domain is invalid"),
    pytest.param({"memoryLabel": " "}, ["args.memoryLabel: Required value"],
                 id="a blank memory label is required"),
    pytest.param({"preferredModels": {"model": A100}},
                 ['args.preferredModels: Invalid value: {\'model\': \'NVIDIA-A100-SXM4-80GB\'}: '
                  'must be a list of {model, weight}'], id="preferredModels must be a list"),
    pytest.param({"preferredModels": [{"model": A100, "weight": 1}, {"model": A100}]},
                 [f'args.preferredModels[1].model: Duplicate value: "{A100}"'],
                 id="a model listed twice is a duplicate"),
    pytest.param({"preferredModels": [{"weight": 5}]},
                 ["args.preferredModels[0].model: Required value"], id="a model is required"),
    pytest.param({"preferredModels": [{"model": T4, "weight": 101}]},
                 ["args.preferredModels[0].weight: Invalid value: 101: must be an integer in the "
                  "range [0, 100]"], id="a model weight above 100 is invalid"),
    pytest.param({"memoryWeight": -1},
                 ["args.memoryWeight: Invalid value: -1: must be an integer greater than or "
                  "equal to 0"], id="a negative memoryWeight is invalid"),
    pytest.param({"modelWeight": 0, "memoryWeight": 0},
                 ["args.memoryWeight: Invalid value: 0: modelWeight and memoryWeight cannot both "
                  "be 0"], id="both weights zero scores nothing"),
])
def test_validate_args(args, want):
    assert validate_args(default_args(args), "args") == want


def test_new_rejects_invalid_args():
    with pytest.raises(ConfigError, match="resourceName"):
        new({"resourceName": "gpu"}, FakeHandle())
