"""Releases and feature gates: versioned specs as in the scheduler's feature list at v1.37,
and --feature-gates as component-base/featuregate/feature_gate.go's Set parses and refuses it
(feature_gate_test.go TestFeatureGateFlag, TestFeatureGateSetFromMap)."""
import pytest

from scheduler_core.errors import InputError
from scheduler_core.features import (
    DEFAULT_RELEASE,
    RELEASES,
    FeatureGateError,
    feature_gates,
    parse_release,
)


def test_the_newest_release_is_the_default():
    assert DEFAULT_RELEASE == "1.37" and RELEASES == ("1.34", "1.35", "1.36", "1.37")
    assert parse_release(None) == "1.37"


@pytest.mark.parametrize("text,want", [("1.34", "1.34"), ("v1.35", "1.35"), ("1.36.0", "1.36")])
def test_a_release_may_be_written_as_kube_versions_are(text, want):
    assert parse_release(text) == want


@pytest.mark.parametrize("text", ["1.33", "x", "1.38", ""])
def test_another_release_is_refused_naming_the_accepted_ones(text):
    with pytest.raises(InputError) as info:
        parse_release(text)
    assert str(info.value) == (f'--release: "{text}" is not a release the engine follows; '
                               f'accepted: 1.34, 1.35, 1.36, 1.37')


@pytest.mark.parametrize("gate,defaults", [
    ("NodeDeclaredFeatures", {"1.35": False, "1.36": True, "1.37": True}),
    ("OpportunisticBatching", {"1.35": True, "1.36": True, "1.37": True}),
    ("NominatedNodeNameForExpectation",
     {"1.34": False, "1.35": True, "1.36": True, "1.37": True}),
    ("PodLevelResources", {"1.34": True, "1.35": True, "1.36": True, "1.37": True}),
    ("TaintTolerationComparisonOperators", {"1.35": False, "1.36": False, "1.37": False}),
    ("GenericWorkload", {"1.35": False, "1.36": False, "1.37": False}),
    ("GangScheduling", {"1.35": False, "1.36": False, "1.37": False}),
    ("DRADeviceTaints", {"1.34": False, "1.35": False, "1.36": True, "1.37": True}),
    ("DRAPartitionableDevices", {"1.34": False, "1.35": False, "1.36": True, "1.37": True}),
    ("DRAExtendedResource", {"1.34": False, "1.35": False, "1.36": True, "1.37": True}),
    ("DRAConsumableCapacity", {"1.34": False, "1.35": False, "1.36": True, "1.37": True}),
    ("DRADeviceBindingConditions", {"1.34": False, "1.35": False, "1.36": True, "1.37": True}),
])
def test_each_release_has_its_gates_at_their_defaults(gate, defaults):
    for release in RELEASES:
        assert feature_gates(release).enabled(gate) == defaults.get(release, False), release


def test_a_gate_a_release_does_not_know_is_unrecognized():
    with pytest.raises(FeatureGateError) as info:
        feature_gates("1.34", "NodeDeclaredFeatures=true")
    assert str(info.value) == ('invalid argument "NodeDeclaredFeatures=true" for '
                               '"--feature-gates" flag: unrecognized feature gate: '
                               'NodeDeclaredFeatures')


def test_a_removed_gate_is_unrecognized_by_the_release_that_dropped_it():
    assert feature_gates("1.36", "SchedulerQueueingHints=true").enabled("SchedulerQueueingHints")
    with pytest.raises(FeatureGateError, match="unrecognized feature gate: SchedulerQueueingHints"):
        feature_gates("1.37", "SchedulerQueueingHints=true")


@pytest.mark.parametrize("release,flag,message", [
    pytest.param("1.37", "NodeDeclaredFeatures=false",
                 "cannot set feature gate NodeDeclaredFeatures to false, feature is locked to "
                 "true", id="a GA gate locked to its default cannot be turned off"),
    pytest.param("1.35", "DynamicResourceAllocation=false",
                 "cannot set feature gate DynamicResourceAllocation to false, feature is locked "
                 "to true", id="DynamicResourceAllocation is locked from v1.35"),
    pytest.param("1.37", "Foo=true", "unrecognized feature gate: Foo", id="unknown gate"),
    pytest.param("1.37", "PodLevelResources", "missing bool value for PodLevelResources",
                 id="a gate without a value"),
    pytest.param("1.35", "GangScheduling=true", "GangScheduling is enabled, but depends on "
                 "features that are disabled: [GenericWorkload]",
                 id="a gate on with a gate it depends on off (kube_features.go dependencies)"),
    pytest.param("1.36", "PodLevelResources=false", "InPlacePodLevelResourcesVerticalScaling is "
                 "enabled, but depends on features that are disabled: [PodLevelResources]",
                 id="a gate turned off under a gate on by default that depends on it"),
    pytest.param("1.37", "DRADeviceTaints=false,TopologyAwareWorkloadScheduling=true",
                 "[DRADeviceTaintRules is enabled, but depends on features that are disabled: "
                 "[DRADeviceTaints], TopologyAwareWorkloadScheduling is enabled, but depends on "
                 "features that are disabled: [GenericWorkload]]", id="two such gates, aggregated"),
    pytest.param("1.37", "GangScheduling=true", "unrecognized feature gate: GangScheduling",
                 id="v1.37 has no GangScheduling gate (GenericWorkload makes the gangs)"),
    pytest.param("1.37", "PodLevelResources=maybe",
                 'invalid value of PodLevelResources=maybe, err: strconv.ParseBool: parsing '
                 '"maybe": invalid syntax', id="a value that is no bool"),
])
def test_refused_flags_use_kube_schedulers_words(release, flag, message):
    with pytest.raises(FeatureGateError) as info:
        feature_gates(release, flag)
    assert str(info.value) == f'invalid argument "{flag}" for "--feature-gates" flag: {message}'


