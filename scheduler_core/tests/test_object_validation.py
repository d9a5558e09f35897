"""The API server's validation of objects, table-driven as pkg/apis/core/validation's tests are:
each case is an object and the (field path, message start) of every error it must get."""
import pytest

from scheduler_core.errors import InputError
from scheduler_core.loader import load_documents
from scheduler_core.object_validation import validate_object
from scheduler_core.testing import make_node, make_pod

SPREAD = {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}


def pod(**spec):
    obj = make_pod("p")
    obj["spec"].update(spec)
    return obj


def with_meta(obj, **meta):
    obj["metadata"].update(meta)
    return obj


def selector_term(*exprs):
    return {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"topologyKey": "zone", "labelSelector": {"matchExpressions": list(exprs)}}]}


AFFINITY_PATH = ("spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"
                 ".labelSelector.matchExpressions[0]")
CASES = [
    ("wrongly typed containers", pod(containers=5),
     [("spec.containers", 'Invalid value: "integer": spec.containers in body must be of type '
                          'array: "integer"')]),
    ("tolerations as a string", pod(tolerations="oops"),
     [("spec.tolerations", 'Invalid value: "string"')]),
    ("maxSkew as a word", pod(topologySpreadConstraints=[{**SPREAD, "maxSkew": "one"}]),
     [("spec.topologySpreadConstraints[0].maxSkew", 'Invalid value: "string"')]),
    ("labels as a list", with_meta(make_node("n"), labels=["a"]),
     [("metadata.labels", 'Invalid value: "array"')]),
    ("every type error at once", pod(containers=5, tolerations="oops"),
     [("spec.containers", "Invalid value"), ("spec.tolerations", "Invalid value")]),
    ("an invalid name", make_pod("N_1!/.."),
     [("metadata.name", 'Invalid value: "N_1!/..": a lowercase RFC 1123 subdomain')]),
    ("a 300-character name", make_pod("a" * 300),
     [("metadata.name", "Invalid value: \"" + "a" * 300 + "\": must be no more than 253 "
                        "characters")]),
    ("an invalid namespace", make_pod("p", namespace="Not_OK"),
     [("metadata.namespace", 'Invalid value: "Not_OK": a lowercase RFC 1123 label')]),
    ("a node name is a subdomain, a namespace name a label", with_meta(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {}}, name="a.b"),
     [("metadata.name", 'Invalid value: "a.b": a lowercase RFC 1123 label')]),
    ("a bad label key and value", make_node("n", labels={"-x": "y!"}),
     [("metadata.labels", 'Invalid value: "-x": name part must consist'),
      ("metadata.labels", 'Invalid value: "y!": a valid label must be')]),
    ("selector operator Foo", pod(affinity={"podAffinity": selector_term(
        {"key": "a", "operator": "Foo"})}),
     [(f"{AFFINITY_PATH}.operator", 'Invalid value: "Foo": not a valid selector operator')]),
    ("In with no values", pod(affinity={"podAffinity": selector_term(
        {"key": "a", "operator": "In"})}),
     [(f"{AFFINITY_PATH}.values",
       "Required value: must be specified when `operator` is 'In' or 'NotIn'")]),
    ("Exists with values", pod(affinity={"podAffinity": selector_term(
        {"key": "a", "operator": "Exists", "values": ["x"]})}),
     [(f"{AFFINITY_PATH}.values", "Forbidden: may not be specified when `operator` is "
                                  "'Exists' or 'DoesNotExist'")]),
    ("Gt needs one value", pod(affinity={"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1", "2"]}]}]}}}),
     [("spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
       ".nodeSelectorTerms[0].matchExpressions[0].values",
       "Required value: must be specified single value when `operator` is 'Lt' or 'Gt'")]),
    ("no node selector terms", pod(affinity={"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}}),
     [("spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
       ".nodeSelectorTerms", "Required value: must have at least one node selector term")]),
    ("maxSkew 0", pod(topologySpreadConstraints=[{**SPREAD, "maxSkew": 0}]),
     [("spec.topologySpreadConstraints[0].maxSkew",
       "Invalid value: 0: must be greater than zero")]),
    ("whenUnsatisfiable unknown", pod(topologySpreadConstraints=[
        {**SPREAD, "whenUnsatisfiable": "Maybe"}]),
     [("spec.topologySpreadConstraints[0].whenUnsatisfiable",
       'Unsupported value: "Maybe": supported values: "DoNotSchedule", "ScheduleAnyway"')]),
    ("minDomains with ScheduleAnyway", pod(topologySpreadConstraints=[
        {**SPREAD, "whenUnsatisfiable": "ScheduleAnyway", "minDomains": 2}]),
     [("spec.topologySpreadConstraints[0].minDomains",
       "Invalid value: 2: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not "
       "ScheduleAnyway")]),
    ("a duplicate spread constraint", pod(topologySpreadConstraints=[SPREAD, SPREAD]),
     [("spec.topologySpreadConstraints[1]", 'Duplicate value: "{zone, DoNotSchedule}"')]),
    ("a toleration operator Foo", pod(tolerations=[{"key": "a", "operator": "Foo"}]),
     [("spec.tolerations[0].operator",
       'Unsupported value: "Foo": supported values: "Equal", "Exists"')]),
    ("an empty toleration key needs Exists", pod(tolerations=[{"operator": "Equal"}]),
     [("spec.tolerations[0].operator", 'Invalid value: "Equal": operator must be Exists')]),
    ("a taint without effect", make_node("n", taints=[{"key": "a"}]),
     [("spec.taints[0].effect", "Required value")]),
    ("no containers", pod(containers=[]), [("spec.containers", "Required value")]),
    ("a null container", pod(containers=[None]),
     [("spec.containers[0]", 'Invalid value: "null": spec.containers[0] in body must be of '
                             'type object: "null"')]),
    ("a container without a name", pod(containers=[{"image": "x"}]),
     [("spec.containers[0].name", "Required value")]),
    ("request above limit", pod(containers=[{"name": "c", "resources": {
        "requests": {"cpu": "2"}, "limits": {"cpu": "1"}}}]),
     [("spec.containers[0].resources.requests",
       'Invalid value: "2": must be less than or equal to cpu limit of 1')]),
    ("1e400", make_node("n", cpu="1e400"),
     [("status.capacity.cpu", "must be no more than 9223372036854775807"),
      ("status.allocatable.cpu", "must be no more than 9223372036854775807")]),
    ("a PriorityClass above the user range", {"apiVersion": "scheduling.k8s.io/v1",
                                              "kind": "PriorityClass",
                                              "metadata": {"name": "pc"}, "value": 2 * 10**9},
     [("value", "Invalid value: 2000000000: must be no greater than 1000000000")]),
    ("a PDB with both bounds", {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                                "metadata": {"name": "b"},
                                "spec": {"minAvailable": 1, "maxUnavailable": "200%"}},
     [("spec", "Invalid value"), ("spec.maxUnavailable", 'Invalid value: "200%": must not '
                                                         'be greater than 100%')]),
    ("a StorageClass binding mode", {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                                     "metadata": {"name": "sc"}, "provisioner": "x",
                                     "volumeBindingMode": "Later"},
     [("volumeBindingMode", 'Unsupported value: "Later"')]),
]


@pytest.mark.parametrize("obj,want", [pytest.param(o, w, id=n) for n, o, w in CASES])
def test_validate_object(obj, want):
    got = validate_object(obj)
    assert [path for path, _ in got] == [path for path, _ in want]
    for (_, message), (_, start) in zip(got, want):
        assert message.startswith(start), message


@pytest.mark.parametrize("obj", [make_pod("web-1"), make_node("node-a.example.com"),
                                 pod(topologySpreadConstraints=[SPREAD],
                                     tolerations=[{"operator": "Exists"}])])
def test_valid_objects_have_no_problems(obj):
    assert validate_object(obj) == []


def test_the_loader_names_file_document_object_and_every_field():
    bad = pod(containers=5, tolerations="oops")
    with pytest.raises(InputError) as caught:
        load_documents([("in.yaml", [make_node("n"), bad])])
    assert str(caught.value) == (
        'in.yaml: document 2: Pod default/p: field spec.containers: Invalid value: "integer": '
        'spec.containers in body must be of type array: "integer"; field spec.tolerations: '
        'Invalid value: "string": spec.tolerations in body must be of type array: "string"')


def test_a_kind_of_the_wrong_type_is_refused():
    with pytest.raises(InputError, match='field kind: Invalid value: "number"'):
        load_documents([("in.yaml", [{"kind": 5, "metadata": {"name": "x"}}])])
