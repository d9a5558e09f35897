"""Loading Kubernetes objects from YAML and JSON files into a Cluster."""
import json

import pytest
import yaml

from scheduler_core.errors import InputError
from scheduler_core.loader import load_files
from scheduler_core.testing import make_node, make_pod


def write(tmp_path, name, *docs, as_json=False):
    path = tmp_path / name
    if as_json:
        path.write_text(json.dumps(docs[0] if len(docs) == 1 else list(docs)))
    else:
        path.write_text(yaml.safe_dump_all(docs))
    return str(path)


def names(objects):
    return [o["metadata"]["name"] for o in objects]


def priority_class(name, value, **extra):
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": name}, "value": value, **extra}


def load_error(tmp_path, *docs) -> str:
    path = write(tmp_path, "in.yaml", *docs)
    with pytest.raises(InputError) as info:
        load_files([path])
    return str(info.value)


def test_documents_lists_and_typed_lists(tmp_path):
    node_list = {"apiVersion": "v1", "kind": "NodeList", "items": [
        {"metadata": {"name": "n2"}, "status": {"allocatable": {"cpu": "1"}}}]}
    mixed = {"apiVersion": "v1", "kind": "List", "items": [make_node("n3"), make_pod("a")]}
    path = write(tmp_path, "in.yaml", make_node("n1"), node_list, mixed, make_pod("b"))
    cluster = load_files([path])
    assert names(cluster.nodes) == ["n1", "n2", "n3"]
    assert cluster.nodes[1]["kind"] == "Node"
    assert names(cluster.pods) == ["a", "b"]
    assert cluster.warnings == []


def test_json_input(tmp_path):
    one = write(tmp_path, "node.json", make_node("n1"), as_json=True)
    many = write(tmp_path, "pods.json", make_pod("a"), make_pod("b"), as_json=True)
    cluster = load_files([one, many])
    assert (names(cluster.nodes), names(cluster.pods)) == (["n1"], ["a", "b"])


def test_unknown_kind_is_skipped_with_a_warning(tmp_path):
    path = write(tmp_path, "in.yaml", make_node("n1"),
                 {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}})
    cluster = load_files([path])
    assert names(cluster.nodes) == ["n1"]
    assert cluster.warnings == [f"{path}: document 2: skipping unsupported kind 'ConfigMap'"]


def test_bad_quantity_names_file_object_and_field(tmp_path):
    message = load_error(tmp_path, make_pod("web", cpu="12x"))
    assert message.startswith(f"{tmp_path / 'in.yaml'}: document 1: Pod default/web: "
                              "field spec.containers[0].resources.requests.cpu: ")
    assert message.endswith("'12x'")


def test_bad_node_quantity(tmp_path):
    message = load_error(tmp_path, make_node("n1", memory="lots"))
    # Every problem is reported, as the API server lists them.
    assert "Node n1: field status.capacity.memory: " in message
    assert "; field status.allocatable.memory: " in message


def test_negative_quantity(tmp_path):
    message = load_error(tmp_path, make_pod("web", memory="-1Gi"))
    assert "field spec.containers[0].resources.requests.memory: Invalid value: \"-1Gi\": " \
           "must be greater than or equal to 0" in message


@pytest.mark.parametrize("docs,want", [
    pytest.param([make_pod("p"), make_pod("p")], "duplicate Pod 'default/p'",
                 id="the same pod twice"),
    pytest.param([make_node("n"), make_node("n")], "duplicate Node 'n'", id="the same node twice"),
])
def test_duplicate_objects(tmp_path, docs, want):
    assert want in load_error(tmp_path, *docs)


def test_same_name_in_other_namespaces_is_not_a_duplicate(tmp_path):
    path = write(tmp_path, "in.yaml", make_pod("p"), make_pod("p", namespace="other"))
    assert len(load_files([path]).pods) == 2


def test_missing_name(tmp_path):
    assert "document 1: Pod: field metadata.name: Required value" in load_error(
        tmp_path, {"apiVersion": "v1", "kind": "Pod", "metadata": {}, "spec": {}})


def test_unparsable_yaml(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("kind: Node\nmetadata: [unclosed\n")
    with pytest.raises(InputError, match="cannot parse"):
        load_files([str(path)])


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="cannot read file"):
        load_files([str(tmp_path / "absent.yaml")])


def test_the_configuration_document_is_taken_apart(tmp_path):
    config = {"apiVersion": "kubescheduler.config.k8s.io/v1",
              "kind": "KubeSchedulerConfiguration", "profiles": []}
    path = write(tmp_path, "in.yaml", make_node("n1"), config)
    cluster = load_files([path])
    assert cluster.config == config
    assert cluster.config_file == path
    assert "more than one KubeSchedulerConfiguration" in load_error(tmp_path, config, config)


def priorities(tmp_path, *docs):
    return {pi.name: pi.priority for pi in load_files([write(tmp_path, "in.yaml", *docs)])
            .pod_infos()}


def test_priority_from_spec_class_and_global_default(tmp_path):
    got = priorities(
        tmp_path,
        priority_class("high", 1000), priority_class("fallback", 5, globalDefault=True),
        make_pod("classed", priorityClassName="high"), make_pod("plain"),
        make_pod("explicit", priority=1000, priorityClassName="high"),
        make_pod("critical", priorityClassName="system-node-critical"))
    assert got == {"classed": 1000, "plain": 5, "explicit": 1000, "critical": 2000001000}


def test_priority_without_any_class_is_zero(tmp_path):
    assert priorities(tmp_path, make_pod("plain")) == {"plain": 0}


def test_unknown_priority_class(tmp_path):
    assert load_error(tmp_path, make_pod("p", priorityClassName="nope")).endswith(
        'Pod default/p: field spec.priorityClassName: no PriorityClass with name "nope" '
        "was found")


def test_two_global_defaults(tmp_path):
    assert "more than one globalDefault PriorityClass" in load_error(
        tmp_path, priority_class("a", 1, globalDefault=True),
        priority_class("b", 2, globalDefault=True))


def test_priority_class_value_above_the_user_maximum(tmp_path):
    assert "must be no greater than 1000000000" in load_error(
        tmp_path, priority_class("huge", 2000000000))
