"""OpportunisticBatching (beta, on from v1.35): a pod signed like the previous one goes to the
previous cycle's next-ranked node, filtered alone and not scored.

Ported from kube-scheduler's tests:
- pkg/scheduler/framework/runtime/batch_test.go TestBatchBasic: the batch on its own;
- test/integration/scheduler/batch/batch_test.go TestBatchScenarios: through the scheduler,
  with the default profile whose PodTopologySpread defaults are cleared (newDefaultComponentConfig),
  "mysched" a copy of it, "nosign" and "emptysign" copies with a Filter plugin that has no
  SignPod or refuses every pod ("nnn trumps hint" is commented out in Go, and left out here);
- interpodaffinity/plugin_test.go TestPodAffinitySignature, and the SignPod of
  podtopologyspread/plugin.go, noderesources/fit.go and dynamicresources.go.
The same input under each release: v1.34 has no gate; v1.36 and v1.37 have DRAExtendedResource
on, so NodeResourcesFit refuses to sign (and nothing is batched) unless it is set off.
"""
import pytest

from scheduler_core.features import feature_gates
from scheduler_core.framework.batch import OpportunisticBatch
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import PodInfo
from scheduler_core.plugins.interpodaffinity.plugin import new as new_inter_pod_affinity
from scheduler_core.plugins.signing import SIGNERS, Unsignable, profile_signer
from scheduler_core.testing import make_node, make_pod
from scheduler_core.testing.fakes import configuration, fake, run

# --- batch_test.go TestBatchBasic ----------------------------------------------------------
# Its test Filter lets a node hold one pod whose id starts with "b" (blocking), any number of
# "a" ones.


def blocking(suffix):
    return f"b-{suffix}"


def non_blocking(suffix):
    return f"a-{suffix}"


class Node:
    def __init__(self, name, pods):
        self.name, self.pods = name, pods


def batch_test_filter(state, pod, node):
    if pod.uid[0] == "b" and any(p.uid[0] == "b" for p in node.pods):
        return Status(Code.UNSCHEDULABLE, "unsched")
    return Status()


def pod_with_uid(uid):
    return PodInfo({"metadata": {"name": uid, "uid": uid}, "spec": {}})


BASIC = [
    # name, first pod, first sig, first scheduled, first chosen, first others, skip pod,
    # second pod, second sig, second chosen, expected hint, expected state left
    ("a second pod with the same signature gets a hint", blocking("1"), "sig", True, "n3",
     ["n1"], False, blocking("2"), "sig", "n1", "n1", None),
    ("a second pod with a different signature doesn't get a hint", non_blocking("1"), "sig",
     True, "n3", ["n1"], False, non_blocking("2"), "sig2", "n1", "", None),
    ("a second pod doesn't get a hint if it's not 1-pod-per-node", non_blocking("1"), "sig",
     True, "n3", ["n1"], False, non_blocking("2"), "sig", "n1", "", None),
    ("pod doesn't get hint if previous pod didn't scheduled", blocking("1"), "sig", False, "n3",
     ["n1"], False, blocking("2"), "sig", "n1", "", None),
    ("empty list", blocking("1"), "sig", True, "n3", [], False, blocking("2"), "sig", "n4", "",
     None),
    ("nil list", blocking("1"), "sig", True, "n3", None, False, blocking("2"), "sig", "n4", "",
     None),
    ("pod doesn't get hint because the previous pod is to a different profile", blocking("1"),
     "sig", True, "n3", ["n1"], True, blocking("2"), "sig", "n1", "", None),
    ("pod uses batch from preceding pod and leaves remaining batch to next pod", blocking("1"),
     "sig", True, "n3", ["n1", "n2"], False, blocking("2"), "sig", "n1", "n1", ("sig", ["n2"])),
]


