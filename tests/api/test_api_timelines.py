"""/api/clusters/{id}/timelines/, /api/runs/{id}/actions/ and /api/runs/{id}/timeline/."""

import pytest

from playground.clusters.services import (
    cluster_clone,
    cluster_export,
    cluster_import,
    cluster_manifests,
)
from playground.runs.models import Run
from playground.runs.services import run_create
from playground.timelines.models import Timeline

from .conftest import finish_run, import_fixture

CORDON = {"at": 30, "action": "Cordon", "node": "gpu-node-1"}


def url(cluster, pk=None):
    base = f"/api/clusters/{cluster.pk}/timelines/"
    return f"{base}{pk}/" if pk else base


def first_node(cluster) -> str:
    return next(m["metadata"]["name"] for m in cluster_manifests(cluster)
                if m.get("kind") == "Node")


def test_create_list_update_and_delete(api, cluster):
    step = {**CORDON, "node": first_node(cluster)}
    created = api.post(url(cluster), {"name": "maintenance", "steps": [step]}, format="json")
    assert created.status_code == 201, created.json()
    pk = created.json()["id"]
    assert api.get(url(cluster)).json()[0]["steps"] == [step]
    text = f"- at: 10\n  action: Uncordon\n  node: {step['node']}\n"
    replaced = api.put(url(cluster, pk), {"name": "later", "text": text}, format="json")
    assert replaced.status_code == 200, replaced.json()
    assert replaced.json()["steps"] == [{"at": 10, "action": "Uncordon", "node": step["node"]}]
    assert api.delete(url(cluster, pk)).status_code == 204
    assert not Timeline.objects.exists()


@pytest.mark.parametrize("step,words", [
    pytest.param({"at": -1, "action": "Cordon", "node": "x"},
                 "field spec.steps[0].at: Invalid value: -1", id="negative time"),
    pytest.param({"at": 1, "action": "Create", "object": {"kind": "Gizmo",
                                                          "metadata": {"name": "g"}}},
                 'field spec.steps[0].object.kind: Unsupported value: "Gizmo"', id="unknown kind"),
    pytest.param({"at": 1, "action": "Cordon", "node": "missing"},
                 'field spec.steps[0].node: node "missing" does not exist', id="missing node"),
    pytest.param({"at": 1, "action": ["Cordon"], "node": "x"},
                 "field spec.steps[0].action: Unsupported value", id="action list"),
    pytest.param({"at": 1, "action": "Create", "object": {"apiVersion": "v1", "kind": "Node",
                                                          "metadata": ["g"]}},
                 "field spec.steps[0].object.metadata: Invalid value", id="metadata list"),
])
def test_a_bad_step_is_a_400_naming_index_and_field_and_nothing_is_stored(api, cluster, step,
                                                                          words):
    response = api.post(url(cluster), {"name": "bad", "steps": [step]}, format="json")
    assert response.status_code == 400
    assert words in response.json()["steps"][0]
    assert not Timeline.objects.exists()


def test_a_shared_cluster_is_read_only_to_others(api, shared_cluster):
    response = api.post(url(shared_cluster), {"name": "t", "steps": []}, format="json")
    assert response.status_code == 403
    assert api.get(url(shared_cluster)).status_code == 200


def test_a_run_takes_the_clusters_timelines(api, alice):
    cluster = import_fixture(alice, "taints-affinity.yaml", cluster_name="t")
    node = first_node(cluster)
    api.post(url(cluster), {"name": "m", "steps": [{**CORDON, "node": node}]}, format="json")
    run = run_create(cluster=cluster, seed=1, owner=alice)
    assert run.documents[-1]["kind"] == "Timeline"
    finish_run(run)
    recorded = api.get(f"/api/runs/{run.pk}/timeline/").json()
    assert [s["action"] for s in recorded["steps"]] == ["Cordon"]
    assert recorded["samples"] and recorded["timings"]


def test_an_action_on_a_paused_run_is_recorded_as_a_step(api, alice):
    cluster = import_fixture(alice, "taints-affinity.yaml", cluster_name="t")
    run = run_create(cluster=cluster, seed=1, owner=alice)
    run.status = Run.PAUSED
    run.save()
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "extra"},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
    response = api.post(f"/api/runs/{run.pk}/actions/",
                        {"step": {"action": "Create", "object": node}}, format="json")
    assert response.status_code == 201, response.json()
    run.refresh_from_db()
    actions = run.documents[-1]
    assert actions["metadata"]["name"] == "run-actions"
    assert actions["spec"]["steps"] == [{"action": "Create", "object": node, "at": 0.0,
                                         "afterCycle": 0}]
    bad = api.post(f"/api/runs/{run.pk}/actions/",
                   {"step": {"action": "Cordon", "node": "nowhere"}}, format="json")
    assert bad.status_code == 400
    assert "spec.steps[1].node" in bad.json()["step"][0]
    run.refresh_from_db()
    assert len(run.documents[-1]["spec"]["steps"]) == 1


def test_an_action_on_a_running_run_is_a_409(api, alice):
    cluster = import_fixture(alice, "taints-affinity.yaml", cluster_name="t")
    run = run_create(cluster=cluster, seed=1, owner=alice)
    run.status = Run.FINISHED
    run.save()
    response = api.post(f"/api/runs/{run.pk}/actions/",
                        {"step": {"action": "Cordon", "node": first_node(cluster)}},
                        format="json")
    assert response.status_code == 409


def test_export_clone_and_reimport_keep_the_timelines(api, cluster):
    step = {**CORDON, "node": first_node(cluster)}
    api.post(url(cluster), {"name": "maintenance", "steps": [step]}, format="json")
    exported = cluster_export(cluster=cluster)
    assert "kind: Timeline" in exported
    clone = cluster_clone(cluster=cluster, owner=cluster.owner, name="copy")
    assert [t.steps for t in clone.timelines.all()] == [[step]]
    again, _ = cluster_import(owner=cluster.owner, name="again",
                                       files=[("export.yaml", exported)])
    assert cluster_export(cluster=again) == exported
