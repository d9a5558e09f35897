"""KubeSchedulerConfiguration validation, and NewFramework's multiPoint expansion as
framework_test.go's TestNewFrameworkMultiPointExpansion states it."""
import pytest

from scheduler_core.config import POINTS, PluginRef, PluginSet, Profile, parse_configuration
from scheduler_core.errors import ConfigError
from scheduler_core.features import feature_gates
from scheduler_core.framework.runtime import FrameworkError, expand_plugins
from scheduler_core.plugins.registry import default_registry
from scheduler_core.testing.fakes import configuration, fake, profile, registry


def errors_of(raw, *plugins):
    with pytest.raises(ConfigError) as info:
        parse_configuration(raw, registry(*plugins))
    return info.value.errors


OTHER_SORT = fake("OtherSort", queue_sort=False)
SCORER = fake("Scorer", score=(0, None))
SCORER2 = fake("Scorer2", score=(0, None))


# --- validation --------------------------------------------------------------------------------
def test_no_queue_sort_plugin():
    assert errors_of(configuration(profile(queue_sort=None))) == [
        'profiles[0]: only one queue sort plugin required for profile with scheduler name '
        '"default-scheduler", but got 0']


def test_two_queue_sort_plugins():
    assert errors_of(configuration(profile("OtherSort")), OTHER_SORT) == [
        'profiles[0]: only one queue sort plugin required for profile with scheduler name '
        '"default-scheduler", but got 2']


def test_no_bind_plugin():
    assert errors_of(configuration(profile(binder=None))) == [
        'profiles[0]: at least one bind plugin is needed for profile with scheduler name '
        '"default-scheduler"']


def test_duplicate_profile_names():
    assert errors_of(configuration(profile(name="a"), profile(name="a"))) == [
        'profiles[1].schedulerName: Duplicate value: "a"']


def test_unknown_plugin_at_an_extension_point():
    raw = configuration(profile())
    raw["profiles"][0]["plugins"]["filter"] = {"enabled": [{"name": "Foo"}]}
    assert errors_of(raw) == ['profiles[0]: FilterPlugin "Foo" does not exist']


def test_unknown_plugin_in_multipoint_is_reported_at_the_first_point_go_expands():
    assert errors_of(configuration(profile("Foo"))) == [
        'profiles[0]: PreFilterPlugin "Foo" does not exist']


def test_plugin_enabled_at_a_point_it_does_not_implement():
    raw = configuration(profile("Scorer"))
    raw["profiles"][0]["plugins"]["filter"] = {"enabled": [{"name": "Scorer"}]}
    assert errors_of(raw, SCORER) == [
        'profiles[0]: plugin "Scorer" does not extend FilterPlugin plugin']


