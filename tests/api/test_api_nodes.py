"""/api/clusters/{id}/nodes/: computed columns, filters, validation, the node limit."""

from playground.clusters.models import Node


def _node(name, **status):
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"allocatable": status or {"cpu": "4", "memory": "8Gi", "pods": "110"}}}


def test_the_columns_come_from_the_manifest(api, cluster):
    node = api.get(f"/api/clusters/{cluster.pk}/nodes/").json()["results"][0]
    assert node["name"] == "cpu-node-1"
    assert node["cpu_milli"] == 7800
    assert node["memory_bytes"] == 30 * 1024**3
    assert node["pods_allocatable"] == 110
    assert node["unschedulable"] is False


def test_replacing_the_manifest_recomputes_the_columns(api, cluster):
    row = Node.objects.filter(cluster=cluster).first()
    manifest = {**row.manifest, "spec": {"unschedulable": True},
                "status": {"allocatable": {"cpu": "500m", "memory": "1Mi", "pods": "3"}}}
    response = api.put(f"/api/clusters/{cluster.pk}/nodes/{row.pk}/", {"manifest": manifest},
                       format="json")
    assert response.status_code == 200
    row.refresh_from_db()
    assert (row.unschedulable, row.cpu_milli, row.memory_bytes, row.pods_allocatable) == (
        True, 500, 1024**2, 3)


def test_it_filters_by_unschedulable_and_name(api, cluster):
    api.post(f"/api/clusters/{cluster.pk}/nodes/",
             {"manifest": {**_node("cordoned"), "spec": {"unschedulable": True}}}, format="json")
    cordoned = api.get(f"/api/clusters/{cluster.pk}/nodes/?unschedulable=true").json()
    assert [n["name"] for n in cordoned["results"]] == ["cordoned"]
    gpu = api.get(f"/api/clusters/{cluster.pk}/nodes/?search=gpu").json()
    assert gpu["count"] == 6


def test_it_paginates(api, cluster):
    page = api.get(f"/api/clusters/{cluster.pk}/nodes/?page_size=4&page=4").json()
    assert page["count"] == 15
    assert [n["name"] for n in page["results"]] == ["gpu-node-4", "gpu-node-5", "gpu-node-6"]
    assert page["next"] is None


def test_it_rejects_a_bad_quantity_with_its_field_path(api, cluster):
    response = api.post(f"/api/clusters/{cluster.pk}/nodes/",
                        {"manifest": _node("bad", cpu="four")}, format="json")
    assert response.status_code == 400
    body = response.json()
    assert list(body) == ["manifest.status.allocatable.cpu"]
    assert body["manifest.status.allocatable.cpu"][0].startswith(
        "quantities must match the regular expression")


def test_it_rejects_a_quantity_too_large_to_store(api, cluster):
    response = api.post(f"/api/clusters/{cluster.pk}/nodes/",
                        {"manifest": _node("huge", cpu="1e30")}, format="json")
    assert response.status_code == 400
    assert response.json()["manifest.status.allocatable.cpu"] == [
        "must be no more than 9223372036854775807: '1e30'"]


def test_a_node_over_the_limit_is_413(api, cluster, settings):
    settings.PLAYGROUND_MAX_NODES = 15
    response = api.post(f"/api/clusters/{cluster.pk}/nodes/", {"manifest": _node("16th")},
                        format="json")
    assert response.status_code == 413
    assert "PLAYGROUND_MAX_NODES" in response.json()["files"][0]
