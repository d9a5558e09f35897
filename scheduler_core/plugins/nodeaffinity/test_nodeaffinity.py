"""NodeAffinity, ported from node_affinity_test.go, validation_pluginargs_test.go and
component-helpers' nodeaffinity_test.go."""
import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import MAX_NODE_SCORE
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import NodeInfo
from scheduler_core.plugins.nodeaffinity import new, validate_args
from scheduler_core.plugins.nodeaffinity.node_affinity import (
    ERR_REASON_CONFLICT,
    ERR_REASON_ENFORCED,
    ERR_REASON_POD,
    _pod_node_affinity,
)
from scheduler_core.plugins.nodeaffinity.selector import (
    RequiredNodeAffinity,
    _label_requirements,
    new_node_selector,
    new_preferred_scheduling_terms,
    parse_int64,
)
from scheduler_core.testing import make_node, make_pod, normalized_scores, pod_info
from scheduler_core.validation import is_qualified_name

QUALIFIED_NAME_ERROR = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")


def expr(key, op, *values):
    out = {"key": key, "operator": op}
    if values:
        out["values"] = list(values)
    return out


def name_in(*names):
    return expr("metadata.name", "In", *names)


def term(exprs=None, fields=None):
    out = {}
    if exprs is not None:
        out["matchExpressions"] = exprs
    if fields is not None:
        out["matchFields"] = fields
    return out


def required(*terms):
    return {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}