# NewFramework's "total score of Score plugins could overflow" cannot be reached from a file:
# a weight is an int32 there, and the decoder refuses one it cannot hold first.
@pytest.mark.parametrize("weights", [
    pytest.param([2**62, 2**62], id="two weights that would overflow together"),
    pytest.param([2**63 // 100 + 1], id="one weight that would overflow alone"),
])
def test_score_weights_beyond_int32_fail_the_decoding(weights):
    plugins = [SCORER, SCORER2][:len(weights)]
    enabled = [(p.NAME, w) for p, w in zip(plugins, weights)]
    assert errors_of(configuration(profile(*enabled)), *plugins) == [
        f"json: cannot unmarshal number {weights[0]} into Go struct field "
        "Plugin.profiles.plugins.multiPoint.enabled.weight of type int32"]


@pytest.mark.parametrize("raw,want", [
    pytest.param(configuration(profile(), percentageOfNodesToScore=101),
                 "percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]",
                 id="global percentage above 100"),
    pytest.param(configuration(profile(percentageOfNodesToScore=-1)),
                 "profiles[0].percentageOfNodesToScore: Invalid value: -1: "
                 "not in valid range [0-100]", id="profile percentage below 0"),
    pytest.param(configuration(profile(), podInitialBackoffSeconds=5, podMaxBackoffSeconds=2),
                 "podMaxBackoffSeconds: Invalid value: 2: must be greater than or equal to "
                 "PodInitialBackoffSeconds", id="maximum backoff below the initial one"),
    pytest.param(configuration(profile(), podInitialBackoffSeconds=0),
                 "podInitialBackoffSeconds: Invalid value: 0: must be greater than 0",
                 id="initial backoff of zero"),
    pytest.param(configuration(profile(pluginConfig=[{"name": "DefaultBinder"},
                                                     {"name": "DefaultBinder"}])),
                 'profiles[0].pluginConfig[1]: Duplicate value: "DefaultBinder"',
                 id="repeated plugin config"),
    pytest.param({"apiVersion": "kubescheduler.config.k8s.io/v1beta3",
                  "kind": "KubeSchedulerConfiguration", "profiles": [profile()]},
                 'no kind "KubeSchedulerConfiguration" is registered for version '
                 '"kubescheduler.config.k8s.io/v1beta3" in scheme '
                 '"pkg/scheduler/apis/config/scheme/scheme.go:30" (kube-scheduler dropped it in '
                 "v1.29; apiVersion kubescheduler.config.k8s.io/v1 takes the same profiles)",
                 id="a v1beta3 configuration is told that v1 takes the same profiles"),
    pytest.param({"apiVersion": "kubescheduler.config.k8s.io/unknown",
                  "kind": "KubeSchedulerConfiguration", "profiles": [profile()]},
                 'no kind "KubeSchedulerConfiguration" is registered for version '
                 '"kubescheduler.config.k8s.io/unknown" in scheme '
                 '"pkg/scheduler/apis/config/scheme/scheme.go:30"',
                 id="an unknown version is not registered (options_test)"),
    pytest.param({"apiVersion": "componentconfig/v1alpha1",
                  "kind": "KubeSchedulerConfiguration", "profiles": [profile()]},
                 'no kind "KubeSchedulerConfiguration" is registered for version '
                 '"componentconfig/v1alpha1" in scheme '
                 '"pkg/scheduler/apis/config/scheme/scheme.go:30"',
                 id="a componentconfig/v1alpha1 file is not registered (options_test)"),
])
def test_field_errors(raw, want):
    assert errors_of(raw) == [want]


def test_queue_sort_must_be_the_same_for_all_profiles():
    raw = configuration(profile(name="a"), profile(name="b"),
                        profile(name="c", queue_sort="OtherSort"))
    # The queue sorts come from multiPoint, so profile.NewMap (not validation) tells them apart.
    assert errors_of(raw, OTHER_SORT) == [
        'profiles[2]: different queue sort plugins for profile "c": "OtherSort", '
        'first: "PrioritySort"']


def test_config_error_message_names_the_file():
    with pytest.raises(ConfigError) as info:
        parse_configuration(configuration(profile(binder=None)), registry(), file="ksc.yaml")
    assert str(info.value) == (
        "ksc.yaml: invalid KubeSchedulerConfiguration: "
        "profiles[0]: at least one bind plugin is needed for profile with scheduler name "
        '"default-scheduler"')


def test_a_valid_minimal_configuration():
    cfg = parse_configuration(configuration(profile(("Scorer", 3)), podMaxBackoffSeconds=20),
                              registry(SCORER))
    assert [p.scheduler_name for p in cfg.profiles] == ["default-scheduler"]
    assert (cfg.pod_initial_backoff_seconds, cfg.pod_max_backoff_seconds) == (1, 20)


# --- multiPoint expansion (TestNewFrameworkMultiPointExpansion) ---------------------------------
ALL_POINTS = dict(queue_sort=False, pre_filter=(None, None), filter=None, post_filter=None,
                  pre_score=None, score=(0, None), reserve=None, permit=(None, 0), pre_bind=None,
                  bind=None, post_bind=None)
EXPANSION_REGISTRY = registry(
    fake("TestPlugin", **ALL_POINTS),
    fake("ScorePlugin1", pre_score=None, score=(0, None)),
    fake("ScorePlugin2", pre_score=None, score=(0, None)),
    fake("ScoreWithNormalizePlugin1", score=(0, None), normalize=lambda *args: None),
    fake("QueueSortPlugin", queue_sort=False),
    fake("BindPlugin", bind=None),
)


def plugins(multi=(), multi_disabled=(), **points):
    """A profile's plugin sets: multiPoint and per-point enabled lists, 'disabled_<point>'."""
    sets = {point: PluginSet() for point in POINTS}
    sets["multiPoint"] = PluginSet([_ref(e) for e in multi], list(multi_disabled))
    for key, value in points.items():
        if key.startswith("disabled_"):
            sets[key[len("disabled_"):]].disabled = list(value)
        else:
            sets[key].enabled = [_ref(e) for e in value]
    return Profile("default-scheduler", sets, {})


def _ref(entry):
    return PluginRef(*entry) if isinstance(entry, tuple) else PluginRef(entry)


def everywhere(name="TestPlugin", **overrides):
    """The expansion of a plugin implementing every point, with some points replaced."""
    want = {point: [name] for point in ("queueSort", "preFilter", "filter", "postFilter",
                                        "preScore", "score", "reserve", "permit", "preBind",
                                        "bind", "postBind")}
    want.update(overrides)
    return {point: names for point, names in want.items() if names}


@pytest.mark.parametrize("profile_,want,want_weights", [
    pytest.param(plugins(multi=[("TestPlugin", 5)]), everywhere(), {"TestPlugin": 5},
                 id="plugin expansion"),
    pytest.param(plugins(multi=["TestPlugin"], disabled_preScore=["TestPlugin"],
                         disabled_score=["TestPlugin"]),
                 everywhere(preScore=[], score=[]), {}, id="disable MultiPoint plugin at some "
                 "extension points"),
    pytest.param(plugins(multi=["TestPlugin", "ScorePlugin1"]),
                 everywhere(preScore=["TestPlugin", "ScorePlugin1"],
                            score=["TestPlugin", "ScorePlugin1"]),
                 {"TestPlugin": 1, "ScorePlugin1": 1}, id="Multiple MultiPoint plugins"),
    pytest.param(plugins(multi=["TestPlugin", "ScorePlugin1"], disabled_preScore=["*"]),
                 everywhere(preScore=[], score=["TestPlugin", "ScorePlugin1"]),
                 {"TestPlugin": 1, "ScorePlugin1": 1}, id="disable MultiPoint extension"),
    pytest.param(plugins(multi=["ScoreWithNormalizePlugin1", "TestPlugin", "ScorePlugin1"],
                         score=["ScorePlugin1", "TestPlugin"]),
                 everywhere(preScore=["TestPlugin", "ScorePlugin1"],
                            score=["ScorePlugin1", "TestPlugin", "ScoreWithNormalizePlugin1"]),
                 {"ScorePlugin1": 1, "TestPlugin": 1, "ScoreWithNormalizePlugin1": 1},
                 id="Reorder MultiPoint plugins (specified extension takes precedence)"),
    pytest.param(plugins(multi=["TestPlugin", "ScorePlugin1"],
                         score=["ScoreWithNormalizePlugin1", "ScorePlugin1", "TestPlugin"]),
                 everywhere(preScore=["TestPlugin", "ScorePlugin1"],
                            score=["ScorePlugin1", "TestPlugin", "ScoreWithNormalizePlugin1"]),
                 {"ScoreWithNormalizePlugin1": 1, "ScorePlugin1": 1, "TestPlugin": 1},
                 id="Reorder MultiPoint plugins (specified extension only takes precedence when "
                 "it exists in MultiPoint)"),
    pytest.param(plugins(multi=["TestPlugin", "ScorePlugin1"],
                         score=[("ScorePlugin1", 5), ("TestPlugin", 3)]),
                 everywhere(preScore=["TestPlugin", "ScorePlugin1"],
                            score=["ScorePlugin1", "TestPlugin"]),
                 {"ScorePlugin1": 5, "TestPlugin": 3}, id="Override MultiPoint plugins weights"),
    pytest.param(plugins(multi=["QueueSortPlugin", "BindPlugin", "ScorePlugin1"],
                         multi_disabled=["*"]),
                 {"queueSort": ["QueueSortPlugin"], "preScore": ["ScorePlugin1"],
                  "score": ["ScorePlugin1"], "bind": ["BindPlugin"]},
                 {"ScorePlugin1": 1}, id="disable and enable MultiPoint plugins with '*'"),
    pytest.param(plugins(multi=["BindPlugin", "QueueSortPlugin", "ScorePlugin1"],
                         multi_disabled=["ScorePlugin1"]),
                 {"queueSort": ["QueueSortPlugin"], "preScore": ["ScorePlugin1"],
                  "score": ["ScorePlugin1"], "bind": ["BindPlugin"]},
                 {"ScorePlugin1": 1}, id="disable and enable MultiPoint plugin by name"),
    pytest.param(plugins(multi=["TestPlugin", "ScorePlugin1"],
                         score=[("ScorePlugin1", 5), ("ScorePlugin2", 5), ("TestPlugin", 3)]),
                 everywhere(preScore=["TestPlugin", "ScorePlugin1"],
                            score=["ScorePlugin1", "TestPlugin", "ScorePlugin2"]),
                 {"ScorePlugin1": 5, "ScorePlugin2": 5, "TestPlugin": 3},
                 id="Override MultiPoint plugins weights and avoid a plugin being loaded "
                 "multiple times"),
])
def test_multipoint_expansion(profile_, want, want_weights):
    expanded, weights = expand_plugins(profile_, EXPANSION_REGISTRY)
    assert {point: names for point, names in expanded.items() if names} == want
    assert {name: weights[name] for name in expanded["score"]} == want_weights


def test_multipoint_double_registration():
    with pytest.raises(FrameworkError, match='plugin "TestPlugin" already registered as'):
        expand_plugins(plugins(multi=["TestPlugin", "TestPlugin"]), EXPANSION_REGISTRY)


V1_34_WEIGHTS = {"TaintToleration": 3, "NodeAffinity": 2, "NodeResourcesFit": 1,
                 "PodTopologySpread": 2, "InterPodAffinity": 2,
                 "NodeResourcesBalancedAllocation": 1, "ImageLocality": 1}


@pytest.mark.parametrize("release,declared_features", [
    pytest.param("1.34", False, id="v1.34: no NodeDeclaredFeatures"),
    pytest.param("1.35", False, id="v1.35: NodeDeclaredFeatures is alpha and off"),
    pytest.param("1.36", True,
                 id="v1.36: NodeDeclaredFeatures (beta, on) joins the default profile"),
    pytest.param("1.37", True, id="v1.37: as v1.36"),
])
def test_default_profile_keeps_kube_scheduler_weights(release, declared_features):
    """default_plugins.go getDefaultPlugins + applyFeatureGates at each release."""
    raw = configuration({"schedulerName": "default-scheduler", "plugins": {
        "multiPoint": {"disabled": [{"name": "DefaultPreemption"}]}}})
    cfg = parse_configuration(raw, default_registry(entry_points_too=False),
                              features=feature_gates(release))
    multi = {ref.name: ref.weight for ref in cfg.profiles[0].plugins["multiPoint"].enabled}
    assert {name: w for name, w in multi.items() if w} == V1_34_WEIGHTS
    assert "DefaultPreemption" not in multi
    assert ("NodeDeclaredFeatures" in multi) == declared_features
    if declared_features:
        assert list(multi)[-1] == "NodeDeclaredFeatures"   # appended by applyFeatureGates


def test_the_dynamic_resources_gate_off_leaves_the_plugin_out_of_the_default_profile():
    cfg = parse_configuration(None, default_registry(entry_points_too=False),
                              features=feature_gates("1.34", "DynamicResourceAllocation=false"))
    names = [ref.name for ref in cfg.profiles[0].plugins["multiPoint"].enabled]
    assert "DynamicResources" not in names and "DefaultBinder" in names