@pytest.mark.parametrize("case", BASIC, ids=[c[0] for c in BASIC])
def test_batch_basic(case):
    (_, first_id, first_sig, scheduled, first_chosen, first_others, skip_pod,
     second_id, second_sig, second_chosen, expected_hint, expected_state) = case
    signature = [first_sig]
    first = pod_with_uid(first_id)
    nodes = {first_chosen: Node(first_chosen, [first])}
    batch = OpportunisticBatch(lambda pod: (signature[0], ""), batch_test_filter, nodes.get)
    hint, _, _ = batch.get_node_hint(None, first, 1, 0.0)
    assert hint == ""
    if scheduled:
        batch.store_schedule_results(first_sig, hint, first_chosen,
                                     list(first_others) if first_others is not None else None,
                                     1, 0.0, {})
    cycle = 3 if skip_pod else 2
    signature[0] = second_sig
    hint, _, _ = batch.get_node_hint(None, pod_with_uid(second_id), cycle, 0.0)
    assert hint == expected_hint
    batch.store_schedule_results(second_sig, hint, second_chosen, None, cycle, 0.0, {})
    left = batch.state if batch.state is not None and batch.state.sorted_nodes else None
    if expected_state is None:
        assert left is None
    else:
        assert (left.signature, left.sorted_nodes) == expected_state


def test_a_ranking_older_than_max_batch_age_gives_no_hint():
    # batch.go maxBatchAge (500 ms), in virtual seconds here.
    first = pod_with_uid(blocking("1"))
    batch = OpportunisticBatch(lambda pod: ("sig", ""), batch_test_filter,
                               {"n3": Node("n3", [first])}.get)
    batch.get_node_hint(None, first, 1, 0.0)
    batch.store_schedule_results("sig", "", "n3", ["n1"], 1, 0.0, {})
    hint, _, entry = batch.get_node_hint(None, pod_with_uid(blocking("2")), 2, 0.6)
    assert hint == "" and entry["noHint"] == "expired"


# --- test/integration/scheduler/batch/batch_test.go TestBatchScenarios ---------------------

def scenario_pod(name, node_affinity=(), node_selector=None, scheduler=None):
    """newPod: 10 CPU and 4Mi, preferring the listed nodes by metadata.name, first most."""
    prefs = [{"weight": len(node_affinity) - i, "preference": {"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": [node]}]}}
        for i, node in enumerate(node_affinity)]
    spec = {"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution":
                                          prefs}}}
    if node_selector:
        spec["nodeSelector"] = node_selector
    if scheduler:
        spec["schedulerName"] = scheduler
    return make_pod(name, cpu="10", memory=str(4 * 1024 * 1024), **spec)


def scenario_node(name, max_pods, labels=None):
    return make_node(name, cpu="100", memory=str(4 * 1024 ** 3), pods=str(max_pods),
                     labels=labels)


NO_SPREAD_DEFAULTS = [{"name": "PodTopologySpread",
                       "args": {"defaultingType": "List", "defaultConstraints": []}}]


def scenario_config():
    """newDefaultComponentConfig and runScenario's four profiles."""
    def profile(name, extra_filter=None):
        entry = {"schedulerName": name, "pluginConfig": NO_SPREAD_DEFAULTS}
        if extra_filter:
            entry["plugins"] = {"filter": {"enabled": [{"name": extra_filter}]}}
        return entry
    return configuration(profile("default-scheduler"), profile("mysched"),
                         profile("nosign", "nosign"), profile("emptysign", "emptysign"))


def scenario_plugins():
    no_sign = fake("nosign", filter=None)
    empty_sign = fake("emptysign", filter=None)
    # testPluginEmptySign: a SignPlugin that refuses every pod (Unschedulable, no reason).
    type(empty_sign).sign_pod = lambda self, pod: (None, Status(Code.UNSCHEDULABLE))
    return [no_sign, empty_sign]


def three(prefix):
    return [f"{prefix}-batchn1", f"{prefix}-batchn2", f"{prefix}-batchn3"]


