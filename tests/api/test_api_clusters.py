"""/api/clusters/ and /api/clusters/{id}/: list, create, read, change, delete."""

import pytest

from playground.clusters.models import Cluster, Node
from playground.profiles.models import SchedulerProfile


def test_it_lists_own_and_shared_clusters_only(api, cluster, bobs_cluster, shared_cluster):
    response = api.get("/api/clusters/")
    assert response.status_code == 200
    names = [c["name"] for c in response.json()["results"]]
    assert names == ["gpu", "shared"]


def test_it_shows_counts_owner_and_whether_writable(api, cluster, shared_cluster):
    by_name = {c["name"]: c for c in api.get("/api/clusters/").json()["results"]}
    assert by_name["gpu"]["node_count"] == 15
    assert by_name["gpu"]["pod_count"] == 20
    assert by_name["gpu"]["owner"] == "alice"
    assert by_name["gpu"]["writable"] is True
    assert by_name["shared"]["owner"] == "bob"
    assert by_name["shared"]["writable"] is False


def test_it_filters_by_owned_and_shared(api, cluster, shared_cluster):
    owned = api.get("/api/clusters/?owned=true").json()["results"]
    assert [c["name"] for c in owned] == ["gpu"]
    others = api.get("/api/clusters/?owned=false").json()["results"]
    assert [c["name"] for c in others] == ["shared"]
    shared = api.get("/api/clusters/?shared=true").json()["results"]
    assert [c["name"] for c in shared] == ["shared"]


def test_it_rejects_a_bad_boolean_filter(api, cluster):
    response = api.get("/api/clusters/?owned=maybe")
    assert response.status_code == 400
    assert "owned" in response.json()


def test_it_paginates(api, alice):
    for i in range(5):
        Cluster.objects.create(owner=alice, name=f"c{i}")
    page = api.get("/api/clusters/?page_size=2&page=2").json()
    assert page["count"] == 5
    assert [c["name"] for c in page["results"]] == ["c2", "c3"]
    assert api.get("/api/clusters/?page=9").status_code == 404


def test_it_creates_an_empty_cluster_with_the_default_profile(api, alice):
    response = api.post("/api/clusters/", {"name": "empty", "description": "d"}, format="json")
    assert response.status_code == 201
    body = response.json()
    assert body["name"] == "empty" and body["node_count"] == 0 and body["shared"] is False
    profile = SchedulerProfile.objects.get(cluster_id=body["id"])
    assert profile.config["kind"] == "KubeSchedulerConfiguration"


def test_it_rejects_a_duplicate_cluster_name(api, cluster):
    response = api.post("/api/clusters/", {"name": "gpu"}, format="json")
    assert response.status_code == 400
    assert "already" in response.json()["name"][0]


def test_it_rejects_a_missing_name(api, alice):
    response = api.post("/api/clusters/", {"description": "x"}, format="json")
    assert response.status_code == 400
    assert "name" in response.json()


def test_two_users_may_use_the_same_cluster_name(api, bob_api, cluster):
    assert bob_api.post("/api/clusters/", {"name": "gpu"}, format="json").status_code == 201


def test_it_reads_a_cluster(api, cluster):
    response = api.get(f"/api/clusters/{cluster.pk}/")
    assert response.status_code == 200
    assert response.json()["name"] == "gpu"


def test_it_reads_a_shared_cluster_of_another_user(api, shared_cluster):
    assert api.get(f"/api/clusters/{shared_cluster.pk}/").status_code == 200


def test_it_rejects_other_users_cluster(api, bobs_cluster):
    assert api.get(f"/api/clusters/{bobs_cluster.pk}/").status_code == 404
    assert api.patch(f"/api/clusters/{bobs_cluster.pk}/", {"name": "x"},
                     format="json").status_code == 404
    assert api.delete(f"/api/clusters/{bobs_cluster.pk}/").status_code == 404


@pytest.mark.parametrize("method", ["get", "post"])
def test_it_rejects_anonymous_users(anon, method):
    assert getattr(anon, method)("/api/clusters/").status_code in (401, 403)


def test_it_rejects_anonymous_users_on_a_shared_cluster(anon, shared_cluster):
    assert anon.get(f"/api/clusters/{shared_cluster.pk}/").status_code in (401, 403)


def test_it_renames_and_shares_a_cluster(api, cluster):
    response = api.patch(f"/api/clusters/{cluster.pk}/", {"name": "renamed", "shared": True},
                         format="json")
    assert response.status_code == 200
    cluster.refresh_from_db()
    assert (cluster.name, cluster.shared) == ("renamed", True)


def test_it_replaces_cluster_fields_with_put(api, cluster):
    response = api.put(f"/api/clusters/{cluster.pk}/", {"name": "p", "description": "new"},
                       format="json")
    assert response.status_code == 200
    assert response.json()["description"] == "new"


def test_it_rejects_renaming_onto_another_cluster(api, alice, cluster):
    Cluster.objects.create(owner=alice, name="taken")
    response = api.patch(f"/api/clusters/{cluster.pk}/", {"name": "taken"}, format="json")
    assert response.status_code == 400
    assert "name" in response.json()


def test_it_refuses_changes_to_a_shared_cluster_of_another_user(api, shared_cluster):
    response = api.patch(f"/api/clusters/{shared_cluster.pk}/", {"name": "mine"}, format="json")
    assert response.status_code == 403
    assert api.delete(f"/api/clusters/{shared_cluster.pk}/").status_code == 403
    assert Cluster.objects.filter(pk=shared_cluster.pk).exists()


def test_it_deletes_a_cluster_with_its_objects(api, cluster):
    assert api.delete(f"/api/clusters/{cluster.pk}/").status_code == 204
    assert not Cluster.objects.filter(pk=cluster.pk).exists()
    assert not Node.objects.filter(cluster_id=cluster.pk).exists()
