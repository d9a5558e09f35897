"""A cluster import keeps an object that some supported release serves (issue 26): a v1.36
PodGroup (scheduling.k8s.io/v1alpha2, which v1.37's API server no longer serves) is stored
with a warning naming file, object and field; a v1.36 run schedules its gang, a v1.37 run is
refused as `simulate --release 1.37` refuses the same file (openapi.check_served)."""
from pathlib import Path

import pytest

from playground.clusters.models import ExtraObject
from playground.runs.models import Run
from tests.helpers import finish_run

PAIR_V136 = (Path(__file__).resolve().parents[2] / "scheduler_core" / "examples"
             / "gang-pair-v136.yaml").read_text()

UNSERVED = ('no kind "PodGroup" is registered for version "scheduling.k8s.io/v1alpha2" in '
            'kube-apiserver v1.37 (served: scheduling.k8s.io/v1alpha3, scheduling.k8s.io/v1beta1)')


def _import(api, text=PAIR_V136, path="/api/clusters/import/"):
    return api.post(path, {"name": "pair", "files": [{"name": "pair.yaml", "text": text}]},
                    format="json")


def _run(api, cluster_id, release, gates="GenericWorkload=true"):
    return api.post("/api/runs/", {"cluster": cluster_id, "release": release, "seed": 1,
                                   "feature_gates": gates}, format="json")


def test_the_import_stores_a_v136_pod_group_with_a_warning_naming_its_field(api):
    response = _import(api)
    assert response.status_code == 201, response.json()
    # (The pods' schedulingGroup is warned of as well: the import's GenericWorkload is off.)
    assert response.json()["warnings"][0] == (
        "pair.yaml: document 2: PodGroup default/pair: field apiVersion: "
        "scheduling.k8s.io/v1alpha2 is served by kube-apiserver v1.36, not v1.37: stored for "
        "runs under v1.36; a run under another release refuses it")
    stored = ExtraObject.objects.get(cluster_id=response.json()["cluster"]["id"], kind="PodGroup")
    assert stored.manifest["apiVersion"] == "scheduling.k8s.io/v1alpha2"


def test_the_reimport_stores_it_too(api):
    cluster = _import(api, text=PAIR_V136.split("---")[0]).json()["cluster"]["id"]
    response = _import(api, path=f"/api/clusters/{cluster}/import/")
    assert response.status_code == 200, response.json()
    assert ExtraObject.objects.filter(cluster_id=cluster, kind="PodGroup").count() == 1


def test_a_version_no_release_serves_is_still_refused_by_field(api):
    response = _import(api, text=PAIR_V136.replace("v1alpha2", "v1alpha9"))
    assert response.status_code == 400
    assert 'field apiVersion: no kind "PodGroup" is registered for version ' \
        '"scheduling.k8s.io/v1alpha9"' in response.json()["files"][0]


@pytest.mark.django_db(transaction=True)
def test_a_v136_run_schedules_the_gang_together(api):
    response = _run(api, _import(api).json()["cluster"]["id"], "1.36")
    assert response.status_code == 201, response.json()
    run = response.json()["id"]
    cycles = finish_run(Run.objects.get(pk=run))
    assert [c["pod"] for c in cycles if c["outcome"] == "Bound"] == [
        "default/pair-0", "default/pair-1"]
    assert all(c.get("podGroup") for c in cycles)
    # The run view describes the run's objects under its own release.
    view = api.get(f"/api/runs/{run}/view/")
    assert view.status_code == 200, view.json()
    assert sorted(view.json()["objects"]["pods"]) == ["default/pair-0", "default/pair-1"]


def test_a_v137_run_is_refused_as_simulate_refuses_the_file(api):
    response = _run(api, _import(api).json()["cluster"]["id"], "1.37")
    assert response.status_code == 400
    assert response.json() == {"cluster": [
        f"cluster: document 2: PodGroup default/pair: field apiVersion: {UNSERVED}"]}



@pytest.mark.django_db(transaction=True)
def test_one_step_of_a_v136_gang_shows_both_members_bound(api):
    """The run view's header counts the state's bindings (frontend/js/run/header.js): after the
    step of the group's cycle, pair-0 (allowed at Permit by pair-1) is bound too."""
    run = _run(api, _import(api).json()["cluster"]["id"], "1.36",
               "GenericWorkload=true,GangScheduling=true").json()["id"]
    api.post(f"/api/runs/{run}/step/", {"cycles": 1}, format="json")
    view = api.get(f"/api/runs/{run}/view/?part=state").json()
    assert view["run"]["cycle_count"] == 2
    assert view["run"]["pods_bound"] == 2
    bindings = view["state"]["bindings"]
    assert ([n for n in bindings.values() if n], [n for n in bindings.values() if not n]) == (
        ["node-1", "node-1"], [])   # header: bound 2 · pending 0
    assert view["state"]["queues"]["activeQ"] == []
    assert view["state"]["queues"]["waitingOnPermit"] == []
    assert [p["pod"] for p in view["state"]["nodes"][0]["pods"]] == [
        "default/pair-0", "default/pair-1"]