def test_overrides_apply_on_top_of_the_release_defaults():
    gates = feature_gates("1.35", " NodeDeclaredFeatures = true ,,OpportunisticBatching=F")
    assert gates.enabled("NodeDeclaredFeatures") and not gates.enabled("OpportunisticBatching")
    assert gates.enabled("NominatedNodeNameForExpectation")
    assert gates.flag() == "NodeDeclaredFeatures=true,OpportunisticBatching=false"


def test_setting_an_unlocked_ga_gate_is_allowed_with_kubes_warning():
    gates = feature_gates("1.34", "DynamicResourceAllocation=false")
    assert not gates.enabled("DynamicResourceAllocation")
    assert gates.notes == ("--feature-gates: Setting GA feature gate DynamicResourceAllocation="
                           "false. It will be removed in a future release.",)


def test_all_alpha_turns_on_every_alpha_gate_not_set_explicitly():
    gates = feature_gates("1.35", "AllAlpha=true,TaintTolerationComparisonOperators=false")
    assert gates.enabled("GenericWorkload") and gates.enabled("GangScheduling")
    assert gates.enabled("NodeDeclaredFeatures")          # alpha in v1.35
    assert not gates.enabled("TaintTolerationComparisonOperators")   # set explicitly
    assert gates.enabled("OpportunisticBatching")          # beta, untouched


def test_asking_for_a_gate_the_engine_does_not_list_is_a_programming_error():
    with pytest.raises(KeyError):
        feature_gates().enabled("NoSuchGate")


def test_setting_a_gate_the_engine_does_not_model_is_accepted_with_a_warning():
    gates = feature_gates("1.35", "SchedulerAsyncAPICalls=false,NodeDeclaredFeatures=true")
    assert not gates.enabled("SchedulerAsyncAPICalls")
    assert gates.notes == ("--feature-gates: SchedulerAsyncAPICalls: the engine does not model "
                           "this gate; setting it changes nothing in this run",)


@pytest.mark.parametrize("release, flag", [
    ("1.35", ""), ("1.35", "OpportunisticBatching=false"), ("1.36", "DRAExtendedResource=false"),
    ("1.37", "")])
def test_batching_is_modelled_and_not_warned_of(release, flag):
    # framework/batch.py models it (tests/test_opportunistic_batching.py).
    assert not any("OpportunisticBatching" in n for n in feature_gates(release, flag).notes)


# component-base/featuregate/feature_gate.go (the v1.36+ one, with MinCompatibilityVersion):
# setUnsetAlphaGates turns on every alpha gate not set explicitly, then unsafeSetFromMap checks
# each gate that is on against kube_features.go's dependencies, beta gates included.
@pytest.mark.parametrize("release", ["1.35", "1.36"])
def test_all_alpha_is_accepted_while_the_workload_api_gate_is_alpha(release):
    gates = feature_gates(release, "AllAlpha=true")
    assert gates.enabled("GenericWorkload") and gates.enabled("GangScheduling")


def test_all_alpha_alone_is_refused_on_v1_37_where_generic_workload_is_beta_and_off():
    with pytest.raises(FeatureGateError) as info:
        feature_gates("1.37", "AllAlpha=true")
    assert str(info.value) == (
        'invalid argument "AllAlpha=true" for "--feature-gates" flag: '
        "[CompositePodGroup is enabled, but depends on features that are disabled: "
        "[GenericWorkload], TopologyAwareWorkloadScheduling is enabled, but depends on "
        "features that are disabled: [GenericWorkload]]")


@pytest.mark.parametrize("flag", ["AllAlpha=true,AllBeta=true",
                                  "AllAlpha=true,GenericWorkload=true"])
def test_all_alpha_on_v1_37_is_accepted_with_generic_workload_on(flag):
    gates = feature_gates("1.37", flag)
    assert gates.enabled("CompositePodGroup") and gates.enabled("GenericWorkload")


def test_composite_pod_groups_need_the_workload_api_and_topology_aware_scheduling():
    with pytest.raises(FeatureGateError) as info:
        feature_gates("1.37", "CompositePodGroup=true")
    assert info.value.detail == ("CompositePodGroup is enabled, but depends on features that "
                                 "are disabled: [GenericWorkload TopologyAwareWorkloadScheduling]")
    assert feature_gates("1.37", "GenericWorkload=true,TopologyAwareWorkloadScheduling=true,"
                                 "CompositePodGroup=true").enabled("CompositePodGroup")


# The v1.37 scheduler feature list gives DRAFractionalCapacityRange two Beta specs at 1.37, the
# default-on one with MinCompatibilityVersion 1.37; featureSpecAtEmulationAndMinCompatVersion
# skips it under the default min compatibility version (one minor below, 1.36).
def test_fractional_capacity_ranges_are_beta_and_off_by_default_on_v1_37():
    assert not feature_gates("1.37").enabled("DRAFractionalCapacityRange")
    assert feature_gates("1.37", "AllBeta=true").enabled("DRAFractionalCapacityRange")
    with pytest.raises(FeatureGateError):
        feature_gates("1.36", "DRAFractionalCapacityRange=true")
