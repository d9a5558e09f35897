"""Objects alike but for their names are checked in full once per load (object_shapes): what
is refused, and how it is worded, is what checking each object in full gives."""
from __future__ import annotations

import copy
import json
import random

import pytest

from scheduler_core.errors import InputError
from scheduler_core.field_validation import check_fields
from scheduler_core.loader import load_files
from scheduler_core.object_shapes import OWN_VALUES, shape_of
from scheduler_core.object_validation import validate_object
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


# --- the volumes workloads' storage objects and the pods using them ---------------------------
def _volume(i: int, source: dict) -> tuple[dict, dict]:
    """A PersistentVolume and its claim bound to each other, as scheduler_perf makes them."""
    pv = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": f"vol-{i}"},
          "spec": {"accessModes": ["ReadOnlyMany"], "capacity": {"storage": "1Gi"},
                   **copy.deepcopy(source),
                   "claimRef": {"kind": "PersistentVolumeClaim", "namespace": "default",
                                "name": f"pvc-{i}", "uid": f"uid-pvc-{i}"}},
          "status": {"phase": "Bound"}}
    pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
           "metadata": {"name": f"pvc-{i}", "namespace": "default"},
           "spec": {"accessModes": ["ReadOnlyMany"],
                    "resources": {"requests": {"storage": "1Gi"}}, "volumeName": f"vol-{i}"},
           "status": {"phase": "Bound"}}
    return pv, pvc


def _claiming_pod(i: int) -> dict:
    pod = _pod(f"pod-{i}")
    pod["spec"]["volumes"] = [{"name": "vol", "persistentVolumeClaim": {"claimName": f"pvc-{i}"}}]
    return pod


def _csi_node(name: str) -> dict:
    return {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": name},
            "spec": {"drivers": [{"name": "ebs.csi.aws.com", "nodeID": name,
                                  "allocatable": {"count": 39}}]}}


