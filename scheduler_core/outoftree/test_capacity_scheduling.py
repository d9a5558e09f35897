"""CapacityScheduling, ported from scheduler-plugins' capacity_scheduling_test.go (TestPreFilter,
TestPostFilter, TestReserve, TestUnreserve and the informer handlers' tests) and
elasticquota_test.go: a quota's used resources count the pods bound in its namespace, as the Go
plugin's pod informer counts them, and the pod its Reserve counted."""
import pytest
import yaml

from scheduler_core.framework.status import Status
from scheduler_core.framework.types import NodeInfo, Resource
from scheduler_core.observe import TraceObserver
from scheduler_core.outoftree.capacity_scheduling import (
    LOWER_BOUND_OF_MIN,
    UPPER_BOUND_OF_MAX,
    CapacityScheduling,
    ElasticQuotaInfo,
    ElasticQuotaInfos,
    exceeds,
    sync_pods,
    sync_quotas,
)
from scheduler_core.simulate import load_scheduler
from scheduler_core.testing import fakes, make_node, make_pod, pod_info
from scheduler_core.testing.fakes import fake

OUT_OF_TREE = {"CapacityScheduling": "scheduler_core.outoftree.capacity_scheduling"}
CONFIG = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
          "profiles": [{"plugins": {"multiPoint": {"enabled": [{"name": "CapacityScheduling"}]}}}]}


def quota(namespace, min_memory, max_memory):
    return {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "ElasticQuota",
            "metadata": {"name": "quota", "namespace": namespace},
            "spec": {"min": {"memory": str(min_memory)}, "max": {"memory": str(max_memory)}}}


def mem_pod(name, namespace, memory, node=None):
    return make_pod(name, namespace=namespace, node_name=node, memory=str(memory))


def run(tmp_path, *docs):
    path = tmp_path / "in.yaml"
    path.write_text(yaml.safe_dump_all([make_node("n1", memory="100Gi"), CONFIG, *docs]))
    trace = TraceObserver()
    scheduler = load_scheduler([str(path)], observer=trace, out_of_tree=OUT_OF_TREE)
    scheduler.run()
    first = {}
    for c in trace.to_list():
        first.setdefault(c["pod"], c)
    return first


def pre_filter_entry(cycle):
    return next(e for e in cycle["preFilter"] if e["plugin"] == "CapacityScheduling")


# TestPreFilter: "pod subjects to ElasticQuota" (ns1 used 300: 500 fits under max 2000, 1800
# does not), "the sum of used is bigger than the sum of min", "without elasticQuotaInfo".
@pytest.mark.parametrize("docs, pod, code, reason", [
    pytest.param([quota("ns1", 1000, 2000), mem_pod("used", "ns1", 300, node="n1")],
                 mem_pod("ns1-p1", "ns1", 500), "Success", None,
                 id="pod subjects to ElasticQuota and fits under max"),
    pytest.param([quota("ns1", 1000, 2000), mem_pod("used", "ns1", 300, node="n1")],
                 mem_pod("ns1-p2", "ns1", 1800), "Unschedulable",
                 "Pod ns1/ns1-p2 is rejected in PreFilter because ElasticQuota ns1 is more than "
                 "Max", id="pod subjects to ElasticQuota and exceeds max"),
    pytest.param([quota("ns1", 1000, 2000), quota("ns2", 1000, 2000),
                  mem_pod("used1", "ns1", 1800, node="n1"),
                  mem_pod("used2", "ns2", 200, node="n1")],
                 mem_pod("ns2-p1", "ns2", 500), "Unschedulable",
                 "Pod ns2/ns2-p1 is rejected in PreFilter because total ElasticQuota used is "
                 "more than min", id="the sum of used is bigger than the sum of min"),
    pytest.param([], mem_pod("ns2-p1", "ns2", 500), "Success", None,
                 id="without elasticQuotaInfo"),
])
def test_pre_filter(tmp_path, docs, pod, code, reason):
    cycles = run(tmp_path, *docs, pod)
    name = f"{pod['metadata']['namespace']}/{pod['metadata']['name']}"
    entry = pre_filter_entry(cycles[name])
    assert entry["code"] == code
    if reason:
        assert entry["reasons"] == [reason]
        assert cycles[name]["outcome"] == "Unschedulable"
    else:
        assert cycles[name]["outcome"] == "Bound"


def test_a_bound_pod_counts_against_its_quota_for_the_next_one(tmp_path):
    cycles = run(tmp_path, quota("ns1", 1000, 1000), mem_pod("a", "ns1", 600),
                 mem_pod("b", "ns1", 600))
    assert cycles["ns1/a"]["outcome"] == "Bound"
    assert pre_filter_entry(cycles["ns1/b"])["reasons"] == [
        "Pod ns1/b is rejected in PreFilter because ElasticQuota ns1 is more than Max"]


