"""sweep: a grid expanded into checked configurations, each variant run and measured."""
import pytest

from scheduler_core.errors import InputError
from scheduler_core.framework.types import NodeInfo
from scheduler_core.testing import make_node, make_pod
from scheduler_core.whatif.scenario import Frozen
from scheduler_core.whatif.sweep import (
    count_variants,
    expand,
    fragmentation,
    run_variant,
    variant_gates,
)


def cluster(*docs):
    return [("cluster.yaml", list(docs))]


def spread_out():
    """Four nodes of 4 CPUs, ten pods of 1 CPU, then one of 3: spreading them leaves no node
    with 3 CPUs free, packing them does."""
    nodes = [make_node(f"n{i}", cpu="4", memory="8Gi") for i in range(4)]
    pods = [make_pod(f"p{i}", cpu="1", memory="1Gi") for i in range(10)]
    return cluster(*nodes, *pods, make_pod("big", cpu="3"))


def test_the_variants_are_the_cartesian_product_of_the_axes_in_order():
    spec = {"weights": {"NodeResourcesFit": [1, 5]}, "strategies": ["LeastAllocated",
            "MostAllocated"], "releases": ["1.36", "1.37"], "disabled": [[], ["ImageLocality"]]}
    variants = expand(spec, None, base_release="1.37")
    assert count_variants(spec) == len(variants) == 16
    assert [v.index for v in variants] == list(range(16))
    assert variants[0].params == {"weights": {"NodeResourcesFit": 1},
                                  "strategy": "LeastAllocated", "release": "1.36",
                                  "disabled": []}
    assert variants[-1].release == "1.37"
    assert variants[-1].label == ("NodeResourcesFit=5, strategy=MostAllocated, release=1.37, "
                                  "disabled=ImageLocality")


def test_each_profile_of_the_cluster_configuration_gets_the_variant_settings():
    base = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
            "profiles": [{"schedulerName": "a", "pluginConfig": [{"name": "NodeResourcesFit",
                          "args": {"scoringStrategy": {"type": "LeastAllocated", "resources": [
                              {"name": "cpu", "weight": 3}]}}}]},
                         {"schedulerName": "b"}]}
    spec = {"strategies": ["RequestedToCapacityRatio"], "percentageOfNodesToScore": [30],
            "weights": {"TaintToleration": [7]}, "disabled": [["ImageLocality"]]}
    config = expand(spec, base, base_release="1.37")[0].config
    assert config["percentageOfNodesToScore"] == 30
    a, b = config["profiles"]
    strategy = a["pluginConfig"][0]["args"]["scoringStrategy"]
    assert strategy["type"] == "RequestedToCapacityRatio"
    assert strategy["resources"] == [{"name": "cpu", "weight": 3}]
    assert strategy["requestedToCapacityRatio"]["shape"][-1] == {"utilization": 100, "score": 10}
    for profile in (a, b):
        assert profile["plugins"]["score"]["enabled"] == [{"name": "TaintToleration",
                                                           "weight": 7}]
        assert profile["plugins"]["multiPoint"]["disabled"] == [{"name": "ImageLocality"}]
    assert base["profiles"][1] == {"schedulerName": "b"}   # the cluster's own is untouched


