"""The configuration decoded as kube-scheduler decodes it: the cases of Go's
pkg/scheduler/apis/config/scheme/scheme_test.go (TestCodecsDecodePluginConfig) and
cmd/kube-scheduler/app/options/options_test.go (the decoding ones), from the YAML text,
through the same reader the command line uses."""
import pytest

from scheduler_core.config import parse_configuration
from scheduler_core.errors import ConfigError
from scheduler_core.outoftree import PLUGINS
from scheduler_core.plugins.registry import default_registry
from scheduler_core.safe_read import read_with_duplicates

HEAD = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


def decode(text: str):
    (doc,), duplicates = read_with_duplicates(text, source="ksc.yaml")
    return parse_configuration(doc, default_registry(PLUGINS),
                               duplicates=[d.message() for d in duplicates])


def error_of(text: str) -> str:
    with pytest.raises(ConfigError) as info:
        decode(text)
    (message,) = info.value.errors
    return message


@pytest.mark.parametrize("body, want", [
    pytest.param("""profiles:
- pluginConfig:
  - name: DefaultPreemption
    args:
      apiVersion: kubescheduler.config.k8s.io/v1
      kind: InterPodAffinityArgs
""", "decoding .profiles[0].pluginConfig[0]: args for plugin DefaultPreemption were not of type "
     "DefaultPreemptionArgs.kubescheduler.config.k8s.io, got "
     "InterPodAffinityArgs.kubescheduler.config.k8s.io",
        id="plugin group and kind should match the type"),
    pytest.param("""profiles:
- pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        requestedToCapacityRatio:
          shape:
          - Score: 2
            Utilization: 1
""", "strict decoding error: decoding .profiles[0].pluginConfig[0]: strict decoding error: "
     "decoding args for plugin NodeResourcesFit: strict decoding error: unknown field "
     '"scoringStrategy.requestedToCapacityRatio.shape[0].Score", unknown field '
     '"scoringStrategy.requestedToCapacityRatio.shape[0].Utilization"',
        id="v1 NodResourcesFitArgs shape encoding is strict"),
    pytest.param("""profiles:
- pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        resources:
        - Name: cpu
          Weight: 1
""", "strict decoding error: decoding .profiles[0].pluginConfig[0]: strict decoding error: "
     "decoding args for plugin NodeResourcesFit: strict decoding error: unknown field "
     '"scoringStrategy.resources[0].Name", unknown field "scoringStrategy.resources[0].Weight"',
        id="v1 NodeResourcesFitArgs resources encoding is strict"),
    pytest.param("leaderElection:\n  leaderElect: true\nfoo: bar\n",
                 'strict decoding error: unknown field "foo"', id="unknown field (options_test)"),
    pytest.param("leaderElection:\n  leaderElect: true\n  leaderElect: false\n",
                 'strict decoding error: yaml: unmarshal errors: line 5: key "leaderElect" '
                 "already set in map", id="duplicate fields (options_test)"),
    pytest.param("percentageOfNodesToScor: 50\n",
                 'strict decoding error: unknown field "percentageOfNodesToScor"',
                 id="a misspelled top-level field"),
    pytest.param("profiles:\n- plugin:\n    score: {}\n",
                 'strict decoding error: unknown field "profiles[0].plugin"',
                 id="plugin for plugins in a profile"),
    pytest.param("profiles:\n- pluginConfg: []\n",
                 'strict decoding error: unknown field "profiles[0].pluginConfg"',
                 id="pluginConfg for pluginConfig"),
    pytest.param("profiles:\n- plugins:\n    score:\n      enabled:\n      - Name: NodeAffinity\n"
                 "        name: NodeAffinity\n",
                 'strict decoding error: unknown field "profiles[0].plugins.score.enabled[0].Name"',
                 id="a mis-cased plugin field"),
    pytest.param("""profiles:
- pluginConfig:
  - name: InterPodAffinity
    args:
      hardPodAffinityWieght: 3
  - name: NodeResourcesFit
    args: {bogus: 1}
""", "strict decoding error: decoding .profiles[0].pluginConfig[0]: strict decoding error: "
     'decoding args for plugin InterPodAffinity: strict decoding error: unknown field '
     '"hardPodAffinityWieght", decoding .profiles[0].pluginConfig[1]: strict decoding error: '
     'decoding args for plugin NodeResourcesFit: strict decoding error: unknown field "bogus"',
        id="every plugin's unknown args are listed, each under its entry"),
    pytest.param("""parallelism: 4
parallelism: 8
profiles:
- schedulerName: a
  pluginConfig:
  - name: PodTopologySpread
    args:
      defaultConstraints:
      - maxSkew: 1
        topologyKey: zone
        whenUnsatisfiable: ScheduleAnyway
        labelSelectr: {}
""", 'strict decoding error: yaml: unmarshal errors: line 4: key "parallelism" already set '
     "in map, decoding .profiles[0].pluginConfig[0]: strict decoding error: decoding args for "
     "plugin PodTopologySpread: strict decoding error: unknown field "
     '"defaultConstraints[0].labelSelectr"',
        id="repeated keys come first, and core types' fields are the API's"),
    pytest.param("""profiles:
- pluginConfig:
  - name: DefaultPreemption
    args:
      apiVersion: kubescheduler.config.k8s.io/v1beta3
      kind: DefaultPreemptionArgs
""", 'decoding .profiles[0].pluginConfig[0]: decoding args for plugin DefaultPreemption: no kind '
     '"DefaultPreemptionArgs" is registered for version "kubescheduler.config.k8s.io/v1beta3" '
     'in scheme "pkg/scheduler/apis/config/scheme/scheme.go:30"',
        id="args of a version kube-scheduler no longer serves"),
    pytest.param("""profiles:
- pluginConfig:
  - name: Coscheduling
    args: {permitWaitingTimeSeconds: 10, permitWaitingTimeSecond: 5}
""", "strict decoding error: decoding .profiles[0].pluginConfig[0]: strict decoding error: "
     "decoding args for plugin Coscheduling: strict decoding error: unknown field "
     '"permitWaitingTimeSecond"',
        id="a registered out-of-tree plugin's args are decoded strictly too"),
])
def test_decoding_errors_are_kube_schedulers(body, want):
    assert error_of(HEAD + body) == want


