"""Compare's server side: two stored runs of one cluster diffed, runs labelled with their
profile, and the size a comparison accepts."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User

from playground.profiles import services as profile_services
from playground.profiles.services import profile_update
from playground.runs.services import run_create
from tests.api.conftest import finish_run, import_fixture

pytestmark = pytest.mark.django_db

BIN_PACK = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
            "profiles": [{"schedulerName": "default-scheduler", "pluginConfig": [
                {"name": "NodeResourcesFit",
                 "args": {"scoringStrategy": {"type": "MostAllocated"}}}]}]}


@pytest.fixture
def carol(client):
    user = User.objects.create_user("carol", password="carol-password-1")
    client.force_login(user)
    return user


def finished(cluster, owner, seed=1):
    run = run_create(cluster=cluster, seed=seed, owner=owner)
    cycles = finish_run(run)
    # What the run executor keeps of a run's end: every pod and the node it is bound to.
    run.result = {"bindings": {c["pod"]: c.get("node") for c in cycles if c["outcome"] == "Bound"}}
    run.save()
    return run


def test_two_runs_of_one_cluster_are_diffed_with_their_profiles(client, carol):
    cluster = import_fixture(carol, "gpu-cluster.yaml")
    spread = finished(cluster, carol)
    profile_update(cluster=cluster, config=BIN_PACK)
    packed = finished(cluster, carol)
    data = client.get(f"/api/runs/compare/?a={spread.pk}&b={packed.pk}").json()
    a, b = data["a"], data["b"]
    assert a["run"]["profile"] != b["run"]["profile"]
    assert a["run"]["profile"].startswith("default-scheduler · ")
    assert set(a["bindings"]) == set(b["bindings"]) and all(b["bindings"].values())
    assert any(a["bindings"][p] != b["bindings"][p] for p in a["bindings"])
    # Bin-packing fills fewer nodes, and each node's usage adds up its pods' requests.
    used = {s: sum(1 for u in r["usage"].values() if u["pods"][0]) for s, r in data.items()}
    assert used["b"] < used["a"]
    for side in (a, b):
        assert sum(u["pods"][0] for u in side["usage"].values()) == len(side["bindings"])
        assert all(u["cpu"][0] <= u["cpu"][1] for u in side["usage"].values())
    # The runs list says which profile each run used.
    rows = {r["id"]: r["profile"] for r in client.get("/api/runs/?page_size=50").json()["results"]}
    assert rows[spread.pk] == a["run"]["profile"] and rows[packed.pk] == b["run"]["profile"]


def test_same_profile_reads_the_same(client, carol):
    cluster = import_fixture(carol, "gpu-cluster.yaml")
    first = run_create(cluster=cluster, seed=1, owner=carol)
    second = run_create(cluster=cluster, seed=2, owner=carol)
    rows = {r["id"]: r["profile"] for r in client.get("/api/runs/").json()["results"]}
    assert rows[first.pk] == rows[second.pk]


def test_runs_of_two_clusters_or_bad_ids_get_a_clear_answer(client, carol):
    one = run_create(cluster=import_fixture(carol, "gpu-cluster.yaml"), seed=1,
                              owner=carol)
    two = run_create(cluster=import_fixture(carol, "taints-affinity.yaml"), seed=1,
                              owner=carol)
    response = client.get(f"/api/runs/compare/?a={one.pk}&b={two.pk}")
    assert response.status_code == 400
    [message] = response.json()["detail"]
    assert "different clusters" in message
    response = client.get(f"/api/runs/compare/?a={one.pk}&b=x")
    assert response.status_code == 400
    assert response.json() == {"b": ["compare needs two run ids: ?a=<id>&b=<id>"]}
    other = User.objects.create_user("dave", password="dave-password-1")
    hidden = run_create(cluster=import_fixture(other, "gpu-cluster.yaml"), seed=1,
                                 owner=other)
    assert client.get(f"/api/runs/compare/?a={one.pk}&b={hidden.pk}").status_code == 404


def test_compare_names_its_limit_when_a_cluster_is_over_it(client, carol, monkeypatch):
    assert profile_services.COMPARE_MAX_NODES == 5000
    cluster = import_fixture(carol, "gpu-cluster.yaml")
    monkeypatch.setattr(profile_services, "COMPARE_MAX_NODES", 10)
    response = client.post(f"/api/clusters/{cluster.pk}/compare/", json.dumps({"a": None}),
                           content_type="application/json")
    assert response.status_code == 413
    [message] = response.json()["detail"]
    assert "up to 10 nodes" in message
