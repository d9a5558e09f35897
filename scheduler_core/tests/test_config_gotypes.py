"""A configuration field of the wrong type fails kube-scheduler's decoding in encoding/json's
words (sigs.k8s.io/json's decode.go: UnmarshalTypeError with the struct holding the field and
the path of JSON names from the top; literalStore's "number 50.5" for an integer it cannot
hold; decode_test.go's {Struct: "T", Field: "PP.T.Y"}), the args of in-tree plugins after the
outer object (KubeSchedulerConfiguration.DecodeNestedObjects), and a metav1.Duration's own
UnmarshalJSON error as it is."""
import pytest

from scheduler_core.config import parse_configuration
from scheduler_core.config_gotypes import STRING, Struct, decoding_type_error, first_type_error
from scheduler_core.errors import ConfigError


def decoding_error(**config) -> str:
    with pytest.raises(ConfigError) as caught:
        parse_configuration({"apiVersion": "kubescheduler.config.k8s.io/v1",
                             "kind": "KubeSchedulerConfiguration", **config})
    (message,) = caught.value.errors
    return message


def args(name, **fields) -> dict:
    return {"profiles": [{"pluginConfig": [{"name": "NodeResourcesFit"},
                                           {"name": name, "args": fields}]}]}


PREFIX = "json: cannot unmarshal "


@pytest.mark.parametrize("config, want", [
    pytest.param({"percentageOfNodesToScore": "50"},
                 "string into Go struct field KubeSchedulerConfiguration.percentageOfNodesToScore "
                 "of type int32", id="a string where an int32 goes"),
    pytest.param({"percentageOfNodesToScore": 50.5},
                 "number 50.5 into Go struct field KubeSchedulerConfiguration."
                 "percentageOfNodesToScore of type int32", id="a fraction names the number"),
    pytest.param({"parallelism": 3000000000},
                 "number 3000000000 into Go struct field KubeSchedulerConfiguration.parallelism "
                 "of type int32", id="a number beyond int32"),
    pytest.param({"podMaxBackoffSeconds": True},
                 "bool into Go struct field KubeSchedulerConfiguration.podMaxBackoffSeconds of "
                 "type int64", id="a bool where an int64 goes"),
    pytest.param({"profiles": 5},
                 "number into Go struct field KubeSchedulerConfiguration.profiles of type "
                 "[]v1.KubeSchedulerProfile", id="a number where a list goes"),
    pytest.param({"profiles": [{"plugins": "all"}]},
                 "string into Go struct field KubeSchedulerProfile.profiles.plugins of type "
                 "v1.Plugins", id="a string where a struct goes, inside a list"),
    pytest.param({"profiles": [{"schedulerName": "a"}, {"schedulerName": 5}]},
                 "number into Go struct field KubeSchedulerProfile.profiles.schedulerName of "
                 "type string", id="the path has no list index"),
    pytest.param({"profiles": [{"plugins": {"score": {"enabled": [
        {"name": "NodeResourcesFit", "weight": "2"}]}}}]},
                 "string into Go struct field Plugin.profiles.plugins.score.enabled.weight of "
                 "type int32", id="the innermost struct is named"),
    pytest.param({"clientConnection": {"qps": "fast"}},
                 "string into Go struct field ClientConnectionConfiguration.clientConnection.qps "
                 "of type float32", id="component-base's types"),
    pytest.param({"extenders": [{"urlPrefix": "http://e", "tlsConfig": {"caData": 5}}]},
                 "number into Go struct field ExtenderTLSConfig.extenders.tlsConfig.caData of "
                 "type []uint8", id="bytes are a base64 string"),
    pytest.param({"percentageOfNodesToScore": "50", "profiles": [{"schedulerName": 5}]},
                 "string into Go struct field KubeSchedulerConfiguration.percentageOfNodesToScore "
                 "of type int32", id="the first in the document is the one reported"),
    pytest.param({"percentageOfNodesToScor": 5, "parallelism": "2"},
                 "string into Go struct field KubeSchedulerConfiguration.parallelism of type "
                 "int32", id="a type error comes before the unknown fields' strict error"),
])
def test_a_field_of_the_wrong_type_is_encoding_json_s_error(config, want):
    assert decoding_error(**config) == PREFIX + want


ARGS_PREFIX = "decoding .profiles[0].pluginConfig[1]: decoding args for plugin "


@pytest.mark.parametrize("config, want", [
    pytest.param(args("InterPodAffinity", hardPodAffinityWeight="5"),
                 "InterPodAffinity: json: cannot unmarshal string into Go struct field "
                 "InterPodAffinityArgs.hardPodAffinityWeight of type int32",
                 id="InterPodAffinityArgs"),
    pytest.param(args("NodeResourcesFit", scoringStrategy={"type": "MostAllocated",
                                                           "resources": [{"name": "cpu",
                                                                          "weight": "1"}]}),
                 "NodeResourcesFit: json: cannot unmarshal string into Go struct field "
                 "ResourceSpec.scoringStrategy.resources.weight of type int64",
                 id="a nested args struct"),
    pytest.param(args("NodeResourcesFit", scoringStrategy={"type": 1}),
                 "NodeResourcesFit: json: cannot unmarshal number into Go struct field "
                 "ScoringStrategy.scoringStrategy.type of type v1.ScoringStrategyType",
                 id="a named string type"),
    pytest.param(args("PodTopologySpread", defaultConstraints="x"),
                 "PodTopologySpread: json: cannot unmarshal string into Go struct field "
                 "PodTopologySpreadArgs.defaultConstraints of type []v1.TopologySpreadConstraint",
                 id="a core/v1 list"),
    pytest.param(args("PodTopologySpread", defaultConstraints=[{"maxSkew": "1"}]),
                 "PodTopologySpread: json: cannot unmarshal string into Go struct field "
                 "TopologySpreadConstraint.defaultConstraints.maxSkew of type int32",
                 id="inside a core/v1 type"),
    pytest.param(args("DynamicResources", filterTimeout=10),
                 "DynamicResources: json: cannot unmarshal number into Go value of type string",
                 id="a Duration's UnmarshalJSON names no field"),
    pytest.param(args("DynamicResources", filterTimeout="10"),
                 'DynamicResources: time: missing unit in duration "10"',
                 id="a Duration's UnmarshalJSON parses the string"),
])
def test_plugin_args_of_the_wrong_type_fail_their_decoding(config, want):
    assert decoding_error(**config) == ARGS_PREFIX + want


def test_out_of_tree_args_are_left_to_their_plugin():
    # Their args kinds are not in kube-scheduler's scheme: decodeNestedObjects skips them.
    config = {"profiles": [{"pluginConfig": [{"name": "Coscheduling",
                                              "args": {"permitWaitingTimeSeconds": "x"}}]}]}
    assert decoding_type_error(config) is None
    assert first_type_error({"x": 1}, Struct("v1.T", {"y": STRING})) is None


def test_a_whole_float_is_an_integer_as_yaml_to_json_writes_it():
    config = parse_configuration({"apiVersion": "kubescheduler.config.k8s.io/v1",
                                  "kind": "KubeSchedulerConfiguration",
                                  "percentageOfNodesToScore": 50.0})
    assert config.percentage_of_nodes_to_score == 50
