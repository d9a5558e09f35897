"""/api/clusters/{id}/export/: YAML that imports to the same cluster, byte-stable."""

import json
import re

import pytest
import yaml

from playground.clusters.models import OBJECT_MODELS
from playground.clusters.services import cluster_export, fixture_description
from scheduler_core.simulate import simulate
from tests.api.conftest import FIXTURES, fixture_text, import_fixture

FIXTURE_NAMES = sorted(p.name for p in FIXTURES.glob("*.yaml"))


def _contents(cluster):
    """Every object's kind and manifest, in order, plus the profile."""
    objects = [(m.__name__, list(m.objects.filter(cluster=cluster).order_by("id")
                                 .values_list("manifest", flat=True))) for m in OBJECT_MODELS]
    return objects, cluster.profile.config


def _export(api, cluster) -> str:
    response = api.get(f"/api/clusters/{cluster.pk}/export/")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/yaml")
    return b"".join(response.streaming_content).decode()


@pytest.mark.parametrize("fixture", FIXTURE_NAMES)
def test_export_round_trips_every_fixture_byte_for_byte(api, alice, fixture):
    original = import_fixture(alice, fixture, cluster_name="original")
    first = _export(api, original)
    response = api.post("/api/clusters/import/",
                        {"name": "again", "files": [{"name": "export.yaml", "text": first}]},
                        format="json")
    assert response.status_code == 201, response.json()
    again = original.__class__.objects.get(pk=response.json()["cluster"]["id"])
    assert _export(api, again) == first
    assert _contents(again) == _contents(original)
    assert again.description == original.description


def _objects_warned(warnings: list[str]) -> list[str]:
    """The warnings without their `FILE: document N: ` prefix."""
    return [re.sub(r"^.*?: document \d+(?: item \d+)?: ", "", w) for w in warnings]


@pytest.mark.parametrize("fixture", ["gpu-cluster.yaml", "preemption-lesson.yaml",
                                     "taints-affinity.yaml", "spread-antiaffinity.yaml",
                                     "storage-lesson.yaml"])
def test_the_export_schedules_exactly_as_the_fixture(api, alice, tmp_path, fixture):
    exported = tmp_path / "export.yaml"
    exported.write_text(_export(api, import_fixture(alice, fixture)))
    ours = simulate([str(exported)], seed=7).to_json()
    theirs = simulate([str(FIXTURES / fixture)], seed=7).to_json()
    # A warning names its file and document, which the export renumbers: the rest is equal.
    assert _objects_warned(ours.pop("warnings")) == _objects_warned(theirs.pop("warnings"))
    assert json.dumps(ours) == json.dumps(theirs)


def test_the_export_is_a_profile_then_objects(api, cluster):
    docs = list(yaml.safe_load_all(_export(api, cluster)))
    assert docs[0]["kind"] == "KubeSchedulerConfiguration"
    kinds = [d["kind"] for d in docs[1:]]
    assert kinds == ["Node"] * 15 + ["Pod"] * 20
    assert list(docs[1]) == ["apiVersion", "kind", "metadata", "status"]


def test_the_export_carries_the_description_header(api, cluster):
    text = _export(api, cluster)
    assert text.splitlines()[0] == f"# description: {cluster.description}"
    assert fixture_description(text) == cluster.description


def test_the_export_names_the_download(api, cluster):
    response = api.get(f"/api/clusters/{cluster.pk}/export/")
    assert response["Content-Disposition"] == 'attachment; filename="gpu.yaml"'


def test_a_shared_cluster_of_another_user_can_be_exported(api, shared_cluster):
    assert _export(api, shared_cluster).count("kind: Node") == 5


def test_it_rejects_other_users_cluster(api, bobs_cluster):
    assert api.get(f"/api/clusters/{bobs_cluster.pk}/export/").status_code == 404


def test_it_rejects_anonymous_users(anon, shared_cluster):
    assert anon.get(f"/api/clusters/{shared_cluster.pk}/export/").status_code in (401, 403)


def test_the_fixture_and_its_export_hold_the_same_objects(alice):
    cluster = import_fixture(alice, "storage-lesson.yaml")
    exported = list(yaml.safe_load_all(cluster_export(cluster=cluster)))
    original = list(yaml.safe_load_all(fixture_text("storage-lesson.yaml")))
    key = lambda d: (d["kind"], d["metadata"].get("namespace", ""), d["metadata"]["name"])  # noqa: E731
    assert sorted(map(key, exported[1:])) == sorted(map(key, original))