@pytest.mark.parametrize("body, args", [
    pytest.param("""profiles:
- pluginConfig:
  - name: DefaultPreemption
    args:
      apiVersion: kubescheduler.config.k8s.io/v1
      kind: DefaultPreemptionArgs
      minCandidateNodesPercentage: 50
""", ("DefaultPreemption", {"minCandidateNodesPercentage": 50, "minCandidateNodesAbsolute": 100}),
        id="v1 plugins can include version and kind"),
    pytest.param("""profiles:
- pluginConfig:
  - name: OutOfTreePlugin
    args:
      foo: bar
""", None, id="out-of-tree plugin args (an unregistered plugin's args are its own)"),
    pytest.param("""profiles:
- pluginConfig:
  - name: DefaultPreemption
    args:
  - name: InterPodAffinity
    args:
  - name: NodeResourcesFit
  - name: VolumeBinding
    args:
  - name: PodTopologySpread
  - name: NodeAffinity
  - name: NodeResourcesBalancedAllocation
""", ("InterPodAffinity", {"hardPodAffinityWeight": 1}), id="empty and no plugin args"),
    pytest.param("""profiles:
- pluginConfig:
  - name: NodeAffinity
    args:
      addedAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchExpressions:
            - key: foo
              operator: In
              values: ["bar"]
""", ("NodeAffinity", None), id="core types inside args decode with the API's own fields"),
])
def test_well_formed_configurations_decode(body, args):
    text = HEAD + body
    if args is None:
        # An unregistered plugin is refused later by NewFramework only if a profile uses it.
        assert decode(text).profiles[0].scheduler_name == "default-scheduler"
        return
    name, want = args
    config = decode(text).profiles[0].plugin_config[name]
    if want is not None:
        assert {k: config[k] for k in want} == want


def test_capitalised_args_with_a_scoring_type_are_refused_not_a_python_error():
    message = error_of(HEAD + """profiles:
- pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources: [{Name: cpu, Weight: 1}]
""")
    assert message.endswith('unknown field "scoringStrategy.resources[0].Name", unknown field '
                            '"scoringStrategy.resources[0].Weight"')


def test_a_resource_without_a_name_passes_validation_as_in_go():
    config = decode(HEAD + """profiles:
- pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy: {type: MostAllocated, resources: [{weight: 1}]}
""")
    assert config.profiles[0].plugin_config["NodeResourcesFit"]["scoringStrategy"][
        "resources"] == [{"weight": 1}]


def test_a_json_configuration_names_the_repeated_field():
    text = ('{"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": '
            '"KubeSchedulerConfiguration", "leaderElection": {"leaderElect": true, '
            '"leaderElect": false}}')
    assert error_of(text) == 'strict decoding error: duplicate field "leaderElection.leaderElect"'


def test_dynamic_resources_args_are_checked_under_the_runs_release_with_the_configuration():
    from scheduler_core.features import feature_gates
    raw = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
           "profiles": [{"pluginConfig": [{"name": "DynamicResources",
                                           "args": {"bindingTimeout": "10m"}}]}]}
    assert parse_configuration(raw, default_registry(), features=feature_gates("1.37"))
    with pytest.raises(ConfigError) as info:
        parse_configuration(raw, default_registry(), features=feature_gates("1.35"))
    assert info.value.errors == [
        "profiles[0].pluginConfig[0].args.bindingTimeout: Forbidden: DRADeviceBindingConditions "
        "or DRAResourceClaimDeviceStatus feature gate is disabled"]
