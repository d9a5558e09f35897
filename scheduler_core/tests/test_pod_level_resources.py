"""Pod-level resources (spec.resources, PodLevelResources: beta and on since v1.34).

The requests: component-helpers/resource/helpers_test.go TestPodLevelResourceRequests, with
the API server's defaultPodRequests (pkg/apis/core/v1/defaults.go) for pod-level limits. The
scheduling: the issue's case (a 1-CPU pod with a 0.5-CPU container fits a 1.5-CPU node once,
not twice), for the incoming pod, pods already on nodes, scoring and preemption, checked on the
vectorized and the reference path (the suite runs the engine tests on both)."""
import pytest

from scheduler_core.build import build_scheduler
from scheduler_core.features import feature_gates
from scheduler_core.framework.types import PodInfo, pod_requests
from scheduler_core.loader import load_documents
from scheduler_core.observe import TraceObserver
from scheduler_core.testing import make_node, make_pod

MI = 2**20


def ctr(**requests):
    return {"name": "c", "resources": {"requests": requests} if requests else {}}


def sidecar(**requests):
    return {**ctr(**requests), "restartPolicy": "Always"}


def spec(pod=None, containers=(), init=(), overhead=None):
    out = {"containers": list(containers), "initContainers": list(init)}
    if pod is not None:
        out["resources"] = pod
    if overhead:
        out["overhead"] = overhead
    return out


@pytest.mark.parametrize("pod_spec,want", [
    pytest.param(spec(), {}, id="nil"),
    pytest.param(spec({"requests": {"memory": "2Mi"}}), {"memory": 2 * MI},
                 id="pod level memory resource with SkipPodLevelResources false"),
    pytest.param(spec({"requests": {"memory": "2Mi"}}, [ctr(cpu="2m")]),
                 {"memory": 2 * MI, "cpu": 2},
                 id="pod level memory and container level cpu resources with "
                    "SkipPodLevelResources false"),
    pytest.param(spec({"requests": {"storage": "2Mi"}}, [ctr(storage="3Mi")]),
                 {"storage": 3 * MI},
                 id="pod level unsupported resources set at both pod-level and container-level "
                    "with SkipPodLevelResources false"),
    pytest.param(spec({"requests": {"storage": "2Mi"}}, [ctr(memory="3Mi")]), {"memory": 3 * MI},
                 id="pod level unsupported resources set at pod-level with "
                    "SkipPodLevelResources false"),
    pytest.param(spec(None, [ctr(memory="3Mi", cpu="2m")]), {"memory": 3 * MI, "cpu": 2},
                 id="only container level resources set with SkipPodLevelResources false"),
    pytest.param(spec({"requests": {"memory": "6Mi", "cpu": "8m"}}, [ctr(memory="3Mi", cpu="2m")]),
                 {"memory": 6 * MI, "cpu": 8},
                 id="both container-level and pod-level resources set with "
                    "SkipPodLevelResources false"),
    pytest.param(spec(None, [ctr(memory="3Mi", cpu="2m")], [ctr(memory="5Mi", cpu="4m")]),
                 {"memory": 5 * MI, "cpu": 4},
                 id="container-level resources and init container set with "
                    "SkipPodLevelResources false"),
    pytest.param(spec(None, [ctr(memory="3Mi", cpu="2m")], [sidecar(memory="5Mi", cpu="4m")]),
                 {"memory": 8 * MI, "cpu": 6},
                 id="container-level resources and sidecar container set with "
                    "SkipPodLevelResources false"),
    pytest.param(spec(None, [ctr(memory="3Mi", cpu="2m")],
                      [sidecar(memory="5Mi", cpu="4m"), ctr(memory="6Mi", cpu="8m")]),
                 {"memory": 11 * MI, "cpu": 12},
                 id="container-level resources, init and sidecar container set with "
                    "SkipPodLevelResources false"),
    pytest.param(spec({"requests": {"memory": "15Mi", "cpu": "18m"}},
                      [ctr(memory="3Mi", cpu="2m")],
                      [sidecar(memory="5Mi", cpu="4m"), ctr(memory="6Mi", cpu="8m")]),
                 {"memory": 15 * MI, "cpu": 18},
                 id="pod-level resources, container-level resources, init and sidecar container "
                    "set with SkipPodLevelResources false"),
    # defaultPodRequests: pod-level limits default the pod-level requests.
    pytest.param(spec({"limits": {"cpu": "2"}}, [ctr()]), {"cpu": 2000},
                 id="a pod-level limit defaults the pod-level request when no container asks"),
    pytest.param(spec({"limits": {"cpu": "2"}}, [ctr(cpu="500m")]), {"cpu": 500},
                 id="with a pod-level limit, an unset pod-level request is the containers' sum"),
    pytest.param(spec({"requests": {"cpu": "1"}}, [ctr(cpu="500m")], overhead={"cpu": "100m"}),
                 {"cpu": 1100}, id="overhead is added to the pod-level request"),
    pytest.param(spec({"requests": {"hugepages-2Mi": "4Mi"}}), {"hugepages-2Mi": 4 * MI},
                 id="hugepages are a pod-level resource"),
])
def test_pod_level_resource_requests(pod_spec, want):
    assert pod_requests(pod_spec) == want


