"""/api/clusters/{id}/<kind>/ and /<kind>/{pk}/ for every kind: list, add, replace, delete.

Nodes and pods have their own modules for filters and computed columns; this one checks the
common behaviour on every kind.
"""

import pytest

from playground.clusters.models import Cluster
from playground.clusters.services import cluster_create, object_save

SAMPLES = {
    "nodes": {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "new-node"},
              "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "10"}}},
    "pods": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "new-pod"},
             "spec": {"containers": [{"name": "c", "image": "x"}]}},
    "namespaces": {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}},
    "priorityclasses": {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                        "metadata": {"name": "mid"}, "value": 500},
    "pdbs": {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
             "metadata": {"name": "web", "namespace": "team"},
             "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}},
    "pvs": {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv-1"},
            "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"]}},
    "pvcs": {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data"},
             "spec": {"accessModes": ["ReadWriteOnce"],
                      "resources": {"requests": {"storage": "1Gi"}}}},
    "storageclasses": {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                       "metadata": {"name": "fast"}, "provisioner": "csi.example.com"},
    "objects": {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
                "metadata": {"name": "gang", "namespace": "team"},
                "spec": {"minMember": 2}},
}
NAMESPACED = {"pods", "pdbs", "pvcs", "objects"}
ENDPOINTS = sorted(SAMPLES)


@pytest.fixture
def empty(alice):
    return cluster_create(owner=alice, name="empty")


def _url(cluster, segment, pk=None):
    return f"/api/clusters/{cluster.pk}/{segment}/" + (f"{pk}/" if pk else "")


@pytest.mark.parametrize("segment", ENDPOINTS)
def test_it_adds_lists_reads_replaces_and_deletes(api, empty, segment):
    manifest = SAMPLES[segment]
    created = api.post(_url(empty, segment), {"manifest": manifest}, format="json")
    assert created.status_code == 201, created.json()
    body = created.json()
    assert body["kind"] == manifest["kind"] and body["name"] == manifest["metadata"]["name"]
    if segment in NAMESPACED:
        assert body["namespace"] == manifest["metadata"].get("namespace", "default")
        assert body["manifest"]["metadata"]["namespace"] == body["namespace"]
    listed = api.get(_url(empty, segment)).json()
    assert listed["count"] == 1 and listed["results"][0]["id"] == body["id"]
    assert api.get(_url(empty, segment, body["id"])).json() == body

    changed = {**manifest, "metadata": {**manifest["metadata"], "labels": {"edited": "yes"}}}
    replaced = api.put(_url(empty, segment, body["id"]), {"manifest": changed}, format="json")
    assert replaced.status_code == 200, replaced.json()
    assert replaced.json()["manifest"]["metadata"]["labels"] == {"edited": "yes"}

    assert api.delete(_url(empty, segment, body["id"])).status_code == 204
    assert api.get(_url(empty, segment)).json()["count"] == 0


@pytest.mark.parametrize("segment", ENDPOINTS)
def test_it_fills_in_a_missing_kind_and_rejects_a_wrong_one(api, empty, segment):
    manifest = dict(SAMPLES[segment])
    if segment != "objects":
        without_kind = {k: v for k, v in manifest.items() if k != "kind"}
        response = api.post(_url(empty, segment), {"manifest": without_kind}, format="json")
        assert response.status_code == 201
        assert response.json()["manifest"]["kind"] == manifest["kind"]
    wrong = {**manifest, "kind": "ConfigMap", "metadata": {"name": "other"}}
    response = api.post(_url(empty, segment), {"manifest": wrong}, format="json")
    assert response.status_code == 400
    assert "manifest.kind" in response.json()


@pytest.mark.parametrize("segment", ENDPOINTS)
def test_it_rejects_a_duplicate_name(api, empty, segment):
    assert api.post(_url(empty, segment), {"manifest": SAMPLES[segment]},
                    format="json").status_code == 201
    response = api.post(_url(empty, segment), {"manifest": SAMPLES[segment]}, format="json")
    assert response.status_code == 400
    assert "already exists" in response.json()["manifest.metadata.name"][0]


@pytest.mark.parametrize("segment", ENDPOINTS)
def test_it_rejects_a_manifest_without_a_name(api, empty, segment):
    manifest = {**SAMPLES[segment], "metadata": {}}
    response = api.post(_url(empty, segment), {"manifest": manifest}, format="json")
    assert response.status_code == 400
    assert "manifest.metadata.name" in response.json()