EBS = {"awsElasticBlockStore": {"volumeID": "<id>"}}
CSI = {"csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "<id>"}}


def _with_id(source: dict, value: str) -> dict:
    source = copy.deepcopy(source)
    for fields in source.values():
        for key in ("volumeID", "volumeHandle"):
            if key in fields:
                fields[key] = value
    return source


@pytest.mark.parametrize("source", [EBS, CSI], ids=["in-tree EBS", "CSI"])
def test_volumes_and_claims_bound_one_to_one_share_a_shape(source):
    pv1, pvc1 = _volume(1, _with_id(source, "v1"))
    pv2, pvc2 = _volume(2, _with_id(source, "v2"))
    assert shape_of("PersistentVolume", pv1) == shape_of("PersistentVolume", pv2)
    assert shape_of("PersistentVolumeClaim", pvc1) == shape_of("PersistentVolumeClaim", pvc2)


def test_pods_differing_in_the_claims_they_name_share_a_shape():
    assert shape_of("Pod", _claiming_pod(1)) == shape_of("Pod", _claiming_pod(2))
    assert shape_of("CSINode", _csi_node("n1")) == shape_of("CSINode", _csi_node("n2"))


def test_an_empty_or_untyped_claim_name_is_a_shape_of_its_own():
    empty, number = _claiming_pod(1), _claiming_pod(2)
    empty["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"] = ""
    number["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"] = 7
    shapes = {shape_of("Pod", p) for p in (_claiming_pod(3), empty, number)}
    assert len(shapes) == 3


def test_a_shape_leaves_the_object_as_it_is():
    pod = _claiming_pod(1)
    before = copy.deepcopy(pod)
    shape_of("Pod", pod)
    assert pod == before


def test_an_invalid_volume_name_after_a_valid_volume_of_its_shape_is_refused_as_alone(tmp_path):
    good, bad = _volume(1, EBS)[0], _volume(2, EBS)[0]
    bad["metadata"]["name"] = "Bad_Volume"
    alone = _refusal(tmp_path, _other_shape(good), bad)
    assert "metadata.name" in alone
    assert _refusal(tmp_path, good, bad) == alone


def _storage_objects(rng, count: int) -> list[dict]:
    """Volumes, claims, CSINodes and pods naming claims, a few spoiled where a shape could
    hide it: an invalid name, a claim name empty or of another type, an unknown field, an
    integer out of range beside a placeholder."""
    out = []
    for i in range(count):
        source = rng.choice((EBS, CSI))
        pv, pvc = _volume(i, _with_id(source, f"id-{i}"))
        objects = [pv, pvc, _claiming_pod(i), _csi_node(f"n{i}")]
        obj = rng.choice(objects)
        spoil = rng.random()
        if spoil < 0.1:
            obj["metadata"]["name"] = f"Bad_{i}"
        elif spoil < 0.2 and obj["kind"] == "Pod":
            obj["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"] = rng.choice(("", 3))
        elif spoil < 0.3:
            obj["spec"]["notAField"] = 1
        elif spoil < 0.35 and obj["kind"] == "CSINode":
            obj["spec"]["drivers"][0]["allocatable"]["count"] = 2**40
        out += objects
    return out


def _outcome(tmp_path, objects, shapes: bool, monkeypatch) -> tuple:
    with monkeypatch.context() as patch:
        if not shapes:
            patch.setattr("scheduler_core.object_shapes.CheckedShapes.passed",
                          lambda self, shape, obj: False)
        try:
            cluster = _load(tmp_path, *copy.deepcopy(objects))
        except InputError as exc:
            return ("refused", str(exc))
    return ("loaded", [str(w) for w in cluster.warnings], sorted(map(repr, cluster.pods)),
            sorted(map(repr, cluster.objects.pvs.values())),
            sorted(map(repr, cluster.objects.pvcs.values())))


def test_storage_objects_load_as_checked_in_full(tmp_path, monkeypatch):
    rng, refused = random.Random(5), 0
    for _ in range(40):
        objects = _storage_objects(rng, rng.randint(2, 6))
        with_shapes = _outcome(tmp_path, objects, True, monkeypatch)
        assert with_shapes == _outcome(tmp_path, objects, False, monkeypatch)
        refused += with_shapes[0] == "refused"
    assert 5 < refused < 35


def _set_at(value, path: tuple[str, ...], text: str) -> None:
    """Every string at path (through "*" lists) set to text, in place."""
    head, rest = path[0], path[1:]
    if head == "*":
        items = value
    elif head not in value:
        return
    elif not rest:
        value[head] = text
        return
    else:
        items = [value[head]]
    for item in items:
        _set_at(item, rest, text)


@pytest.mark.parametrize("text", ["Not_A_Name!", "x" * 300, "a/b:c", " "],
                         ids=["invalid as a name", "too long for any name", "slashes and colons",
                              "a blank"])
def test_the_placeholders_stand_for_values_validation_does_not_read(text):
    """OWN_VALUES' premise: whatever string a placeholder stands for, the object's checks
    answer the same (a check of one of these values added to object_validation fails here,
    and its field must then leave OWN_VALUES or get an own check in own_values_pass)."""
    pv_ebs, pvc = _volume(1, _with_id(EBS, "v1"))
    pv_csi = _volume(2, _with_id(CSI, "v2"))[0]
    for kind, obj in (("PersistentVolume", pv_ebs), ("PersistentVolume", pv_csi),
                      ("PersistentVolumeClaim", pvc), ("Pod", _claiming_pod(1)),
                      ("CSINode", _csi_node("n1"))):
        changed = copy.deepcopy(obj)
        for path in OWN_VALUES[kind]:
            _set_at(changed, path, text)
        assert changed != obj or kind == "PersistentVolume"
        assert validate_object(changed) == validate_object(obj) == [], kind
        assert check_fields(changed, []) == check_fields(copy.deepcopy(obj), []) == [], kind