# (name, pods: (name, expected node, node affinity, expect batched, node selector, scheduler),
#  nodes: (name, max pods, labels)), as TestBatchScenarios' table.
SCENARIOS = [
    ("one pod one node", [("1ppn-batchp1", "1ppn-batchn1", [], False, None, None)],
     [("1ppn-batchn1", 1, None)]),
    ("distinct pods on distinct nodes",
     [(f"dpdn-batchp{i}", f"dpdn-batchn{i}", [], False, {"forpod": str(i)}, None)
      for i in (1, 2, 3)],
     [(f"dpdn-batchn{i}", 10, {"forpod": str(i)}) for i in (3, 2, 1)]),
    ("three pod batch",
     [("tpb-batchp1", "tpb-batchn1", three("tpb"), False, None, None),
      ("tpb-batchp2", "tpb-batchn2", three("tpb"), True, None, None),
      ("tpb-batchp3", "tpb-batchn3", three("tpb"), True, None, None)],
     [(f"tpb-batchn{i}", 1, None) for i in (3, 2, 1)]),
    ("two consecutive batches",
     [("tcb-batchp1", "tcb-batchn1", ["tcb-batchn1", "tcb-batchn2"], False, None, None),
      ("tcb-batchp2", "tcb-batchn2", ["tcb-batchn1", "tcb-batchn2"], True, None, None),
      ("tcb-batchp3", "tcb-batchn4", ["tcb-batchn4", "tcb-batchn3"], False, None, None),
      ("tcb-batchp4", "tcb-batchn3", ["tcb-batchn4", "tcb-batchn3"], True, None, None)],
     [(f"tcb-batchn{i}", 1, None) for i in (4, 3, 2, 1)]),
    ("multiple pods per node means no batching",
     [("mppn-batchp1", "mppn-batchn1", ["mppn-batchn1", "mppn-batchn2"], False, None, None),
      ("mppn-batchp2", "mppn-batchn1", ["mppn-batchn1", "mppn-batchn2"], False, None, None),
      ("mppn-batchp3", "mppn-batchn4", ["mppn-batchn4", "mppn-batchn3"], False, None, None),
      ("mppn-batchp4", "mppn-batchn4", ["mppn-batchn4", "mppn-batchn3"], False, None, None)],
     [(f"mppn-batchn{i}", 2, None) for i in (4, 3, 2, 1)]),
    ("no batching between schedulers",
     [("bts--batchp1", "bts--batchn1", three("bts-"), False, None, None),
      ("bts--batchp2", "bts--batchn2", three("bts-"), False, None, "mysched")],
     [(f"bts--batchn{i}", 1, None) for i in (3, 2, 1)]),
    ("no batching missing sign",
     [("nsg-batchp1", "nsg-batchn1", three("nsg"), False, None, "nosign"),
      ("nsg-batchp2", "nsg-batchn2", three("nsg"), False, None, "nosign")],
     [(f"nsg-batchn{i}", 1, None) for i in (3, 2, 1)]),
    ("no batching empty sign",
     [("esg-batchp1", "esg-batchn1", three("esg"), False, None, "emptysign"),
      ("esg-batchp2", "esg-batchn2", three("esg"), False, None, "emptysign")],
     [(f"esg-batchn{i}", 1, None) for i in (3, 2, 1)]),
]


def run_scenario(pods, nodes, features):
    docs_pods = [scenario_pod(name, affinity, selector, scheduler)
                 for name, _, affinity, _, selector, scheduler in pods]
    docs_nodes = [scenario_node(name, max_pods, labels) for name, max_pods, labels in nodes]
    _, cycles = run(scenario_plugins(), docs_nodes, docs_pods, config=scenario_config(),
                    features=features)
    return cycles


def batched(cycle) -> bool:
    return (cycle.get("batch") or {}).get("result") == "hint_used"


@pytest.mark.parametrize("name, pods, nodes", SCENARIOS, ids=[s[0] for s in SCENARIOS])
def test_batch_scenarios(name, pods, nodes):
    cycles = run_scenario(pods, nodes, feature_gates("1.35"))
    assert [c["node"] for c in cycles] == [p[1] for p in pods]
    assert [batched(c) for c in cycles] == [p[3] for p in pods]


def test_a_batched_pod_is_filtered_on_its_hint_alone_and_not_scored():
    _, pods, nodes = SCENARIOS[2]
    first, second, third = run_scenario(pods, nodes, feature_gates("1.35"))
    assert len(first["filter"]) == 3 and first["score"]
    assert first["batch"] == {"signed": True, "noHint": "no_state", "result": "no_hint",
                              "stored": 2}
    assert list(second["filter"]) == ["tpb-batchn2"]
    assert not second["preScore"] and not second["score"]
    assert second["batch"] == {
        "signed": True, "hint": "tpb-batchn2", "remaining": 1, "result": "hint_used",
        "previousNode": {"node": "tpb-batchn1", "plugin": "NodeResourcesFit",
                         "code": "Unschedulable", "reasons": ["Too many pods"]}}
    assert third["batch"]["hint"] == "tpb-batchn3" and third["batch"]["remaining"] == 0


@pytest.mark.parametrize("release, gates, signs", [
    ("1.36", "", False), ("1.37", "", False), ("1.36", "DRAExtendedResource=false", True)])
