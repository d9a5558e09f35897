"""Objects alike but for their names are checked in full once per load (object_shapes): what
is refused, and how it is worded, is what checking each object in full gives."""
from __future__ import annotations

import copy
import json

import pytest

from scheduler_core.errors import InputError
from scheduler_core.loader import load_files
from scheduler_core.object_shapes import shape_of
from scheduler_core.testing import make_node, make_pod

HOSTNAME = "kubernetes.io/hostname"


def _node(name: str) -> dict:
    node = make_node(name)
    node["metadata"]["labels"] = {HOSTNAME: name, "zone": "a"}
    return node


def _pod(name: str, node: str = "") -> dict:
    pod = make_pod(name)
    pod["metadata"]["uid"] = f"uid-{name}"
    if node:
        pod["spec"]["nodeName"] = node
    return pod


def _load(tmp_path, *objects, **kwargs):
    path = tmp_path / "in.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": list(objects)}))
    return load_files([str(path)], **kwargs)


def _other_shape(obj: dict) -> dict:
    """The object with a label more: valid, but of another shape (so that a refusal names
    the same document index either way)."""
    other = copy.deepcopy(obj)
    other["metadata"].setdefault("labels", {})["other"] = "shape"
    return other


def _refusal(tmp_path, *objects) -> str:
    with pytest.raises(InputError) as info:
        _load(tmp_path, *objects)
    return str(info.value)


def test_objects_differing_in_names_uids_hostnames_and_node_names_share_a_shape():
    assert shape_of("Node", _node("n1")) == shape_of("Node", _node("n2"))
    assert shape_of("Pod", _pod("a", "n1")) == shape_of("Pod", _pod("b", "n2"))


def test_objects_differing_elsewhere_do_not_share_a_shape():
    other_zone = _node("n2")
    other_zone["metadata"]["labels"]["zone"] = "b"
    assert shape_of("Node", _node("n1")) != shape_of("Node", other_zone)
    # "1" and 1 are told apart: the types are checked.
    text, number = _pod("a"), _pod("b")
    text["spec"]["priority"], number["spec"]["priority"] = "1", 1
    assert shape_of("Pod", text) != shape_of("Pod", number)


def test_other_kinds_and_nameless_objects_have_no_shape():
    assert shape_of("PriorityClass", {"metadata": {"name": "p"}, "value": 1}) is None
    assert shape_of("Pod", {"metadata": {"generateName": "p-"}}) is None


def test_an_invalid_name_after_a_valid_object_of_its_shape_is_refused_as_alone(tmp_path):
    alone = _refusal(tmp_path, _other_shape(_pod("good")), _pod("Bad_Name"))
    assert "metadata.name" in alone
    assert _refusal(tmp_path, _pod("good"), _pod("Bad_Name")) == alone


def test_a_node_name_too_long_for_its_hostname_label_is_refused_as_alone(tmp_path):
    # A DNS subdomain may be 253 characters long, a label value 63 only.
    long_name = "n" * 70
    alone = _refusal(tmp_path, _other_shape(_node("n1")), _node(long_name))
    assert "metadata.labels" in alone
    assert _refusal(tmp_path, _node("n1"), _node(long_name)) == alone


def test_an_invalid_node_name_of_a_pod_after_a_valid_one_is_refused_as_alone(tmp_path):
    nodes = [_node("n1")]
    alone = _refusal(tmp_path, *nodes, _other_shape(_pod("a", "n1")), _pod("b", "Not_A_Node"))
    assert "spec.nodeName" in alone
    assert _refusal(tmp_path, *nodes, _pod("a", "n1"), _pod("b", "Not_A_Node")) == alone


def test_an_unknown_field_is_warned_of_on_each_object_that_has_it(tmp_path):
    first, second = _pod("a"), _pod("b")
    for pod in (first, second):
        pod["spec"]["notAField"] = 1
    cluster = _load(tmp_path, _pod("c"), first, second)
    assert sum('unknown field "spec.notAField"' in str(w) for w in cluster.warnings) == 2


def test_ignored_unknown_fields_are_dropped_from_every_object(tmp_path):
    pods = [_pod(f"p{i}") for i in range(3)]
    for pod in pods[1:]:
        pod["spec"]["notAField"] = 1
    cluster = _load(tmp_path, *copy.deepcopy(pods), field_validation="Ignore")
    assert cluster.warnings == []
    assert all("notAField" not in p["spec"] for p in cluster.pods)