def test_a_bad_quantity_is_an_error_naming_the_quota_and_field(tmp_path):
    bad = quota("ns1", 1000, 2000)
    bad["spec"]["max"]["memory"] = "lots"
    cycles = run(tmp_path, bad, mem_pod("p", "ns1", 1))
    assert cycles["ns1/p"]["outcome"] == "Error"
    assert "ElasticQuota ns1/quota: field spec.max" in cycles["ns1/p"]["message"]


# elasticquota_test.go: TestUsedOverMinWith, TestUsedOverMaxWith, TestAggregatedUsedOverMinWith.
def res(memory=0, cpu=0, **scalars):
    return Resource(milli_cpu=cpu, memory=memory, scalar=scalars)


@pytest.mark.parametrize("info, request_, want", [
    pytest.param(ElasticQuotaInfo("ns", res(100), res(200), res(50)), res(40), False,
                 id="used plus request below min"),
    pytest.param(ElasticQuotaInfo("ns", res(100), res(200), res(50)), res(60), True,
                 id="used plus request above min"),
    pytest.param(ElasticQuotaInfo("ns", res(100), res(200), res(50)), res(0, gpu=1), True,
                 id="a scalar the min does not name counts as a min of 0"),
])
def test_used_over_min_with(info, request_, want):
    assert info.used_over_min_with(request_) is want


@pytest.mark.parametrize("request_, want", [
    pytest.param(res(150), False, id="used plus request up to max"),
    pytest.param(res(151), True, id="used plus request above max"),
    pytest.param(res(0, gpu=5), False, id="a scalar the max does not name is unlimited"),
])
def test_used_over_max_with(request_, want):
    info = ElasticQuotaInfo("ns", res(100), res(200), res(50))
    assert info.used_over_max_with(request_) is want


def test_aggregated_used_over_min_with():
    infos = ElasticQuotaInfos({"a": ElasticQuotaInfo("a", res(100), res(300), res(150)),
                               "b": ElasticQuotaInfo("b", res(100), res(300), res(0))})
    assert infos.aggregated_used_over_min_with(res(50)) is False
    assert infos.aggregated_used_over_min_with(res(51)) is True


def test_scalar_bounds():
    assert exceeds(res(0, gpu=1), Resource(), res(0), LOWER_BOUND_OF_MIN) is True
    assert exceeds(res(0, gpu=1), Resource(), res(0), UPPER_BOUND_OF_MAX) is False


def test_the_capacity_lesson_borrows_and_a_guaranteed_quota_takes_it_back():
    from pathlib import Path
    lesson = Path(__file__).resolve().parents[2] / "fixtures" / "capacity-lesson.yaml"
    trace = TraceObserver()
    scheduler = load_scheduler([str(lesson)], observer=trace, out_of_tree=OUT_OF_TREE, seed=1)
    scheduler.run()
    cycles = trace.to_list()
    first = {}
    for c in cycles:
        first.setdefault(c["pod"], c)
    assert pre_filter_entry(first["team-a/a-4"])["reasons"] == [
        "Pod team-a/a-4 is rejected in PreFilter because ElasticQuota team-a is more than Max"]
    assert first["team-a/a-4"]["preemption"] is None
    assert pre_filter_entry(first["team-b/b-1"])["reasons"] == [
        "Pod team-b/b-1 is rejected in PreFilter because total ElasticQuota used is more than "
        "min"]
    assert first["team-b/b-1"]["postFilter"] == [
        {"plugin": "CapacityScheduling", "code": "Success", "reasons": []}]
    assert first["team-b/b-1"]["preemption"]["victims"] == ["team-a/a-2"]
    assert [(c["time"], c["pod"], c["node"]) for c in cycles if c["outcome"] == "Bound"][-2:] == [
        (30.0, "team-a/a-4", "node-1"), (30.0, "team-b/b-1", "node-1")]


# TestPostFilter: node-a holds 150 bytes of memory, full with three 50-byte pods (priority 100);
# the preemptor t1-p1 (ns1, priority 1000) asks for 50 more.
POST_FILTER_CONFIG = {
    "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
    "profiles": [{"plugins": {
        "multiPoint": {"enabled": [{"name": "CapacityScheduling"}]},
        "postFilter": {"enabled": [{"name": "CapacityScheduling"}], "disabled": [{"name": "*"}]}}}]}


def existing(name, namespace):
    return make_pod(name, namespace=namespace, node_name="node-a", memory="50", priority=100)