def test_with_dra_extended_resource_on_fit_refuses_to_sign_and_nothing_is_batched(
        release, gates, signs):
    _, pods, nodes = SCENARIOS[2]
    cycles = run_scenario(pods, nodes, feature_gates(release, gates))
    assert [c["node"] for c in cycles] == [p[1] for p in pods]
    assert [batched(c) for c in cycles] == [False, signs, signs]
    if not signs:
        assert all("batch" not in c for c in cycles)
        assert len(cycles[1]["filter"]) == 3 and cycles[1]["score"]


def test_v1_34_has_no_batching():
    _, pods, nodes = SCENARIOS[2]
    cycles = run_scenario(pods, nodes, feature_gates("1.34"))
    assert [c["node"] for c in cycles] == [p[1] for p in pods]
    assert all("batch" not in c for c in cycles)


def test_the_gate_set_off_runs_every_cycle_in_full():
    _, pods, nodes = SCENARIOS[2]
    cycles = run_scenario(pods, nodes, feature_gates("1.35", "OpportunisticBatching=false"))
    assert all("batch" not in c and len(c["filter"]) == 3 for c in cycles)


def test_the_default_profile_signs_no_pod_for_its_system_default_spreading():
    _, pods, nodes = SCENARIOS[2]
    docs = [scenario_pod(n, a) for n, _, a, *_ in pods]
    _, cycles = run([], [scenario_node(n, m, lb) for n, m, lb in nodes], docs,
                    config=configuration({"schedulerName": "default-scheduler"}),
                    features=feature_gates("1.35"))
    assert all("batch" not in c and len(c["filter"]) == 3 for c in cycles)


def test_nnn_trumps_hint():
    """Go's commented-out case: a nominated node is tried before the hint (findNodesThatFitPod
    asks for the hint all the same, popping it); the pod goes there and the hint is not used,
    which leaves no ranking (one feasible node: empty_list)."""
    _, pods, nodes = SCENARIOS[2]
    docs = [scenario_pod(n, a) for n, _, a, *_ in pods[:2]]
    docs[1]["status"] = {"nominatedNodeName": "tpb-batchn3"}
    _, cycles = run(scenario_plugins(), [scenario_node(n, m, lb) for n, m, lb in nodes], docs,
                    config=scenario_config(), features=feature_gates("1.35"))
    assert [c["node"] for c in cycles] == ["tpb-batchn1", "tpb-batchn3"]
    second = cycles[1]
    assert second["batch"]["hint"] == "tpb-batchn2"
    assert second["batch"]["result"] == "hint_not_used"
    assert second["batch"]["flushed"] == "empty_list"
    assert list(second["filter"]) == ["tpb-batchn3"]


# --- SignPod of the plugins ----------------------------------------------------------------

def sign_with(config_profile, pod, release="1.35"):
    """(signature or None, why not) from the profile's signer; an unsigned pod's cycle has no
    `batch` key."""
    sched, cycles = run([], [scenario_node("n1", 10)], [pod],
                        config=configuration(config_profile), features=feature_gates(release))
    return sched.batches["default-scheduler"].sign(PodInfo(pod)), cycles[0].get("batch")


LABELS = {"foo": "bar"}


