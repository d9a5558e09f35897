"""Per-user quotas (403, as a ResourceQuota refuses) and the 429 throttles with Retry-After."""

import pytest
from django.core.cache import cache
from django.test import Client
from rest_framework.throttling import ScopedRateThrottle

from playground.clusters.models import Cluster
from playground.quotas import stored_bytes
from playground.runs.models import Run
from playground.runs.services import run_create
from tests.api.conftest import import_fixture

NODE = ("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
        "status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}\n")


@pytest.fixture(autouse=True)
def _fresh_throttles():
    cache.clear()
    yield
    cache.clear()


def test_the_cluster_quota_refuses_one_more(api, alice, settings):
    settings.PLAYGROUND_QUOTA_CLUSTERS = 2
    for name in ("one", "two"):
        assert api.post("/api/clusters/", {"name": name}, format="json").status_code == 201
    response = api.post("/api/clusters/", {"name": "three"}, format="json")
    assert response.status_code == 403
    assert response.json() == {"name": [
        "exceeded quota: clusters: used 2, limited to 2 (PLAYGROUND_QUOTA_CLUSTERS)"]}
    assert Cluster.objects.filter(owner=alice).count() == 2


def test_the_cluster_quota_applies_to_import_and_clone(api, cluster, settings):
    settings.PLAYGROUND_QUOTA_CLUSTERS = 1
    imported = api.post("/api/clusters/import/", {
        "name": "more", "files": [{"name": "n.yaml", "text": NODE}]}, format="json")
    clone = api.post(f"/api/clusters/{cluster.pk}/clone/", {}, format="json")
    assert (imported.status_code, clone.status_code) == (403, 403)


def test_the_nodes_per_cluster_quota(api, cluster, settings):
    settings.PLAYGROUND_MAX_NODES = cluster.node_set.count()
    response = api.post(f"/api/clusters/{cluster.pk}/nodes/", {"manifest": {
        "kind": "Node", "metadata": {"name": "one-more"}}}, format="json")
    assert response.status_code == 413
    assert "PLAYGROUND_MAX_NODES" in response.json()["files"][0]


def test_the_stored_bytes_quota_counts_manifests_and_refuses_an_import(api, alice, cluster,
                                                                      settings):
    used = stored_bytes(alice)
    assert used > 1000
    settings.PLAYGROUND_QUOTA_STORED_BYTES = used + 10
    response = api.post("/api/clusters/import/", {
        "name": "more", "files": [{"name": "n.yaml", "text": NODE}]}, format="json")
    assert response.status_code == 403
    assert "exceeded quota: stored bytes" in response.json()["non_field_errors"][0]
    assert not Cluster.objects.filter(name="more").exists()


def test_the_stored_bytes_quota_refuses_a_new_run(api, alice, cluster, settings):
    settings.PLAYGROUND_QUOTA_STORED_BYTES = stored_bytes(alice) + 10
    response = api.post("/api/runs/", {"cluster": cluster.pk, "seed": 1}, format="json")
    assert response.status_code == 403
    assert not Run.objects.filter(cluster=cluster).exists()


def test_the_concurrent_runs_quota(api, alice, settings):
    settings.PLAYGROUND_QUOTA_CONCURRENT_RUNS = 1
    cluster = import_fixture(alice, "taints-affinity.yaml", cluster_name="t")
    busy = run_create(cluster=cluster, seed=1, owner=alice)
    Run.objects.filter(pk=busy.pk).update(status=Run.RUNNING)
    other = run_create(cluster=cluster, seed=2, owner=alice)
    response = api.post(f"/api/runs/{other.pk}/start/")
    assert response.status_code == 403
    assert response.json() == {"non_field_errors": [
        "exceeded quota: concurrent runs: used 1, limited to 1 "
        "(PLAYGROUND_QUOTA_CONCURRENT_RUNS)"]}
    assert Run.objects.get(pk=other.pk).status == Run.CREATED


def test_run_start_is_throttled_with_retry_after(api, alice, monkeypatch):
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"run_start": "2/min"})
    cluster = import_fixture(alice, "taints-affinity.yaml", cluster_name="t")
    run = run_create(cluster=cluster, seed=1, owner=alice)
    codes = [api.post(f"/api/runs/{run.pk}/start/").status_code for _ in range(3)]
    assert codes[2] == 429 and 429 not in codes[:2]
    response = api.post(f"/api/runs/{run.pk}/start/")
    assert response.status_code == 429
    assert 1 <= int(response["Retry-After"]) <= 60


def test_failed_token_requests_lock_the_address_out(anon, alice, settings):
    settings.PLAYGROUND_SIGN_IN_FAILURES = 3
    wrong = {"username": alice.username, "password": "wrong"}
    codes = [anon.post("/api/auth/token/", wrong, format="json").status_code for _ in range(3)]
    assert codes == [400, 400, 400]
    right = anon.post("/api/auth/token/",
                      {"username": alice.username, "password": "alice-password-1"}, format="json")
    assert right.status_code == 429
    assert 1 <= int(right["Retry-After"]) <= settings.PLAYGROUND_SIGN_IN_WINDOW_SECONDS


@pytest.mark.parametrize("path", ["/login/", "/api/auth/login/"])
def test_failed_form_sign_ins_lock_the_address_out(db, alice, settings, path):
    settings.PLAYGROUND_SIGN_IN_FAILURES = 3
    client = Client()
    for _ in range(3):
        response = client.post(path, {"username": alice.username, "password": "wrong"})
        assert response.status_code == 200   # the form again, with its error
    response = client.post(path, {"username": alice.username, "password": "wrong"})
    assert response.status_code == 429
    assert int(response["Retry-After"]) >= 1
    if path.startswith("/api/"):  # JSON there, with the lockout's own words
        assert response.json()["detail"].startswith("Too many failed sign-ins; try again in")


@pytest.mark.parametrize("path", ["/login/", "/api/auth/token/"])
def test_a_locked_out_account_leaves_other_accounts_at_that_address_free(db, alice, bob, settings,
                                                                       path):
    settings.PLAYGROUND_SIGN_IN_FAILURES = 3
    client = Client()
    for _ in range(4):
        client.post(path, {"username": alice.username, "password": "wrong"})
    assert client.post(path, {"username": alice.username.upper(), "password": "wrong"}
                       ).status_code == 429
    right = client.post(path, {"username": bob.username, "password": "bob-password-1"})
    assert right.status_code in (200, 302) and right.status_code != 429
    assert client.post(path, {"username": bob.username, "password": "wrong"}).status_code != 429


def test_successful_sign_ins_are_not_counted(db, alice, settings):
    settings.PLAYGROUND_SIGN_IN_FAILURES = 2
    for _ in range(5):
        client = Client()
        response = client.post("/api/auth/login/", {"username": alice.username,
                                                    "password": "alice-password-1"})
        assert response.status_code == 302