@pytest.mark.parametrize("quotas, victims", [
    pytest.param([quota("ns1", 50, 200), quota("ns2", 200, 200)], [["ns1/t1-p2"]],
                 id="in-namespace preemption: ns1 passes its min, so it evicts its own pod"),
    pytest.param([quota("ns1", 150, 200), quota("ns2", 50, 200)],
                 [["ns2/t1-p3"], ["ns2/t1-p4"]],
                 id="cross-namespace preemption: ns1 within its min reclaims from ns2"),
    pytest.param([], [["ns1/t1-p2"], ["ns2/t1-p3"], ["ns2/t1-p4"]],
                 id="without elasticQuotas: plain preemption by priority"),
])
def test_post_filter(tmp_path, quotas, victims):
    node = make_node("node-a", memory="150")
    path = tmp_path / "in.yaml"
    path.write_text(yaml.safe_dump_all([
        node, POST_FILTER_CONFIG, *quotas, existing("t1-p2", "ns1"), existing("t1-p3", "ns2"),
        existing("t1-p4", "ns2"),
        make_pod("t1-p1", namespace="ns1", memory="50", priority=1000)]))
    trace = TraceObserver()
    scheduler = load_scheduler([str(path)], observer=trace, out_of_tree=OUT_OF_TREE)
    scheduler.run()
    cycle = trace.to_list()[0]
    assert cycle["postFilter"] == [{"plugin": "CapacityScheduling", "code": "Success",
                                    "reasons": []}]
    assert cycle["preemption"]["nominatedNode"] == "node-a"
    assert cycle["preemption"]["victims"] in victims
    assert scheduler.bindings["ns1/t1-p1"] == "node-a"


# TestReserve, TestUnreserve, TestAddPod, TestUpdatePod, TestDeletePod, TestUpdateElasticQuota
# and TestDeleteElasticQuota (capacity_scheduling_test.go): the plugin's own bookkeeping. Pods
# ask for memory and cpu as makePod(name, ns, mem, cpu, ...) does.
def go_pod(name, namespace, memory, cpu=0, node="node-a"):
    return pod_info(make_pod(name, namespace=namespace, node_name=node,
                             requests={"memory": str(memory), "cpu": f"{cpu}m"}))


def ns1_quota(used_memory=300, pods=None):
    return ElasticQuotaInfos({"ns1": ElasticQuotaInfo("ns1", res(1000), res(2000),
                                                      res(used_memory), pods)})


def bookkeeping(plugin, namespace="ns1"):
    info = plugin.elastic_quota_infos[namespace]
    return sorted(info.pods), info.used.memory, info.used.milli_cpu


def test_reserve_counts_a_pod_of_a_quota_once_and_leaves_other_namespaces_alone():
    plugin = CapacityScheduling(handle=None)
    plugin.elastic_quota_infos = ns1_quota()
    p1, p2 = go_pod("t1-p1", "ns1", 50), go_pod("t1-p2", "ns2", 50)
    assert plugin.reserve(None, p1, "node-a") is None
    assert bookkeeping(plugin) == (["ns1/t1-p1"], 350, 0)
    assert plugin.reserve(None, p2, "node-a") is None
    assert plugin.reserve(None, p1, "node-a") is None
    assert bookkeeping(plugin) == (["ns1/t1-p1"], 350, 0)


def test_unreserve_takes_out_only_a_pod_it_counted():
    plugin = CapacityScheduling(handle=None)
    plugin.elastic_quota_infos = ns1_quota(pods={"ns1/t1-p3": res(50), "ns1/t1-p4": res(250)})
    for pod, want in [(go_pod("t1-p1", "ns1", 50), (["ns1/t1-p3", "ns1/t1-p4"], 300, 0)),
                      (go_pod("t1-p2", "ns2", 50), (["ns1/t1-p3", "ns1/t1-p4"], 300, 0)),
                      (go_pod("t1-p3", "ns1", 50), (["ns1/t1-p4"], 250, 0))]:
        plugin.unreserve(None, pod, "node-a")
        assert bookkeeping(plugin) == want


def eq(namespace, max_, min_):
    spec = {}
    if max_ is not None:
        spec["max"] = {"cpu": f"{max_[0]}m", "memory": str(max_[1])}
    if min_ is not None:
        spec["min"] = {"cpu": f"{min_[0]}m", "memory": str(min_[1])}
    return {"kind": "ElasticQuota", "metadata": {"name": "t1-eq1", "namespace": namespace},
            "spec": spec}


def on_node(*pods):
    ni = NodeInfo(make_node("node-a"))
    for pod in pods:
        ni.add_pod(pod)
    return [ni]