def test_non_zero_requests_take_the_pod_level_value_over_the_defaults():
    """calculateResource's non0Requests: NonMissingContainerRequests, then pod-level wins."""
    pi = PodInfo(make_pod("p", containers=[ctr()], resources={"requests": {"cpu": "2"}}))
    assert (pi.non_zero_cpu, pi.non_zero_mem) == (2000, 200 * MI)


def pod_level(name: str, pod_cpu: str, container_cpu: str, **extra) -> dict:
    pod = make_pod(name, cpu=container_cpu, **extra)
    pod["spec"]["resources"] = {"requests": {"cpu": pod_cpu}}
    return pod


def run(docs, release="1.37", gates="", observer=None):
    cluster = load_documents([("in.yaml", docs)], features=feature_gates(release, gates))
    sched = build_scheduler(cluster, observer=observer)
    sched.run()
    return sched


RELEASES = ["1.34", "1.35", "1.36", "1.37"]


@pytest.mark.parametrize("release", RELEASES)
def test_a_pod_level_request_counts_in_full_in_every_release(release):
    sched = run([make_node("n1", cpu="1500m"), pod_level("a", "1", "500m"),
                 pod_level("b", "1", "500m")], release)
    assert sched.bindings == {"default/a": "n1", "default/b": None}
    assert sched.pending_reasons()["default/b"].startswith("0/1 nodes are available: 1 "
                                                           "Insufficient cpu.")


# From v1.36 InPlacePodLevelResourcesVerticalScaling (on) depends on PodLevelResources: turning
# the latter off alone is refused (kube_features.go's dependencies), so both go off.
PLR_OFF = "PodLevelResources=false,InPlacePodLevelResourcesVerticalScaling=false"


def test_with_the_gate_off_the_field_is_dropped_and_warned_of():
    sched = run([make_node("n1", cpu="1500m"), pod_level("a", "1", "500m"),
                 pod_level("b", "1", "500m")], gates=PLR_OFF)
    assert sched.bindings == {"default/a": "n1", "default/b": "n1"}
    assert len(sched.warnings) == 2 and "field spec.resources:" in sched.warnings[0]


@pytest.mark.parametrize("release", RELEASES)
def test_a_running_pods_pod_level_request_fills_its_node(release):
    sched = run([make_node("n1", cpu="1500m"),
                 pod_level("running", "1", "100m", node_name="n1"), make_pod("new", cpu="600m")],
                release)
    assert sched.bindings == {"default/new": None}


@pytest.mark.parametrize("gates,want", [
    pytest.param("", {"busy-mem": 99, "idle": 75},
                 id="the pod-level 2 CPU balance the node with 2Gi of memory in use"),
    pytest.param(PLR_OFF, {"busy-mem": 76, "idle": 98},
                 id="without pod-level resources the 100m container balances the idle node"),
])
def test_balanced_allocation_scores_the_pod_level_request(gates, want):
    """Two nodes of 4 CPU / 4Gi, one with 2Gi in use; the pod asks 2 CPU at pod level,
    100m and 1Mi in its container: BalancedAllocation's raw scores follow the pod level."""
    nodes = [make_node("busy-mem", cpu="4", memory="4Gi"), make_node("idle", cpu="4",
                                                                      memory="4Gi")]
    filler = make_pod("filler", memory="2Gi", node_name="busy-mem")
    trace = TraceObserver()
    run([*nodes, filler, pod_level("p", "2", "100m", memory="1Mi")], gates=gates,
        observer=trace)
    scores = trace.to_list()[0]["score"]["NodeResourcesBalancedAllocation"]
    assert {node: s["raw"] for node, s in scores.items()} == want


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("preemptor_level", [False, True],
                         ids=["a container request", "a pod-level request"])
def test_preemption_frees_the_pod_level_request_of_a_victim(release, preemptor_level):
    """The victim's pod-level 1 CPU is in the way; the preemptor asks 1 CPU in its container,
    or at pod level over a 100m container (which alone would fit beside the victim)."""
    classes = [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                "metadata": {"name": n}, "value": v} for n, v in (("low", 1), ("high", 100))]
    victim = pod_level("victim", "1", "100m", node_name="n1", priorityClassName="low")
    high = (pod_level("high", "1", "100m", priorityClassName="high") if preemptor_level
            else make_pod("high", cpu="1", priorityClassName="high"))
    trace = TraceObserver()
    sched = run([*classes, make_node("n1", cpu="1500m"), victim, high], release,
                observer=trace)
    first = trace.to_list()[0]
    assert first["outcome"] == "Unschedulable"   # the victim's pod-level 1 CPU is in the way
    assert first["preemption"]["victims"] == ["default/victim"]
    assert sched.bindings["default/high"] == "n1"