@pytest.mark.parametrize("body", [{}, {"manifest": "text"}, {"manifest": [1]},
                                  {"manifest": None}])
def test_it_rejects_a_body_that_is_not_a_manifest(api, empty, body):
    assert api.post(_url(empty, "nodes"), body, format="json").status_code == 400


@pytest.mark.parametrize("segment", ENDPOINTS)
def test_name_and_namespace_are_immutable(api, empty, segment):
    pk = api.post(_url(empty, segment), {"manifest": SAMPLES[segment]}, format="json").json()["id"]
    renamed = {**SAMPLES[segment], "metadata": {**SAMPLES[segment]["metadata"], "name": "new"}}
    response = api.put(_url(empty, segment, pk), {"manifest": renamed}, format="json")
    assert response.status_code == 400
    assert "immutable" in response.json()["manifest.metadata.name"][0]


@pytest.mark.parametrize("segment", ENDPOINTS)
def test_it_reads_but_refuses_changes_to_a_shared_cluster_of_another_user(
        api, bob, segment):
    shared = cluster_create(owner=bob, name="shared", shared=True)
    bob_row = object_save(cluster=shared, model=_model(segment),
                                   manifest=SAMPLES[segment])
    assert api.get(_url(shared, segment)).json()["count"] == 1
    assert api.get(_url(shared, segment, bob_row.pk)).status_code == 200
    assert api.post(_url(shared, segment), {"manifest": SAMPLES[segment]},
                    format="json").status_code == 403
    assert api.put(_url(shared, segment, bob_row.pk), {"manifest": SAMPLES[segment]},
                   format="json").status_code == 403
    assert api.delete(_url(shared, segment, bob_row.pk)).status_code == 403


@pytest.mark.parametrize("segment", ENDPOINTS)
def test_it_rejects_other_users_cluster(api, bob, segment):
    private = cluster_create(owner=bob, name="private")
    row = object_save(cluster=private, model=_model(segment), manifest=SAMPLES[segment])
    assert api.get(_url(private, segment)).status_code == 404
    assert api.get(_url(private, segment, row.pk)).status_code == 404
    assert api.post(_url(private, segment), {"manifest": SAMPLES[segment]},
                    format="json").status_code == 404
    assert api.delete(_url(private, segment, row.pk)).status_code == 404


@pytest.mark.parametrize("segment", ENDPOINTS)
def test_it_rejects_anonymous_users(anon, shared_cluster, segment):
    assert anon.get(_url(shared_cluster, segment)).status_code in (401, 403)
    assert anon.post(_url(shared_cluster, segment), {"manifest": SAMPLES[segment]},
                     format="json").status_code in (401, 403)


def test_an_object_of_another_cluster_is_not_found_through_this_one(api, alice, empty):
    other = cluster_create(owner=alice, name="other")
    row = object_save(cluster=other, model=_model("nodes"), manifest=SAMPLES["nodes"])
    assert api.get(_url(empty, "nodes", row.pk)).status_code == 404
    assert api.put(_url(empty, "nodes", row.pk), {"manifest": SAMPLES["nodes"]},
                   format="json").status_code == 404


def test_editing_an_object_touches_the_cluster(api, empty):
    before = Cluster.objects.get(pk=empty.pk).updated
    api.post(_url(empty, "nodes"), {"manifest": SAMPLES["nodes"]}, format="json")
    assert Cluster.objects.get(pk=empty.pk).updated > before


def test_other_objects_filter_by_kind_and_namespace(api, empty):
    csinode = {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": "n"},
               "spec": {"drivers": []}}
    api.post(_url(empty, "objects"), {"manifest": csinode}, format="json")
    api.post(_url(empty, "objects"), {"manifest": SAMPLES["objects"]}, format="json")
    kinds = api.get(_url(empty, "objects") + "?kind=CSINode").json()["results"]
    assert [(o["kind"], o["namespace"]) for o in kinds] == [("CSINode", "")]
    team = api.get(_url(empty, "objects") + "?namespace=team").json()["results"]
    assert [o["kind"] for o in team] == ["PodGroup"]


def test_other_objects_reject_a_kind_the_engine_does_not_read(api, empty):
    manifest = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "d"}}
    response = api.post(_url(empty, "objects"), {"manifest": manifest}, format="json")
    assert response.status_code == 400
    assert "Unsupported value" in response.json()["manifest.kind"][0]


def _model(segment):
    from playground.clusters.objects_api import OBJECT_ENDPOINTS
    return next(model for seg, model, *_ in OBJECT_ENDPOINTS if seg == segment)
