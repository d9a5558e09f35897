"""The import's fieldValidation parameter, as the API server's: unknown and repeated fields
are warnings in the answer and the stored object lacks the unknown field (Warn, the default),
refuse the import by file (Strict), or are dropped silently (Ignore)."""
import pytest

from playground.clusters.models import Pod

POD = """apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  nodeSelectr: {disktype: hdd}
  containers:
  - name: c
    image: nginx
    image: nginx:1.27
"""
UNKNOWN = 'pod.yaml: document 1: Pod default/web: unknown field "spec.nodeSelectr"'
REPEATED = 'pod.yaml: document 1: Pod default/web: line 10: key "image" already set in map'


def _import(api, query=""):
    body = {"name": "c", "files": [{"name": "pod.yaml", "text": POD}]}
    return api.post(f"/api/clusters/import/{query}", body, format="json")


@pytest.mark.parametrize("query", ["", "?fieldValidation=Warn"])
def test_warn_answers_each_field_and_stores_the_pod_without_the_unknown_one(api, query):
    response = _import(api, query)
    assert response.status_code == 201, response.json()
    assert response.json()["warnings"] == [REPEATED, UNKNOWN]
    spec = Pod.objects.get(name="web").manifest["spec"]
    assert "nodeSelectr" not in spec
    assert spec["containers"][0]["image"] == "nginx:1.27"


def test_strict_refuses_the_import_naming_file_object_and_fields(api):
    response = _import(api, "?fieldValidation=Strict")
    assert response.status_code == 400
    assert response.json()["files"] == [
        'pod.yaml: document 1: Pod default/web: strict decoding error: line 10: key "image" '
        'already set in map, unknown field "spec.nodeSelectr"']
    assert not Pod.objects.exists()


def test_ignore_drops_the_unknown_field_without_a_word(api):
    response = _import(api, "?fieldValidation=Ignore")
    assert response.status_code == 201
    assert response.json()["warnings"] == []
    assert "nodeSelectr" not in Pod.objects.get(name="web").manifest["spec"]


def test_another_value_is_refused_by_field(api):
    response = _import(api, "?fieldValidation=Loose")
    assert response.status_code == 400
    assert response.json() == {"fieldValidation": [
        'fieldValidation: Unsupported value: "Loose": supported values: "Ignore", "Warn", '
        '"Strict"']}