@pytest.mark.parametrize("quota_, max_, min_", [
    pytest.param(eq("ns1", (100, 1000), (10, 100)), res(1000, 100), res(100, 10),
                 id="Add ElasticQuota"),
    pytest.param(eq("ns1", None, (10, 100)),
                 Resource(UPPER_BOUND_OF_MAX, UPPER_BOUND_OF_MAX, UPPER_BOUND_OF_MAX),
                 res(100, 10), id="Add ElasticQuota without Max"),
    pytest.param(eq("ns1", (100, 1000), None), res(1000, 100), Resource(),
                 id="Add ElasticQuota without Min"),
])
def test_add_elastic_quota(quota_, max_, min_):
    infos = ElasticQuotaInfos()
    sync_quotas(infos, [quota_])
    info = infos["ns1"]
    assert (info.pods, info.used.to_dict()) == ({}, Resource().to_dict())
    assert (info.max.to_dict(), info.min.to_dict()) == (max_.to_dict(), min_.to_dict())


def test_update_elastic_quota_keeps_its_pods_and_used_resources():
    infos = ElasticQuotaInfos()
    sync_quotas(infos, [eq("ns1", (100, 1000), (10, 100))])
    sync_pods(infos, on_node(go_pod("t1-p1", "ns1", 50, 10)))
    sync_quotas(infos, [eq("ns1", (300, 1000), (10, 100))])
    assert infos["ns1"].max.milli_cpu == 300
    assert (sorted(infos["ns1"].pods), infos["ns1"].used.memory) == (["ns1/t1-p1"], 50)


def test_delete_elastic_quota():
    infos = ElasticQuotaInfos()
    sync_quotas(infos, [eq("ns1", (300, 1000), (10, 100))])
    sync_quotas(infos, [])
    assert infos == {}


def test_add_pod_counts_each_assigned_pod_of_the_namespace_once():
    infos = ElasticQuotaInfos()
    sync_quotas(infos, [eq("ns1", (100, 1000), (10, 100))])
    pods = [go_pod(f"t1-p{i}", "ns1", 50, 10) for i in (1, 2, 3)]
    sync_pods(infos, on_node(*pods))
    sync_pods(infos, on_node(*pods))
    assert sorted(infos["ns1"].pods) == ["ns1/t1-p1", "ns1/t1-p2", "ns1/t1-p3"]
    assert (infos["ns1"].used.memory, infos["ns1"].used.milli_cpu) == (150, 30)


@pytest.mark.parametrize("deleted, left, memory, cpu", [
    pytest.param(["t1-p1", "t1-p2"], [], 0, 0, id="Delete All Pods"),
    pytest.param(["t1-p1"], ["ns1/t1-p2"], 100, 30, id="Delete one Pod"),
])
def test_delete_pod_takes_out_a_pod_no_node_holds(deleted, left, memory, cpu):
    # A finished pod (TestUpdatePod's PodFailed) leaves the cache as a deleted one does.
    infos = ElasticQuotaInfos()
    sync_quotas(infos, [eq("ns1", (100, 1000), (10, 100))])
    pods = {name: go_pod(name, "ns1", 100, 30) for name in ("t1-p1", "t1-p2")}
    sync_pods(infos, on_node(*pods.values()))
    sync_pods(infos, on_node(*(p for name, p in pods.items() if name not in deleted)))
    assert (sorted(infos["ns1"].pods), infos["ns1"].used.memory,
            infos["ns1"].used.milli_cpu) == (left, memory, cpu)


def test_a_pod_rejected_after_reserve_gives_its_quota_back_at_unreserve():
    # ns1 may use 1000 bytes: a (600) is reserved, then turned away at Permit; Unreserve takes
    # it out of the quota, so b (600) fits under the max.
    plugin = CapacityScheduling(handle=None)
    gate = fake("RejectA", permit=lambda state, pod, node: (
        Status.unschedulable("not a") if pod.name == "a" else None, 0))
    _, cycles = fakes.run([plugin, gate], [make_node("n1", memory="100Gi")],
                          [mem_pod("a", "ns1", 600), mem_pod("b", "ns1", 600)],
                          other_objects=[quota("ns1", 1000, 1000)])
    first_a = next(c for c in cycles if c["pod"] == "ns1/a")
    assert [e["plugin"] for e in first_a["reserve"]] == ["CapacityScheduling"]
    assert [e["plugin"] for e in first_a["unreserve"]] == ["CapacityScheduling"]
    first_b = next(c for c in cycles if c["pod"] == "ns1/b")
    assert first_b["outcome"] == "Bound"
    assert bookkeeping(plugin) == (["ns1/b"], 600, 0)
