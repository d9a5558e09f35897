"""/api/clusters/{id}/clone/: a private copy of a cluster you can see."""

from playground.clusters.models import Cluster
from playground.clusters.services import cluster_export
from playground.profiles.services import profile_update


def test_it_clones_a_cluster_with_objects_and_profile(api, cluster):
    profile_update(cluster=cluster, config={"percentageOfNodesToScore": 50})
    response = api.post(f"/api/clusters/{cluster.pk}/clone/", {}, format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["name"] == "gpu (copy)" and body["writable"] is True
    clone = Cluster.objects.get(pk=body["id"])
    assert cluster_export(cluster=clone) == cluster_export(cluster=cluster)
    assert clone.profile.config["percentageOfNodesToScore"] == 50
    assert clone.pod_set.first().priority == cluster.pod_set.first().priority


def test_it_numbers_repeated_clones(api, cluster):
    names = [api.post(f"/api/clusters/{cluster.pk}/clone/", {}, format="json").json()["name"]
             for _ in range(3)]
    assert names == ["gpu (copy)", "gpu (copy) 2", "gpu (copy) 3"]


def test_it_clones_a_shared_cluster_into_a_private_one(api, alice, shared_cluster):
    response = api.post(f"/api/clusters/{shared_cluster.pk}/clone/",
                        {"name": "mine", "description": "to edit"}, format="json")
    assert response.status_code == 201
    clone = Cluster.objects.get(pk=response.json()["id"])
    assert (clone.owner, clone.shared, clone.description) == (alice, False, "to edit")
    assert clone.node_set.count() == shared_cluster.node_set.count()


def test_it_rejects_a_taken_name(api, cluster):
    response = api.post(f"/api/clusters/{cluster.pk}/clone/", {"name": "gpu"}, format="json")
    assert response.status_code == 400
    assert "name" in response.json()


def test_it_rejects_other_users_cluster(api, bobs_cluster):
    assert api.post(f"/api/clusters/{bobs_cluster.pk}/clone/", {},
                    format="json").status_code == 404


def test_it_rejects_anonymous_users(anon, shared_cluster):
    assert anon.post(f"/api/clusters/{shared_cluster.pk}/clone/", {},
                     format="json").status_code in (401, 403)
