"""/api/clusters/{id}/pods/: computed columns, filters, priorities, validation."""

import pytest

from playground.clusters.models import Pod, PriorityClass
from playground.errors import InvalidInput
from playground.runs.services import run_create
from tests.api.conftest import import_fixture


def _pod(name, namespace=None, **spec):
    meta = {"name": name} | ({"namespace": namespace} if namespace else {})
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"containers": [{"name": "c", "image": "x", "resources": {
                "requests": {"cpu": "250m", "memory": "64Mi"}}}], **spec}}


@pytest.fixture
def lesson(alice):
    return import_fixture(alice, "preemption-lesson.yaml", cluster_name="lesson")


def test_the_columns_come_from_the_manifest(api, lesson):
    pods = {p["name"]: p for p in api.get(f"/api/clusters/{lesson.pk}/pods/").json()["results"]}
    urgent, batch = pods["urgent"], pods["batch-1"]
    assert (urgent["namespace"], urgent["node_name"], urgent["phase"]) == ("default", "",
                                                                           "Pending")
    assert urgent["priority"] == 1000
    assert urgent["cpu_request_milli"] == 3000
    assert urgent["scheduler_name"] == "default-scheduler"
    assert batch["node_name"] == "node-1" and batch["phase"] == "Running"


def test_it_filters_by_namespace_node_and_phase(api, lesson):
    api.post(f"/api/clusters/{lesson.pk}/pods/", {"manifest": _pod("other", "team")},
             format="json")
    url = f"/api/clusters/{lesson.pk}/pods/"
    assert [p["name"] for p in api.get(url + "?namespace=team").json()["results"]] == ["other"]
    on_node_1 = api.get(url + "?node=node-1").json()["results"]
    assert sorted(p["name"] for p in on_node_1) == ["batch-1", "batch-2"]
    pending = api.get(url + "?phase=Pending").json()["results"]
    assert sorted(p["name"] for p in pending) == ["other", "urgent"]
    assert api.get(url + "?scheduler_name=nope").json()["count"] == 0


def test_a_new_pod_gets_its_priority_from_the_clusters_classes(api, lesson):
    response = api.post(f"/api/clusters/{lesson.pk}/pods/",
                        {"manifest": _pod("p", priorityClassName="high")}, format="json")
    assert response.status_code == 201
    assert response.json()["priority"] == 1000


def test_a_system_priority_class_needs_no_object(api, lesson):
    response = api.post(f"/api/clusters/{lesson.pk}/pods/", {
        "manifest": _pod("p", priorityClassName="system-node-critical")}, format="json")
    assert response.json()["priority"] == 2000001000


def test_it_rejects_a_missing_priority_class(api, lesson):
    response = api.post(f"/api/clusters/{lesson.pk}/pods/",
                        {"manifest": _pod("p", priorityClassName="nope")}, format="json")
    assert response.status_code == 400
    assert response.json() == {"manifest.spec.priorityClassName": [
        'Pod default/p: field spec.priorityClassName: no PriorityClass with name '
        '"nope" was found']}


def test_changing_a_priority_class_updates_its_pods(api, lesson):
    high = PriorityClass.objects.get(cluster=lesson, name="high")
    manifest = {**high.manifest, "value": 5000}
    response = api.put(f"/api/clusters/{lesson.pk}/priorityclasses/{high.pk}/",
                       {"manifest": manifest}, format="json")
    assert response.status_code == 200
    assert Pod.objects.get(cluster=lesson, name="urgent").priority == 5000


def test_a_global_default_class_applies_to_pods_without_one(api, lesson):
    manifest = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                "metadata": {"name": "base"}, "value": 7, "globalDefault": True}
    assert api.post(f"/api/clusters/{lesson.pk}/priorityclasses/", {"manifest": manifest},
                    format="json").status_code == 201
    assert Pod.objects.get(cluster=lesson, name="batch-1").priority == 7
    assert Pod.objects.get(cluster=lesson, name="urgent").priority == 1000
    second = {**manifest, "metadata": {"name": "base-2"}}
    response = api.post(f"/api/clusters/{lesson.pk}/priorityclasses/", {"manifest": second},
                        format="json")
    assert response.status_code == 400
    assert "globalDefault" in str(response.json())


def test_deleting_a_priority_class_leaves_a_dangling_pod_for_run_creation_to_report(
        api, lesson, alice):
    high = PriorityClass.objects.get(cluster=lesson, name="high")
    assert api.delete(f"/api/clusters/{lesson.pk}/priorityclasses/{high.pk}/").status_code == 204
    with pytest.raises(InvalidInput) as caught:
        run_create(cluster=lesson, seed=0, owner=alice)
    assert 'no PriorityClass with name "high"' in caught.value.errors["cluster"][0]


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        ({"containers": []}, "manifest.spec.containers"),
        ({"containers": [{"name": "c", "resources": {"requests": {"memory": "1Zi"}}}]},
         "manifest.spec.containers[0].resources.requests.memory"),
        ({"containers": [{"name": "c"}], "priority": "high"}, "manifest.spec.priority"),
        ({"containers": [{"name": "c"}], "overhead": {"cpu": "-1"}}, "manifest.spec.overhead.cpu"),
    ],
    ids=["no containers", "bad memory", "priority not a number", "negative overhead"],
)
def test_it_rejects_an_invalid_pod_with_its_field_path(api, lesson, spec, field):
    manifest = {"kind": "Pod", "metadata": {"name": "bad"}, "spec": spec}
    response = api.post(f"/api/clusters/{lesson.pk}/pods/", {"manifest": manifest},
                        format="json")
    assert response.status_code == 400
    assert list(response.json()) == [field]


@pytest.mark.parametrize(
    ("manifest", "field"),
    [
        ({"metadata": ["x"]}, "manifest.metadata"),
        ({"metadata": {"name": 7}}, "manifest.metadata.name"),
        ({"metadata": {"name": "a", "namespace": {}}}, "manifest.metadata.namespace"),
        ({"kind": ["Pod"], "metadata": {"name": "a"}}, "manifest.kind"),
    ],
    ids=["metadata a list", "name a number", "namespace a mapping", "kind a list"],
)
def test_it_rejects_a_malformed_identity(api, lesson, manifest, field):
    response = api.post(f"/api/clusters/{lesson.pk}/pods/", {"manifest": manifest},
                        format="json")
    assert response.status_code == 400
    assert field in response.json()


def test_the_same_name_may_be_used_in_another_namespace(api, lesson):
    for namespace in ("a", "b"):
        assert api.post(f"/api/clusters/{lesson.pk}/pods/",
                        {"manifest": _pod("twin", namespace)}, format="json").status_code == 201


def test_a_pod_over_the_limit_is_413(api, lesson, settings):
    settings.PLAYGROUND_MAX_PODS = 7
    response = api.post(f"/api/clusters/{lesson.pk}/pods/", {"manifest": _pod("eighth")},
                        format="json")
    assert response.status_code == 413


def test_a_nul_character_in_a_filter_is_400(api, lesson):
    response = api.get(f"/api/clusters/{lesson.pk}/pods/?namespace=a%00b")
    assert response.status_code == 400
    assert "namespace" in response.json()
