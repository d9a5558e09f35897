"""Objects decoded as the API server decodes them (fieldValidation): unknown and repeated
fields are warnings and the object is used without the unknown field, errors in Strict mode;
an integer beyond its Go type is refused."""
import pytest

from scheduler_core.errors import InputError
from scheduler_core.field_validation import STRICT
from scheduler_core.loader import load_files

NODE = """apiVersion: v1
kind: Node
metadata: {name: ssd}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
"""
POD = """apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  nodeSelectr: {disktype: hdd}
  containers:
  - name: c
    image: nginx
    imagePullPolicy: Always
    imagePullPolicy: Never
"""


def load(text: str, **kwargs):
    return load_files(["in.yaml"], {"in.yaml": text}, **kwargs)


def test_unknown_and_repeated_fields_are_warnings_naming_file_document_and_object():
    cluster = load(NODE + "---\n" + POD)
    assert cluster.warnings == [
        'in.yaml: document 2: Pod default/web: line 15: key "imagePullPolicy" already set in map',
        'in.yaml: document 2: Pod default/web: unknown field "spec.nodeSelectr"']
    # The misspelt selector is dropped: the pod asks for no particular node.
    assert "nodeSelectr" not in cluster.pods[0]["spec"]


def test_strict_field_validation_refuses_the_object_with_every_problem():
    with pytest.raises(InputError) as info:
        load(NODE + "---\n" + POD, field_validation=STRICT)
    assert str(info.value) == (
        'in.yaml: document 2: Pod default/web: strict decoding error: line 15: key '
        '"imagePullPolicy" already set in map, unknown field "spec.nodeSelectr"')


def test_json_names_the_repeated_field_by_its_path():
    text = ('{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n", "name": "m", '
            '"labelz": {}}}')
    assert load(text).warnings == [
        'in.yaml: document 1: Node m: duplicate field "metadata.name"',
        'in.yaml: document 1: Node m: unknown field "metadata.labelz"']


def test_a_lists_repeated_keys_belong_to_the_document():
    text = ("apiVersion: v1\nkind: List\nitems:\n"
            "- {apiVersion: v1, kind: Node, metadata: {name: a}}\n"
            "- apiVersion: v1\n  kind: Node\n  metadata: {name: b}\n"
            "  spec: {unschedulable: true, unschedulable: false}\n")
    assert load(text).warnings == [
        'in.yaml: document 1: line 8: key "unschedulable" already set in map']


@pytest.mark.parametrize("field, value, go", [
    ("priority", 10 ** 26, "PodSpec.spec.priority of type int32"),
    ("terminationGracePeriodSeconds", 2 ** 63, "PodSpec.spec.terminationGracePeriodSeconds of "
                                               "type int64"),
])
def test_an_integer_beyond_its_go_type_is_refused(field, value, go):
    text = (f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  {field}: {value}\n"
            "  containers: [{name: c, image: i}]\n")
    with pytest.raises(InputError) as info:
        load(text)
    assert str(info.value) == (f"in.yaml: document 1: Pod default/p: field spec.{field}: json: "
                               f"cannot unmarshal number {value} into Go struct field {go}")


def test_kinds_the_api_does_not_serve_are_not_checked_for_fields():
    text = ("apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: g}\n"
            "spec: {minMember: 2, anything: 1}\n")
    assert load(text).warnings == []
