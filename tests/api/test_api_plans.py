"""/api/clusters/{id}/plans/ and /api/plans/{id}/: capacity plans as background tasks."""
import pytest
import yaml
from django.test import override_settings

from playground.whatif.models import PlanJob
from tests.helpers import import_cluster

HOST = "kubernetes.io/hostname"


def node(name: str, cpu: str) -> dict:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {HOST: name}},
            "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "110"}}}


def pod(name: str, cpu: str, **spec) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "c", "image": "pause", "resources": {
                "requests": {"cpu": cpu}}}], **spec}}


@pytest.fixture
def small(alice):
    docs = [node("n0", "2"), *(pod(f"p{i}", "1") for i in range(5)),
            pod("ssd", "1", nodeSelector={"disk": "ssd"})]
    return import_cluster(alice, "small.yaml", text=yaml.safe_dump_all(docs))


TEMPLATE = yaml.safe_dump({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "extra"},
                           "status": {"allocatable": {"cpu": "2", "memory": "8Gi",
                                                      "pods": "110"}}})


@override_settings(PLAYGROUND_TASKS_SYNC=True)
def test_a_plan_runs_in_the_background_and_reports_each_trial(
        api, small, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(f"/api/clusters/{small.pk}/plans/",
                            {"template": TEMPLATE, "maxNodes": 10}, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["status"] == "queued"
    job = api.get(f"/api/plans/{response.json()['id']}/").json()
    assert job["status"] == "done", job
    assert job["result"]["nodesToAdd"] == 2
    assert [p["pod"] for p in job["result"]["stillPending"]] == ["default/ssd"]
    # The first guess (3 cpu beyond the node's 2 free, 2 per copy) is run first.
    assert job["progress"][0] == {"phase": "grow", "trials": 1, "nodes": 2, "bound": 5,
                                  "pending": 1}
    assert job["result"]["warnings"] == []
    assert job["progress"][-1]["phase"] == "capacity"
    listed = api.get(f"/api/clusters/{small.pk}/plans/").json()
    assert [j["id"] for j in listed] == [job["id"]]


@override_settings(PLAYGROUND_TASKS_SYNC=True)
def test_the_templates_warnings_are_in_the_answer_once(
        api, small, django_capture_on_commit_callbacks):
    template = yaml.safe_load(TEMPLATE)
    template["spec"] = {"unschedulabel": True}
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(f"/api/clusters/{small.pk}/plans/",
                            {"template": yaml.safe_dump(template), "maxNodes": 10}, format="json")
    job = api.get(f"/api/plans/{response.json()['id']}/").json()
    assert job["status"] == "done", job
    assert job["result"]["nodesToAdd"] == 2
    assert job["result"]["warnings"] == [
        'template: document 1: Node extra: unknown field "spec.unschedulabel"']


@pytest.mark.parametrize("body, field, message", [
    ({"template": ""}, "template", "give the template Node as YAML or JSON"),
    ({"template": "kind: Pod\napiVersion: v1\nmetadata: {name: p}\n"}, "template",
     "template: field kind: a node template is exactly one Node document, found 1 Pod"),
    ({"template": yaml.safe_dump(node("extra", "2x"))}, "template",
     "template: document 1: Node extra: field status.allocatable.cpu: quantities must match"),
    ({"template": TEMPLATE, "maxNodes": 0}, "maxNodes", "must be a whole number from 1 to 1000"),
    ({"template": TEMPLATE.replace("extra", "n"), "maxNodes": 3}, "template",
     'template: Node n: field metadata.name: copies of the template would be named like node '
     '"n-1"'),
])
def test_bad_input_is_a_400_by_field_and_nothing_is_stored(api, alice, body, field, message):
    docs = [node("n0", "2"), node("n-1", "2"), pod("p", "1")]
    cluster = import_cluster(alice, "c.yaml", text=yaml.safe_dump_all(docs))
    response = api.post(f"/api/clusters/{cluster.pk}/plans/", body, format="json")
    assert response.status_code == 400
    (got,) = response.json()[field]
    assert got.startswith(message)
    assert PlanJob.objects.count() == 0


def test_other_users_plans_are_not_found(api, bob_api, small):
    job = PlanJob.objects.create(cluster=small, owner=small.owner, template={}, max_nodes=1)
    assert bob_api.get(f"/api/plans/{job.pk}/").status_code == 404
    assert api.get(f"/api/plans/{job.pk}/").status_code == 200
