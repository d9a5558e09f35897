"""/api/runs/ and /api/runs/{id}/: create over a snapshot, list, read, rename, delete."""

from playground.clusters.models import Node
from playground.clusters.services import cluster_manifests
from playground.profiles.services import profile_update
from playground.runs.models import CycleRecord, Run
from playground.runs.services import run_create
from tests.api.conftest import finish_run, import_fixture


def _create(api, cluster, **extra):
    return api.post("/api/runs/", {"cluster": cluster.pk, **extra}, format="json")


def test_it_creates_a_run_with_a_snapshot_of_the_cluster(api, alice, cluster):
    profile_update(cluster=cluster, config={"percentageOfNodesToScore": 70})
    response = _create(api, cluster, seed=42, name="first")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["seed"], body["name"], body["status"], body["owner"]) == (42, "first",
                                                                           "created", "alice")
    assert (body["cycle_count"], body["pods_bound"], body["cluster_name"]) == (0, 0, "gpu")
    run = Run.objects.get(pk=body["id"])
    assert run.config["percentageOfNodesToScore"] == 70
    assert [d["kind"] for d in run.documents] == ["Node"] * 15 + ["Pod"] * 20
    assert run.documents == list(cluster_manifests(cluster))


def test_later_cluster_edits_do_not_change_the_run(api, cluster):
    run_id = _create(api, cluster).json()["id"]
    Node.objects.filter(cluster=cluster).delete()
    profile_update(cluster=cluster, config={"percentageOfNodesToScore": 5})
    run = Run.objects.get(pk=run_id)
    assert sum(d["kind"] == "Node" for d in run.documents) == 15
    assert "percentageOfNodesToScore" not in run.config


def test_the_seed_defaults_to_zero(api, cluster):
    assert _create(api, cluster).json()["seed"] == 0


def test_it_runs_a_shared_cluster_of_another_user(api, shared_cluster):
    response = _create(api, shared_cluster)
    assert response.status_code == 201
    assert response.json()["owner"] == "alice"


def test_it_rejects_other_users_cluster(api, bobs_cluster):
    response = _create(api, bobs_cluster)
    assert response.status_code == 400
    assert "cluster" in response.json()
    assert not Run.objects.exists()


def test_it_rejects_a_bad_seed_or_cluster(api, cluster):
    assert _create(api, cluster, seed=-1).status_code == 400
    assert _create(api, cluster, seed="abc").status_code == 400
    assert api.post("/api/runs/", {"seed": 1}, format="json").status_code == 400
    assert api.post("/api/runs/", {"cluster": "x"}, format="json").status_code == 400


def test_it_rejects_a_cluster_the_engine_cannot_load(api, cluster):
    pod = cluster.pod_set.first()
    pod.manifest["spec"]["priorityClassName"] = "gone"
    pod.save()
    response = _create(api, cluster)
    assert response.status_code == 400
    assert 'no PriorityClass with name "gone"' in response.json()["cluster"][0]


def test_it_lists_own_runs_runs_on_own_clusters_and_runs_shared_by_their_owner(
        api, bob_api, alice, bob, cluster, shared_cluster):
    mine = run_create(cluster=cluster, seed=1, owner=alice)
    on_shared_by_owner = run_create(cluster=shared_cluster, seed=2, owner=bob)
    mine_on_shared = run_create(cluster=shared_cluster, seed=3, owner=alice)
    bobs_private = run_create(cluster=import_fixture(bob, cluster_name="p"), seed=4,
                                       owner=bob)
    ids = [r["id"] for r in api.get("/api/runs/").json()["results"]]
    assert ids == [mine_on_shared.pk, on_shared_by_owner.pk, mine.pk]
    bob_ids = {r["id"] for r in bob_api.get("/api/runs/").json()["results"]}
    # Bob owns the shared cluster, so he sees alice's run on it too; not her private run.
    assert bob_ids == {bobs_private.pk, mine_on_shared.pk, on_shared_by_owner.pk}


def test_it_filters_runs_by_cluster_and_status(api, alice, cluster, finished_run):
    run_create(cluster=cluster, seed=1, owner=alice)
    by_cluster = api.get(f"/api/runs/?cluster={cluster.pk}").json()["results"]
    assert [r["cluster"] for r in by_cluster] == [cluster.pk]
    finished = api.get("/api/runs/?status=finished").json()["results"]
    assert [r["id"] for r in finished] == [finished_run.pk]
    assert api.get("/api/runs/?cluster=abc").status_code == 400


def test_it_reads_a_run(api, finished_run):
    body = api.get(f"/api/runs/{finished_run.pk}/").json()
    assert body["status"] == "finished"
    assert body["cycle_count"] == finished_run.cycle_count == 7
    assert body["pods_bound"] == 5


def test_it_renames_a_run(api, finished_run):
    response = api.patch(f"/api/runs/{finished_run.pk}/", {"name": "renamed"}, format="json")
    assert response.status_code == 200
    assert Run.objects.get(pk=finished_run.pk).name == "renamed"
    assert api.patch(f"/api/runs/{finished_run.pk}/", {}, format="json").status_code == 400


def test_it_deletes_a_run_and_its_cycles(api, finished_run):
    assert api.delete(f"/api/runs/{finished_run.pk}/").status_code == 204
    assert not CycleRecord.objects.filter(run_id=finished_run.pk).exists()


def test_it_rejects_other_users_run(bob_api, finished_run):
    assert bob_api.get(f"/api/runs/{finished_run.pk}/").status_code == 404
    assert bob_api.patch(f"/api/runs/{finished_run.pk}/", {"name": "x"},
                         format="json").status_code == 404
    assert bob_api.delete(f"/api/runs/{finished_run.pk}/").status_code == 404


def test_a_run_on_a_shared_cluster_is_read_only_to_others(api, bob_api, bob, shared_cluster):
    run = run_create(cluster=shared_cluster, seed=0, owner=bob)
    finish_run(run)
    assert api.get(f"/api/runs/{run.pk}/").status_code == 200
    assert api.patch(f"/api/runs/{run.pk}/", {"name": "x"}, format="json").status_code == 403
    assert api.delete(f"/api/runs/{run.pk}/").status_code == 403


def test_it_rejects_anonymous_users(anon, finished_run):
    assert anon.get("/api/runs/").status_code in (401, 403)
    assert anon.get(f"/api/runs/{finished_run.pk}/").status_code in (401, 403)
    assert anon.post("/api/runs/", {"cluster": finished_run.cluster_id},
                     format="json").status_code in (401, 403)
