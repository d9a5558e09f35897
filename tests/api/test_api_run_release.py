"""A run follows a kube-scheduler release: `release` on create (400 by field on a bad one),
on the run, and in the engine the run's session builds (issue 26)."""
import pytest

from playground.runs.models import Run
from playground.runs.sessions import new_session


def _create(api, cluster, **extra):
    return api.post("/api/runs/", {"cluster": cluster.pk, **extra}, format="json")


def test_a_run_follows_the_newest_release_by_default(api, cluster):
    body = _create(api, cluster).json()
    assert body["release"] == "1.37"
    assert Run.objects.get(pk=body["id"]).release == "1.37"


@pytest.mark.parametrize("release", ["1.34", "1.35", "1.36", "1.37"])
def test_a_run_follows_the_release_it_was_created_with(api, cluster, release):
    body = _create(api, cluster, release=release).json()
    assert body["release"] == release
    session = new_session(Run.objects.get(pk=body["id"]))
    assert session.scheduler.features.release == release


@pytest.mark.parametrize("release", ["1.33", "x", ""])
def test_another_release_is_refused_by_field(api, cluster, release):
    response = _create(api, cluster, release=release)
    assert response.status_code == 400
    assert response.json() == {"release": [
        f'"{release}" is not a release the engine follows; accepted: 1.34, 1.35, 1.36, 1.37']}


def test_the_release_decides_the_default_profile_of_the_run(api, cluster):
    old = new_session(Run.objects.get(pk=_create(api, cluster, release="1.35").json()["id"]))
    new = new_session(Run.objects.get(pk=_create(api, cluster, release="1.37").json()["id"]))
    assert "NodeDeclaredFeatures" not in old.scheduler.frameworks["default-scheduler"].instances
    assert "NodeDeclaredFeatures" in new.scheduler.frameworks["default-scheduler"].instances


@pytest.mark.parametrize("release,declared", [("1.35", False), ("1.37", True)])
def test_the_profile_check_follows_the_release(api, release, declared):
    body = api.post("/api/profiles/check/", {"config": None, "release": release},
                    format="json").json()
    assert body["ok"]
    filters = body["profiles"][0]["points"]["filter"]
    assert ("NodeDeclaredFeatures" in filters) == declared


def test_a_check_with_another_release_is_refused_by_field(api):
    response = api.post("/api/profiles/check/", {"release": "2.0"}, format="json")
    assert response.status_code == 400
    assert list(response.json()) == ["release"]


def test_compare_runs_each_side_under_its_release(api, cluster):
    body = api.post(f"/api/clusters/{cluster.pk}/compare/",
                    {"release_a": "1.34", "release_b": "1.37", "seed": 1}, format="json").json()
    assert (body["a"]["release"], body["b"]["release"]) == ("1.34", "1.37")
    assert body["a"]["warnings"] == body["b"]["warnings"] == []


def test_compare_refuses_a_bad_release_naming_its_side(api, cluster):
    response = api.post(f"/api/clusters/{cluster.pk}/compare/", {"release_b": "1.30"},
                        format="json")
    assert response.status_code == 400
    assert response.json() == {"release_b": [
        '"1.30" is not a release the engine follows; accepted: 1.34, 1.35, 1.36, 1.37']}


def test_the_check_under_v1_34_refuses_a_plugin_that_release_lacks(api):
    config = {"profiles": [{"schedulerName": "default-scheduler", "plugins": {
        "multiPoint": {"enabled": [{"name": "NodeDeclaredFeatures"}]}}}]}
    old = api.post("/api/profiles/check/", {"config": config, "release": "1.34"},
                   format="json").json()
    new = api.post("/api/profiles/check/", {"config": config, "release": "1.37"},
                   format="json").json()
    assert not old["ok"] and 'NodeDeclaredFeatures" does not exist' in old["errors"][0]
    assert new["ok"]
