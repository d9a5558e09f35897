"""Old configurations: removed plugins and dropped API versions get told what changed."""
import pytest

from scheduler_core.config import parse_configuration
from scheduler_core.errors import ConfigError

V1 = "kubescheduler.config.k8s.io/v1"


def errors_of(raw):
    with pytest.raises(ConfigError) as info:
        parse_configuration({"kind": "KubeSchedulerConfiguration", "apiVersion": V1, **raw})
    return info.value.errors


@pytest.mark.parametrize("profile, want", [
    pytest.param({"plugins": {"score": {"enabled": [{"name": "SelectorSpread"}]}}},
                 'profiles[0].plugins.score.enabled[0]: Invalid value: "SelectorSpread": '
                 "SelectorSpread was removed in kube-scheduler v1.29 "
                 "(kubescheduler.config.k8s.io/v1 never had it); use PodTopologySpread, whose "
                 "default constraints spread the same pods",
                 id="SelectorSpread at Score names its release and PodTopologySpread"),
    pytest.param({"plugins": {"multiPoint": {"enabled": [{"name": "NodeLabel"}]}}},
                 'profiles[0].plugins.multiPoint.enabled[0]: Invalid value: "NodeLabel": '
                 "NodeLabel was removed in kube-scheduler v1.24; use NodeAffinity with a node "
                 "affinity term",
                 id="NodeLabel under multiPoint is reported too"),
    pytest.param({"plugins": {"filter": {"enabled": [{"name": "EBSLimits"}]}}},
                 'profiles[0].plugins.filter.enabled[0]: Invalid value: "EBSLimits": was '
                 'invalid in version "kubescheduler.config.k8s.io/v1" (KubeSchedulerConfiguration '
                 'is version "kubescheduler.config.k8s.io/v1"): EBSLimits was removed in '
                 "kube-scheduler v1.32; NodeVolumeLimits, in the default profile, applies the "
                 "limits CSI drivers report",
                 id="EBSLimits keeps Go's message and adds the release that removed it"),
    pytest.param({"pluginConfig": [{"name": "NodeResourcesLeastAllocated", "args": {}}]},
                 'profiles[0].pluginConfig[0]: Invalid value: "NodeResourcesLeastAllocated": '
                 "NodeResourcesLeastAllocated was removed in kube-scheduler v1.23; use "
                 "NodeResourcesFit with scoringStrategy LeastAllocated",
                 id="args for a removed scoring plugin point to NodeResourcesFit"),
    pytest.param({"plugins": {"preScore": {"enabled": [{"name": "NodePreferAvoidPods"}]}}},
                 'profiles[0].plugins.preScore.enabled[0]: Invalid value: "NodePreferAvoidPods":'
                 " NodePreferAvoidPods was removed in kube-scheduler v1.24; taint the node "
                 "PreferNoSchedule instead",
                 id="NodePreferAvoidPods points to a PreferNoSchedule taint"),
])
def test_a_removed_plugin_says_when_it_was_removed_and_what_replaces_it(profile, want):
    assert errors_of({"profiles": [profile]}) == [want]


def test_disabling_a_removed_plugin_is_harmless():
    config = parse_configuration({"kind": "KubeSchedulerConfiguration", "apiVersion": V1,
                                  "profiles": [{"plugins": {"score": {
                                      "disabled": [{"name": "SelectorSpread"}]}}}]})
    assert config.profiles[0].scheduler_name == "default-scheduler"


def test_a_v1beta2_configuration_is_told_about_v1_and_the_weights_v1beta3_changed():
    assert errors_of({"apiVersion": "kubescheduler.config.k8s.io/v1beta2"}) == [
        'no kind "KubeSchedulerConfiguration" is registered for version '
        '"kubescheduler.config.k8s.io/v1beta2" in scheme '
        '"pkg/scheduler/apis/config/scheme/scheme.go:30" (kube-scheduler dropped it in v1.28; '
        "apiVersion kubescheduler.config.k8s.io/v1 takes the same profiles; mind that v1beta3 "
        "raised the default weights of TaintToleration to 3 and of NodeAffinity, "
        "PodTopologySpread and InterPodAffinity to 2)"]