@pytest.mark.parametrize("args, pod_spec, signable, has_labels", [
    ({}, {}, True, True),
    ({"ignorePreferredTermsOfExistingPods": True}, {}, True, False),
    ({}, {"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"topologyKey": "zone", "labelSelector": {}}]}}}, False, False),
], ids=["no affinity, default settings", "no affinity, ignore setting set", "affinity set"])
def test_pod_affinity_signature(args, pod_spec, signable, has_labels):
    plugin = new_inter_pod_affinity({"hardPodAffinityWeight": 1,
                                     "ignorePreferredTermsOfExistingPods": False, **args}, None)
    pod = PodInfo({"metadata": {"name": "p", "labels": LABELS}, "spec": pod_spec})
    if not signable:
        with pytest.raises(Unsignable):
            SIGNERS["InterPodAffinity"](plugin, pod, None)
        return
    fragments = SIGNERS["InterPodAffinity"](plugin, pod, None)
    assert ("v1.Pod.Labels" in fragments) is has_labels


@pytest.mark.parametrize("pod, why", [
    (make_pod("p", topologySpreadConstraints=[
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway",
         "labelSelector": {}}]),
     "PodTopologySpread: pods with topology constraints are not signable"),
], ids=["topology spread constraints"])
def test_plugins_that_cannot_sign_a_pod_say_why(pod, why):
    (signature, refusal), entry = sign_with(
        {"schedulerName": "default-scheduler", "pluginConfig": NO_SPREAD_DEFAULTS}, pod)
    assert (signature, refusal, entry) == (None, why, None)


def test_a_pod_with_resource_claims_is_not_signable():
    pod = PodInfo(make_pod("p", resourceClaims=[{"name": "gpu", "resourceClaimName": "gpu"}]))
    with pytest.raises(Unsignable, match="^pods with dra resource claims are not signable$"):
        SIGNERS["DynamicResources"](None, pod, None)
    assert SIGNERS["DynamicResources"](None, PodInfo(make_pod("q")), None) == {}


def profile_sign(extenders=False):
    sched, _ = run([], [scenario_node("n1", 10)], [], features=feature_gates("1.35"),
                   config=configuration({"schedulerName": "default-scheduler",
                                         "pluginConfig": NO_SPREAD_DEFAULTS}))
    return profile_signer(sched.frameworks["default-scheduler"], extenders, sched.features)


def test_pods_differing_only_in_a_configmap_volume_share_a_signature():
    # signers.go VolumesSigner: ConfigMap and Secret sources differ per pod and are left out.
    sign = profile_sign()

    def with_volume(name, volume):
        return PodInfo(make_pod(name, cpu="1", volumes=[volume]))
    a = with_volume("a", {"name": "cfg", "configMap": {"name": "a"}})
    b = with_volume("b", {"name": "cfg", "configMap": {"name": "b"}})
    c = with_volume("c", {"name": "data", "persistentVolumeClaim": {"claimName": "c"}})
    assert sign(a)[0] == sign(b)[0] != sign(c)[0]
    assert sign(PodInfo(make_pod("d", cpu="2")))[0] != sign(PodInfo(make_pod("e", cpu="1")))[0]


def test_a_profile_with_extenders_signs_no_pod():
    assert profile_sign(extenders=True)(PodInfo(make_pod("p"))) == (
        None, "signatures disabled: the profile has extenders")


@pytest.mark.parametrize("release", ["1.35", "1.37"])
def test_a_profile_that_refuses_every_pod_names_the_first_refusal_as_go_would(release):
    """The shortcut for a plugin that refuses every pod gives the words SignPod, plugin by
    plugin in the profile's order, gives."""
    sched, _ = run([], [scenario_node("n1", 10)], [], features=feature_gates(release),
                   config=configuration({"schedulerName": "default-scheduler"}))
    fwk = sched.frameworks["default-scheduler"]
    sign = profile_signer(fwk, False, sched.features)
    plugins = {}
    for point in ("pre_filter_plugins", "filter_plugins", "pre_score_plugins", "score_plugins"):
        for pl in getattr(fwk, point):
            plugins.setdefault(pl.name(), pl)

    def one_by_one(pod):
        for name, pl in plugins.items():
            try:
                SIGNERS[name](pl, pod, sched.features)
            except Unsignable as exc:
                return None, f"{name}: {exc}"
        return "signed", ""
    pods = [make_pod("plain", cpu="1"),
            make_pod("claims", resourceClaims=[{"name": "g", "resourceClaimName": "g"}]),
            make_pod("spread", topologySpreadConstraints=[
                {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
                 "labelSelector": {}}]),
            make_pod("anti", affinity={"podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {"topologyKey": "zone", "labelSelector": {}}]}})]
    for pod in map(PodInfo, pods):
        assert sign(pod) == one_by_one(pod)
        assert sign(pod)[0] is None


def test_equal_totals_are_ranked_in_filter_order_after_the_host():
    """Go's heap orders equal totals by a random number per node; the engine keeps the
    Filter order (one of Go's draws): the second pod's hint is the first node Filter passed
    that is not the first pod's."""
    nodes = [scenario_node(f"n{i}", 1) for i in (1, 2, 3, 4)]
    pods = [make_pod(f"p{i}", cpu="10", memory=str(4 * 1024 * 1024)) for i in (1, 2)]
    _, cycles = run(scenario_plugins(), nodes, pods, config=scenario_config(),
                    features=feature_gates("1.35"), seed=3)
    first, second = cycles
    assert len(set(first["totalScore"].values())) == 1     # every node ties
    rest = [n for n in first["filter"] if n != first["node"]]
    assert second["batch"]["hint"] == rest[0] == second["node"]
    assert second["batch"]["remaining"] == 2