def preferred(*weighted):
    return {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": w, "preference": t} for w, t in weighted]}


def make(node_selector=None, node_affinity=None):
    spec = {}
    if node_selector is not None:
        spec["nodeSelector"] = node_selector
    if node_affinity is not None:
        spec["affinity"] = {"nodeAffinity": node_affinity}
    return pod_info(make_pod("p", **spec))


UNRESOLVABLE_POD = Status.unresolvable(ERR_REASON_POD)
GPU_EXISTS_NOT_AMD = required(term([expr("GPU", "Exists"), expr("GPU", "NotIn", "AMD", "INTER")]))
ADDED_NODE2 = {"addedAffinity": required(term(fields=[name_in("node2")]))}

FILTER_CASES = [
    pytest.param(make({"foo": "bar"}), {}, "", {}, True, None, None, UNRESOLVABLE_POD,
                 id="missing labels"),
    pytest.param(make({"foo": "bar"}), {"foo": "bar"}, "", {}, True, None, None, None,
                 id="same labels"),
    pytest.param(make({"foo": "bar"}), {"foo": "bar", "baz": "blah"}, "", {}, True, None, None,
                 None, id="node labels are superset"),
    pytest.param(make({"foo": "bar", "baz": "blah"}), {"foo": "bar"}, "", {}, True, None, None,
                 UNRESOLVABLE_POD, id="node labels are subset"),
    pytest.param(make(node_affinity=required(term([expr("foo", "In", "bar", "value2")]))),
                 {"foo": "bar"}, "", {}, True, None, None, None,
                 id="Pod with matchExpressions using In operator that matches the existing node"),
    pytest.param(make(node_affinity=required(term([expr("kernel-version", "Gt", "0204")]))),
                 {"kernel-version": "0206"}, "", {}, True, None, None, None,
                 id="Pod with matchExpressions using Gt operator that matches the existing node"),
    pytest.param(make(node_affinity=required(term([expr("mem-type", "NotIn", "DDR", "DDR2")]))),
                 {"mem-type": "DDR3"}, "", {}, True, None, None, None,
                 id="Pod with matchExpressions using NotIn operator that matches the existing "
                    "node"),
    pytest.param(make(node_affinity=required(term([expr("GPU", "Exists")]))),
                 {"GPU": "NVIDIA-GRID-K1"}, "", {}, True, None, None, None,
                 id="Pod with matchExpressions using Exists operator that matches the existing "
                    "node"),
    pytest.param(make(node_affinity=required(term([expr("foo", "In", "value1", "value2")]))),
                 {"foo": "bar"}, "", {}, True, None, None, UNRESOLVABLE_POD,
                 id="Pod with affinity that don't match node's labels won't schedule onto the "
                    "node"),
    pytest.param(make(node_affinity=required(term([]))), {"foo": "bar"}, "", {}, True, None,
                 None, UNRESOLVABLE_POD,
                 id="Pod with empty MatchExpressions is not a valid value will match no objects "
                    "and won't schedule onto the node"),
    pytest.param(make(), {"foo": "bar"}, "", {}, True, Status.skip(), None, None,
                 id="Pod with no Affinity will schedule onto a node"),
    pytest.param(make(node_affinity={}), {"foo": "bar"}, "", {}, True, Status.skip(), None, None,
                 id="Pod with Affinity but nil NodeSelector will schedule onto a node"),
    pytest.param(make(node_affinity=GPU_EXISTS_NOT_AMD), {"GPU": "NVIDIA-GRID-K1"}, "", {}, True,
                 None, None, None,
                 id="Pod with multiple matchExpressions ANDed that matches the existing node"),
    pytest.param(make(node_affinity=required(
        term([expr("GPU", "Exists"), expr("GPU", "In", "AMD", "INTER")]))),
        {"GPU": "NVIDIA-GRID-K1"}, "", {}, True, None, None, UNRESOLVABLE_POD,
        id="Pod with multiple matchExpressions ANDed that doesn't match the existing node"),
    pytest.param(make(node_affinity=required(term([expr("foo", "In", "bar", "value2")]),
                                             term([expr("diffkey", "In", "wrong", "value2")]))),
                 {"foo": "bar"}, "", {}, True, None, None, None,
                 id="Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's "
                    "labels and will schedule onto the node"),
    pytest.param(make({"foo": "bar"}, required(term([expr("foo", "Exists")]))), {"foo": "bar"},
                 "", {}, True, None, None, None,
                 id="Pod with an Affinity and a PodSpec.NodeSelector both are satisfied, will "
                    "schedule onto the node"),
    pytest.param(make({"foo": "bar"}, required(term([expr("foo", "Exists")]))),
                 {"foo": "barrrrrr"}, "", {}, True, None, None, UNRESOLVABLE_POD,
                 id="Pod with an Affinity matches node's labels but the PodSpec.NodeSelector is "
                    "not satisfied, won't schedule onto the node"),
    pytest.param(make(node_affinity=required(
        term([expr("foo", "NotIn", "invalid value: ___@#$%^")]))),
        {"foo": "bar"}, "", {}, True, None, None, UNRESOLVABLE_POD,
        id="Pod with an invalid value in Affinity term won't be scheduled onto the node"),
    pytest.param(make(node_affinity=required(term(fields=[name_in("node1")]))), {}, "node1", {},
                 True, None, {"node1"}, None,
                 id="Pod with matchFields using In operator that matches the existing node"),
    pytest.param(make(node_affinity=required(term(fields=[name_in("node1")]))), {}, "node2", {},
                 True, None, {"node1"}, UNRESOLVABLE_POD,
                 id="Pod with matchFields using In operator that does not match the existing "
                    "node"),
    pytest.param(make(node_affinity=required(term(fields=[name_in("node1"), name_in("node2")]),
                                             term([expr("foo", "In", "bar")]))),
                 {"foo": "bar"}, "node2", {}, True, None, None, None,
                 id="Pod with two terms: matchFields does not match, but matchExpressions "
                    "matches"),
    pytest.param(make(node_affinity=required(term([expr("foo", "In", "bar")]),
                                             )), {"foo": "bar"}, "node2", {}, True, None, None,
                 None, id="Pod with one expression term matches any node name"),
    pytest.param(make(node_affinity=required(term([expr("foo", "In", "bar")],
                                                  [name_in("node1")]))),
                 {"foo": "bar"}, "node2", {}, True, None, {"node1"}, UNRESOLVABLE_POD,
                 id="Pod with one term: matchFields does not match, but matchExpressions "
                    "matches"),
    pytest.param(make(node_affinity=required(term([expr("foo", "In", "bar")],
                                                  [name_in("node1")]))),
                 {"foo": "bar"}, "node1", {}, True, None, {"node1"}, None,
                 id="Pod with one term: both matchFields and matchExpressions match"),
    pytest.param(make(node_affinity=required(term(fields=[name_in("node1")]),
                                             term([expr("foo", "In", "not-match-to-bar")]))),
                 {"foo": "bar"}, "node2", {}, True, None, None, UNRESOLVABLE_POD,
                 id="Pod with two terms: both matchFields and matchExpressions do not match"),
    pytest.param(make(node_affinity=required(term(fields=[name_in("node1")]),
                                             term(fields=[name_in("node2")]))),
                 {}, "node2", {}, True, None, {"node1", "node2"}, None,
                 id="Pod with two terms of node.Name affinity"),
    pytest.param(make(node_affinity=required(term(fields=[name_in("node1"), name_in("node2")]))),
                 {"foo": "bar"}, "node2", {}, True, Status.unresolvable(ERR_REASON_CONFLICT),
                 None, UNRESOLVABLE_POD, id="Pod with two conflicting mach field requirements"),
    pytest.param(make(node_affinity=required(term([expr("zone", "In", "foo")]))),
                 {"zone": "foo"}, "node2", ADDED_NODE2, True, None, None, None,
                 id="Matches added affinity and Pod's node affinity"),
    pytest.param(make(node_affinity=required(term([expr("zone", "In", "bar")]))),
                 {"zone": "foo"}, "node2", ADDED_NODE2, True, None, None, UNRESOLVABLE_POD,
                 id="Matches added affinity but not Pod's node affinity"),
    pytest.param(make(), {"zone": "foo"}, "node2",
                 {"addedAffinity": required(term([expr("zone", "In", "bar")]))}, True, None, None,
                 Status.unresolvable(ERR_REASON_ENFORCED), id="Doesn't match added affinity"),
    pytest.param(make({"foo": "bar"}), {"foo": "bar", "baz": "blah"}, "", {}, False, None, None,
                 None, id="Matches node selector correctly even if PreFilter is not called"),
    pytest.param(make(node_affinity=GPU_EXISTS_NOT_AMD), {"GPU": "NVIDIA-GRID-K1"}, "", {},
                 False, None, None, None,
                 id="Matches node affinity correctly even if PreFilter is not called"),
    pytest.param(make({}), {"foo": "bar"}, "", {}, True, None, None, None,
                 id="an empty nodeSelector map is not nil, so PreFilter does not skip"),
    pytest.param(make(node_affinity=required()), {"foo": "bar"}, "", {}, True, None, None,
                 UNRESOLVABLE_POD, id="required affinity with no terms matches no node"),
    pytest.param(make(node_affinity=required(term(fields=[name_in("node1", "node2")]))), {},
                 "node1", {}, True, None, {"node1", "node2"}, UNRESOLVABLE_POD,
                 id="metadata.name In with two values narrows PreFilter but is a parse error in "
                    "Filter"),
]


@pytest.mark.parametrize(
    "pod,labels,node_name,args,run_pre_filter,want_pre_filter_status,want_node_names,"
    "want_status", FILTER_CASES)
def test_filter(pod, labels, node_name, args, run_pre_filter, want_pre_filter_status,
                want_node_names, want_status):
    plugin = new(args, None)
    node_info = NodeInfo(make_node(node_name, labels=labels))
    state = CycleState()
    if run_pre_filter:
        result, status = plugin.pre_filter(state, pod, [node_info])
        assert status == want_pre_filter_status
        assert (None if result is None else result.node_names) == want_node_names
    assert plugin.filter(state, pod, node_info) == want_status


LABEL1 = {"foo": "bar"}
LABEL2 = {"key": "value"}
LABEL3 = {"az": "az1"}
LABEL4 = {"abc": "az11", "def": "az22"}
LABEL5 = {"foo": "bar", "key": "value", "az": "az1"}
AFFINITY1 = preferred((2, term([expr("foo", "In", "bar")])))
AFFINITY2 = preferred(
    (2, term([expr("foo", "In", "bar")])),
    (4, term([expr("key", "In", "value")])),
    (5, term([expr("foo", "In", "bar"), expr("key", "In", "value"), expr("az", "In", "az1")])),
)
BROKEN_KEY_ERROR = (
    '[0].matchExpressions[0].key: Invalid value: "invalid key": ' + QUALIFIED_NAME_ERROR)

SCORE_CASES = [
    pytest.param(make(), [("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL3)], {}, False,
                 None, [0, 0, 0], id="all nodes are same priority as NodeAffinity is nil"),
    pytest.param(make(), [("node1", LABEL1)], {}, True, Status.skip(), None,
                 id="Skip is returned in PreScore when NodeAffinity is nil"),
    pytest.param(make(node_affinity=preferred((2, term([expr("invalid key", "In", "bar")])))),
                 [("node1", LABEL1)], {}, True, Status(Code.ERROR, BROKEN_KEY_ERROR), None,
                 id="PreScore returns error when an incoming Pod has a broken affinity"),
    pytest.param(make(node_affinity=AFFINITY1),
                 [("node1", LABEL4), ("node2", LABEL2), ("node3", LABEL3)], {}, True, None,
                 [0, 0, 0],
                 id="no node matches preferred scheduling requirements in NodeAffinity of pod so "
                    "all nodes' priority is zero"),
    pytest.param(make(node_affinity=AFFINITY1),
                 [("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL3)], {}, True, None,
                 [MAX_NODE_SCORE, 0, 0],
                 id="only node1 matches the preferred scheduling requirements of pod"),
    pytest.param(make(node_affinity=AFFINITY2),
                 [("node1", LABEL1), ("node5", LABEL5), ("node2", LABEL2)], {}, True, None,
                 [18, MAX_NODE_SCORE, 36],
                 id="all nodes matches the preferred scheduling requirements of pod but with "
                    "different priorities"),
    pytest.param(make(), [("node1", LABEL1), ("node2", LABEL2)], {"addedAffinity": AFFINITY1},
                 True, None, [MAX_NODE_SCORE, 0], id="added affinity"),
    pytest.param(make(node_affinity=AFFINITY1),
                 [("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL5)],
                 {"addedAffinity": preferred((3, term([expr("key", "In", "value")])))}, True,
                 None, [40, 60, MAX_NODE_SCORE], id="added affinity and pod has default affinity"),
    pytest.param(make(node_affinity=AFFINITY2),
                 [("node1", LABEL1), ("node5", LABEL5), ("node2", LABEL2)], {}, False, None,
                 [18, MAX_NODE_SCORE, 36],
                 id="calculate the priorities correctly even if PreScore is not called"),
    pytest.param(make(node_affinity=preferred((0, term([expr("foo", "In", "bar")])))),
                 [("node1", LABEL1), ("node2", LABEL2)], {}, True, None, [0, 0],
                 id="a zero-weight preferred term adds nothing"),
]


@pytest.mark.parametrize("pod,nodes,args,run_pre_score,want_pre_score,want_scores", SCORE_CASES)
def test_score(pod, nodes, args, run_pre_score, want_pre_score, want_scores):
    plugin = new(args, None)
    infos = [NodeInfo(make_node(name, labels=labels)) for name, labels in nodes]
    state = CycleState()
    if run_pre_score:
        status = plugin.pre_score(state, pod, infos)
        assert status == want_pre_score
        if status is not None:
            assert status.message() == want_pre_score.message()
            return
    scores = normalized_scores(plugin, state, pod, infos)
    assert [s.score for s in scores] == want_scores


VALIDATION_CASES = [
    pytest.param({}, [], id="empty"),
    pytest.param({"addedAffinity": {
        **required(term([expr("label-1", "In", "label-1-val")])),
        **preferred((1, term(fields=[name_in("node-1")]))),
    }}, [], id="valid added affinity"),
    pytest.param({"addedAffinity": {
        **required(term([expr("invalid/label/key", "In", "label-1-val")])),
        **preferred((1, term(fields=[name_in("node-1", "node-2")]))),
    }}, [
        ("addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
        '.matchExpressions[0].key: Invalid value: "invalid/label/key": a qualified name must '
        "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
        "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
        "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS "
        "subdomain prefix and '/' (e.g. 'example.com/MyName')"),
        ("addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].matchFields[0].values: "
        'Invalid value: []string{"node-1", "node-2"}: must have one element'),
    ], id="invalid added affinity"),
]


@pytest.mark.parametrize("args,want", VALIDATION_CASES)
def test_validate_args(args, want):
    assert validate_args(args, "") == want


def test_validate_args_prefixes_the_plugin_config_path():
    args = {"addedAffinity": required(term([expr("zone", "Bogus")]))}
    assert validate_args(args, "profiles[0].pluginConfig[0].args") == [
        ("profiles[0].pluginConfig[0].args.addedAffinity.requiredDuringSchedulingIgnoredDuring"
        "Execution.nodeSelectorTerms[0].matchExpressions[0].operator: Unsupported value: "
        '"Bogus": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"')]


def test_new_rejects_invalid_added_affinity():
    with pytest.raises(ValueError, match="must have one element"):
        new({"addedAffinity": preferred((1, term(fields=[name_in("a", "b")])))}, None)


def test_events_to_register():
    assert new({}, None).events_to_register() == {"NodeAdd", "NodeUpdate"}


# component-helpers/scheduling/corev1/nodeaffinity

SELECTOR_CASES = [
    pytest.param([term(fields=[name_in("host_1", "host_2")]),
                  term([expr("label_1", "In", "label_1_val")], [name_in("host_1")]),
                  term([expr("invalid key", "In", "label_value")])],
                 "", {}, [
                     ('nodeSelectorTerms[0].matchFields[0].values: Invalid value: '
                      '[]string{"host_1", "host_2"}: must have one element'),
                     'nodeSelectorTerms[2].matchExpressions[0].key: Invalid value: "invalid key": '
                     + QUALIFIED_NAME_ERROR], False,
                 id="invalid field selector and label selector"),
    pytest.param([term([expr("label_1", "In", "label_1_val")], [name_in("host_1")])],
                 "host_1", {}, [], False, id="node matches field selector, but not labels"),
    pytest.param([term([expr("label_1", "In", "label_1_val")], [name_in("host_1")])],
                 "host_1", {"label_1": "label_1_val"}, [], True,
                 id="node matches field selector and label selector"),
    pytest.param([term([expr("label_1", "In", "label_1_val")]), term(fields=[name_in("host_1")])],
                 "host_1", {}, [], True, id="second term matches"),
    pytest.param([term(fields=[expr("metadata.name", "NotIn", "host_2")])], "host_1", {}, [],
                 True, id="metadata.name NotIn another name matches"),
    pytest.param([term(fields=[expr("metadata.uid", "In", "host_1")])], "host_1", {}, [], False,
                 id="a field other than metadata.name is never equal"),
    pytest.param([term(fields=[expr("metadata.name", "Exists")])], "host_1", {}, [
        ('nodeSelectorTerms[0].matchFields[0].operator: Unsupported value: "Exists": supported '
        'values: "In", "NotIn"')], False, id="fields support only In and NotIn"),
]


@pytest.mark.parametrize("terms,node_name,labels,want_errors,want_match", SELECTOR_CASES)
def test_node_selector_match(terms, node_name, labels, want_errors, want_match):
    selector, errors = new_node_selector({"nodeSelectorTerms": terms})
    assert errors == want_errors
    if not errors:
        assert selector.matches(labels, node_name) is want_match


PREFERRED_CASES = [
    pytest.param([(1, term(fields=[name_in("host_1", "host_2")])),
                  (1, term([expr("label_1", "In", "label_1_val")], [name_in("host_1")])),
                  (1, term([expr("invalid key", "In", "label_value")]))], "", {}, [
        ('[0].matchFields[0].values: Invalid value: []string{"host_1", "host_2"}: must have one '
        'element'),
        '[2].matchExpressions[0].key: Invalid value: "invalid key": ' + QUALIFIED_NAME_ERROR], 0,
        id="invalid field selector and label selector"),
    pytest.param([(0, term(fields=[name_in("host_1", "host_2")]))], "host_1", {}, [], 0,
                 id="invalid field selector but no weight, error not reported"),
    pytest.param([(5, term(fields=[name_in("host_1")])),
                  (7, term([expr("unknown_label", "In", "unknown_label_val")])),
                  (11, term([expr("label_1", "In", "label_1_val")]))],
                 "host_1", {"label_1": "label_1_val"}, [], 16, id="first and third term match"),
]


@pytest.mark.parametrize("weighted,node_name,labels,want_errors,want_score", PREFERRED_CASES)
def test_preferred_scheduling_terms_score(weighted, node_name, labels, want_errors, want_score):
    terms = preferred(*weighted)["preferredDuringSchedulingIgnoredDuringExecution"]
    parsed, errors = new_preferred_scheduling_terms(terms)
    assert errors == want_errors
    if not errors:
        assert parsed.score(labels, node_name) == want_score


REQUIREMENT_CASES = [
    pytest.param([expr("foo", "In", "bar", "baz")], [("foo", "In", frozenset({"bar", "baz"}))],
                 [], id="In with two values"),
    pytest.param([expr("foo", "Exists", "bar", "baz")], [], [
        ('root[0].values: Invalid value: []string{"bar", "baz"}: values set must be empty for '
        'exists and does not exist')], id="Exists with values is an error"),
    pytest.param([expr("foo", "Gt", "1")], [("foo", "Gt", 1)], [], id="Gt one"),
    pytest.param([expr("bar", "Lt", "7")], [("bar", "Lt", 7)], [], id="Lt seven"),
    pytest.param([expr("foo", "Gt", "1", "2")], [], [
        ('root[0].values: Invalid value: []string{"1", "2"}: for \'Gt\', \'Lt\' operators, '
        'exactly one value is required')], id="Gt needs exactly one value"),
    pytest.param([expr("foo", "Lt", "x")], [], [
        ('root[0].values[0]: Invalid value: "x": for \'Gt\', \'Lt\' operators, the value must be '
        'an integer')], id="Lt needs an integer"),
    pytest.param([expr("foo", "In")], [], [
        ("root[0].values: Invalid value: []string(nil): for 'in', 'notin' operators, values set "
        "can't be empty")], id="In needs values"),
    pytest.param([expr("foo", "NotIn", "a b")], [], [
        ('root[0].values[0][foo]: Invalid value: "a b": a valid label must be an empty string or '
        "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
        "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
        "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")],
        id="values must be label values"),
]


@pytest.mark.parametrize("exprs,want_reqs,want_errors", REQUIREMENT_CASES)
def test_node_selector_requirements_as_selector(exprs, want_reqs, want_errors):
    reqs, errors = _label_requirements(exprs, "root")
    assert reqs == want_reqs
    assert errors == want_errors


def test_qualified_name_with_a_prefix():
    assert is_qualified_name("example.com/my-key") == []
    assert is_qualified_name("/key") == ["prefix part must be non-empty"]
    assert is_qualified_name("Example.com/key") == [
        ("prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
        "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
        "'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")]
    assert is_qualified_name("a" * 64) == ["name part must be no more than 63 characters"]


@pytest.mark.parametrize("text,want", [
    pytest.param("42", 42, id="plain"),
    pytest.param("+7", 7, id="plus sign"),
    pytest.param("-0204", -204, id="minus sign and leading zero"),
    pytest.param("1_000", None, id="no underscores in base 10"),
    pytest.param(" 1", None, id="no spaces"),
    pytest.param("9223372036854775808", None, id="out of int64 range"),
])
def test_parse_int64_as_strconv(text, want):
    assert parse_int64(text) == want


NOT_IN_GPU = required(term([expr("GPU", "Exists"), expr("GPU", "NotIn", "AMD", "INTER")]))
MATCH_CASES = [
    pytest.param({}, {}, "", True, id="no selector"),
    pytest.param({"nodeSelector": {"foo": "bar"}}, {}, "", False, id="missing labels"),
    pytest.param({"nodeSelector": {"foo": "bar"}}, {"foo": "bar"}, "", True, id="same labels"),
    pytest.param({"nodeSelector": {"foo": "bar"}}, {"foo": "bar", "baz": "blah"}, "", True,
                 id="node labels are superset"),
    pytest.param({"nodeSelector": {"foo": "bar", "baz": "blah"}}, {"foo": "bar"}, "", False,
                 id="node labels are subset"),
    pytest.param({"affinity": {"nodeAffinity": required(term([expr("kernel-version", "Gt",
                                                                   "0204")]))}},
                 {"kernel-version": "0206"}, "", True,
                 id="matchExpressions using Gt operator matches a larger number"),
    pytest.param({"affinity": {"nodeAffinity": required(term([expr("kernel-version", "Lt",
                                                                   "0204")]))}},
                 {"kernel-version": "0206"}, "", False,
                 id="matchExpressions using Lt operator does not match a larger number"),
    pytest.param({"affinity": {"nodeAffinity": required(term([expr("kernel-version", "Gt",
                                                                   "0204")]))}},
                 {"kernel-version": "v2"}, "", False, id="Gt does not match a non-integer label"),
    pytest.param({"affinity": {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": None}}}},
        {"foo": "bar"}, "", False,
        id="Pod with a nil []NodeSelectorTerm in affinity, can't match the node's labels"),
    pytest.param({"affinity": {"nodeAffinity": required()}}, {"foo": "bar"}, "", False,
                 id="Pod with an empty []NodeSelectorTerm in affinity, can't match the node's "
                    "labels"),
    pytest.param({"affinity": {"nodeAffinity": required(term([]))}}, {"foo": "bar"}, "", False,
                 id="Pod with empty MatchExpressions will match no objects"),
    pytest.param({"affinity": {"nodeAffinity": NOT_IN_GPU}}, {"GPU": "NVIDIA-GRID-K1"}, "", True,
                 id="Pod with multiple matchExpressions ANDed that matches the existing node"),
    pytest.param({"affinity": {"nodeAffinity": required(term(fields=[name_in("node_1")]))}},
                 {}, "node_1", True,
                 id="Pod with matchFields using In operator that matches the existing node"),
    pytest.param({"affinity": {"nodeAffinity": required(term(fields=[name_in("node_1")]))}},
                 {}, "node_2", False,
                 id="Pod with matchFields using In operator that does not match the existing "
                    "node"),
    pytest.param({"affinity": {"nodeAffinity": required(term(fields=[name_in("node_1")]),
                                                        term([expr("foo", "In", "bar")]))}},
                 {"foo": "bar"}, "node_2", True,
                 id="Pod with two terms: matchFields does not match, but matchExpressions "
                    "matches"),
    pytest.param({"affinity": {"nodeAffinity": required(term([expr("foo", "In", "bar")],
                                                             [name_in("node_1")]))}},
                 {"foo": "bar"}, "node_2", False,
                 id="Pod with one term: matchFields does not match, but matchExpressions "
                    "matches"),
    pytest.param({"affinity": {"nodeAffinity": required(term(fields=[name_in("node_1")]))}},
                 {}, "", True, id="a node without a name skips matchFields"),
]


@pytest.mark.parametrize("spec,labels,node_name,want", MATCH_CASES)
def test_pod_matches_node_selector_and_affinity_terms(spec, labels, node_name, want):
    assert RequiredNodeAffinity(spec).matches(labels, node_name) is want


DAEMONSET_AFFINITY = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
    "nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": ["node-a"]}]}]}}}


def test_pods_alike_share_one_parse_and_pods_that_differ_do_not():
    first = _pod_node_affinity(pod_info(make_pod("d-1", affinity=DAEMONSET_AFFINITY)))
    second = _pod_node_affinity(pod_info(make_pod("d-2", affinity=DAEMONSET_AFFINITY)))
    assert first is second and first.node_names == {"node-a"}
    # An empty nodeSelector still runs the Filter; no nodeSelector at all lets it skip.
    empty = _pod_node_affinity(pod_info(make_pod("e", nodeSelector={})))
    none = _pod_node_affinity(pod_info(make_pod("n")))
    assert empty is not none
    assert (empty.skippable, none.skippable) == (False, True)
    other = _pod_node_affinity(pod_info(make_pod("o", nodeSelector={"disk": "ssd"})))
    assert other.required.node_selector == {"disk": "ssd"}