@pytest.mark.parametrize("spec, words", [
    ({"colours": [1]}, "grid.colours: unknown axis"),
    ({"weights": {"NodeResourcesFit": [0]}}, "grid.weights.NodeResourcesFit: 0 is not a weight"),
    ({"weights": {"NodeResourcesFit": []}}, "grid.weights.NodeResourcesFit: must be a non-empty"),
    ({"weights": {"NodeName": [2]}}, "grid.weights.NodeName: not a Score plugin"),
    ({"weights": {"Nope": [2]}}, "grid.weights.Nope: no such plugin"),
    ({"strategies": ["Spread"]}, "grid.strategies[0]: 'Spread' is not a scoring strategy"),
    ({"percentageOfNodesToScore": [101]}, "grid.percentageOfNodesToScore[0]: 101 is not a"),
    ({"releases": ["1.30"]}, 'grid.releases[0]: "1.30" is not a release'),
    ({"disabled": ["ImageLocality"]}, "grid.disabled[0]: must be a list of plugin names"),
    ({"disabled": [["Nope"]]}, "grid.disabled: Nope: no such plugin"),
    ({"strategies": []}, "grid.strategies: must be a non-empty list"),
    ({"featureGates": [["A"]]}, "grid.featureGates[0]: ['A'] is not a set of feature gates"),
    ({"featureGates": [{"OpportunisticBatching": "no"}]},
     "grid.featureGates[0].OpportunisticBatching: 'no' is not true or false"),
    ({"featureGates": ["", "Nope=true"]},
     'grid: variant 1 (featureGates=Nope=true): grid.featureGates[1]: kube-scheduler v1.37 '
     'refuses "Nope=true": unrecognized feature gate: Nope'),
    ({"featureGates": ["OpportunisticBatching"]},
     "grid.featureGates[0]: kube-scheduler v1.37 refuses \"OpportunisticBatching\": missing "
     "bool value for OpportunisticBatching"),
    # Locked GA at v1.37 (kube_features.go: LockToDefault), alpha and settable at v1.35.
    ({"releases": ["1.35", "1.37"], "featureGates": ["NodeDeclaredFeatures=false"]},
     "grid: variant 1 (release=1.37, featureGates=NodeDeclaredFeatures=false): "
     "grid.featureGates[0]: kube-scheduler v1.37 refuses \"NodeDeclaredFeatures=false\": cannot "
     "set feature gate NodeDeclaredFeatures to false, feature is locked to true"),
    ({"featureGates": [{"DRADeviceTaintRules": True, "DRADeviceTaints": False}]},
     "DRADeviceTaintRules is enabled, but depends on features that are disabled: "
     "[DRADeviceTaints]"),
    ([1, 2], "grid: must be an object"),
])
def test_a_bad_grid_is_refused_naming_the_field(spec, words):
    with pytest.raises(InputError) as err:
        expand(spec, None, base_release="1.37")
    assert words in str(err.value)


def test_a_gate_known_only_to_a_later_release_is_refused_on_the_earlier_variant_only():
    spec = {"releases": ["1.37", "1.34"], "featureGates": [{"OpportunisticBatching": False}]}
    with pytest.raises(InputError) as err:
        expand(spec, None, base_release="1.37")
    assert str(err.value).startswith(
        "grid: variant 1 (release=1.34, featureGates=OpportunisticBatching=false): "
        "grid.featureGates[0]: kube-scheduler v1.34 refuses")


def test_a_gates_axis_multiplies_the_variants_and_sets_each_run_gates():
    spec = {"releases": ["1.36", "1.37"],
            "featureGates": ["", "OpportunisticBatching=false", {"DRAListTypeAttributes": True}]}
    variants = expand(spec, None, base_release="1.37")
    assert [(v.release, v.gates) for v in variants] == [
        ("1.36", ""), ("1.36", "OpportunisticBatching=false"),
        ("1.36", "DRAListTypeAttributes=true"), ("1.37", ""),
        ("1.37", "OpportunisticBatching=false"), ("1.37", "DRAListTypeAttributes=true")]
    assert variants[0].label == "release=1.36, featureGates=defaults"
    assert variants[4].label == "release=1.37, featureGates=OpportunisticBatching=false"
    assert variant_gates(variants[3]).enabled("OpportunisticBatching")
    assert not variant_gates(variants[4]).enabled("OpportunisticBatching")
    # The variant's gates go on top of the command's, a later setting winning.
    assert not variant_gates(variants[3], "OpportunisticBatching=false").enabled(
        "OpportunisticBatching")
    assert variant_gates(variants[5], "DRAListTypeAttributes=false").enabled(
        "DRAListTypeAttributes")


def test_a_variant_gate_reaches_its_run_and_a_dropped_field_is_warned_of():
    """PodLevelResources off (and the gate that depends on it): the API server drops
    spec.resources (dropDisabledPodFields), so the 3-CPU pod-level request is not counted and
    the pod fits a 2-CPU node."""
    pod = make_pod("big", cpu="1")
    pod["spec"]["resources"] = {"requests": {"cpu": "3"}}
    docs = cluster(make_node("n0", cpu="2"), pod)
    off_gates = {"PodLevelResources": False, "InPlacePodLevelResourcesVerticalScaling": False}
    on, off = expand({"featureGates": ["", off_gates]}, None, base_release="1.37")
    assert run_variant(Frozen(docs), on, checked=False).metrics["bound"] == 0
    result = run_variant(Frozen(docs), off, checked=False)
    assert result.metrics["bound"] == 1
    assert any("spec.resources" in line and "PodLevelResources feature gate is off" in line
               for line in result.warnings)


def test_a_configuration_the_engine_refuses_is_reported_with_its_variant():
    spec = {"disabled": [[], ["PrioritySort"]]}
    with pytest.raises(InputError) as err:
        expand(spec, None, base_release="1.37")
    assert "grid: variant 1 (disabled=PrioritySort):" in str(err.value)


def test_more_variants_than_the_limit_are_refused_naming_the_limit():
    spec = {"percentageOfNodesToScore": list(range(30)), "weights": {"ImageLocality": [1, 2]}}
    with pytest.raises(InputError) as err:
        expand(spec, None, base_release="1.37", max_variants=50, limit_name="SWEEP_MAX")
    assert str(err.value) == "grid: 60 variants is more than SWEEP_MAX of 50"


def test_spreading_strands_the_big_pod_where_packing_binds_it():
    least, most = expand({"strategies": ["LeastAllocated", "MostAllocated"]}, None,
                         base_release="1.37")
    spread = run_variant(Frozen(spread_out()), least, checked=False).metrics
    packed = run_variant(Frozen(spread_out()), most, checked=False).metrics
    assert (spread["bound"], spread["pending"]) == (10, 1)
    assert (packed["bound"], packed["pending"]) == (11, 0)
    # 10 CPUs requested over 16: 3,3,2,2 spread (stddev 1/8), packed unevenly.
    assert spread["cpuSpread"] == 0.125 and packed["cpuSpread"] > spread["cpuSpread"]
    assert spread["fragmentation"] == 1.0 and packed["fragmentation"] == 0.0
    assert spread["preemptions"] == packed["preemptions"] == 0


def test_the_placement_score_grows_with_the_weight_of_the_plugin_that_decides():
    light, heavy = expand({"weights": {"NodeResourcesFit": [1, 5]}}, None, base_release="1.37")
    low = run_variant(Frozen(spread_out()), light, checked=False)
    high = run_variant(Frozen(spread_out()), heavy, checked=False)
    assert low.bindings == high.bindings
    assert high.metrics["placementScore"] > low.metrics["placementScore"] > 0


def test_a_pod_that_preempts_is_counted():
    nodes = [make_node("n0", cpu="2")]
    pods = [make_pod("low", cpu="2", node_name="n0", priority=0),
            make_pod("high", cpu="2", priority=100)]
    [variant] = expand({"releases": ["1.37"]}, None, base_release="1.37")
    result = run_variant(Frozen(cluster(*nodes, *pods)), variant, checked=False)
    assert result.metrics["preemptions"] == 1
    assert result.bindings["default/high"] == "n0"


def test_fragmentation_counts_the_free_cpu_of_nodes_the_median_pending_pod_does_not_fit():
    a, b = NodeInfo(make_node("a", cpu="4", memory="8Gi")), NodeInfo(make_node("b", cpu="4",
                                                                                 memory="8Gi"))
    a.requested.milli_cpu = 3000     # 1 CPU free: too little for a 2-CPU pod
    b.requested.milli_cpu = 1000     # 3 CPUs free
    assert fragmentation([a, b], [(2000, 0), (500, 0), (3000, 0)]) == 0.25
    assert fragmentation([a, b], []) == 0.0
