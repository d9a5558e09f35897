"""/api/runs/{id}/view/: the run page's first view in one response, and its state refresh."""

from playground.runs import sessions as run_sessions
from playground.runs.models import Run
from playground.runs.services import run_create

from .conftest import import_fixture


def test_the_first_view_has_the_row_state_objects_and_cycles(api, finished_run):
    run_sessions.sessions.clear()  # a process that never ran it: the replay is read once
    view = api.get(f"/api/runs/{finished_run.pk}/view/").json()
    assert view["run"]["id"] == finished_run.pk
    assert view["run"]["cycle_count"] == finished_run.cycle_count == view["state"]["cycles"]
    assert view["run"]["canControl"] is True
    # Every node (the socket's snapshot is capped), and the objects the tooltips read.
    assert len(view["state"]["nodes"]) == view["state"]["nodeCount"] == 5
    assert view["state"]["bindings"]["default/web-ssd"] == "node-a"
    assert view["objects"] == api.get(f"/api/runs/{finished_run.pk}/objects/").json()
    assert view["timeline"] == api.get(f"/api/runs/{finished_run.pk}/history/").json()["cycles"]


def test_the_state_part_leaves_the_objects_and_cycles_out(api, finished_run):
    view = api.get(f"/api/runs/{finished_run.pk}/view/?part=state").json()
    assert set(view) == {"run", "state", "cycles"}
    assert view["state"]["cycles"] == finished_run.cycle_count


def test_a_watcher_may_not_drive_and_others_do_not_see_it(bob_api, alice):
    shared = import_fixture(alice, cluster_name="shared", shared=True)
    run = run_create(cluster=shared, seed=0, owner=alice)
    assert bob_api.get(f"/api/runs/{run.pk}/view/").json()["run"]["canControl"] is False
    mine = run_create(cluster=import_fixture(alice, cluster_name="mine"), seed=0,
                               owner=alice)
    assert bob_api.get(f"/api/runs/{mine.pk}/view/").status_code == 404
    assert Run.objects.count() == 2


def test_a_session_built_from_a_run_read_without_its_documents_reads_them_afresh(finished_run):
    deferred = Run.objects.get(pk=finished_run.pk)  # its documents are read on first use
    assert not deferred.documents_loaded
    sources = run_sessions.engine_sources(deferred)
    assert not deferred.documents_loaded
    assert sources == Run.objects.get(pk=finished_run.pk).sources()
    # A copy of its own: the engine writes into what it loads.
    sources[0][1][0]["metadata"]["name"] = "changed"
    assert run_sessions.engine_sources(deferred) != sources


def test_a_node_a_timeline_adds_is_described_with_its_labels_among_the_added_nodes(api, alice):
    """node-failure-lesson's Timeline creates node-d in zone-b: the run view's objects describe
    it (labels, allocatable) for when it appears in the state; the documents' nodes do not
    list it."""
    cluster = import_fixture(alice, "node-failure-lesson.yaml", cluster_name="failing")
    run = run_create(cluster=cluster, seed=1, owner=alice)
    objects = api.get(f"/api/runs/{run.pk}/view/").json()["objects"]
    assert "node-d" not in objects["nodes"]
    added = objects["addedNodes"]["node-d"]
    assert added["labels"] == {"kubernetes.io/hostname": "node-d",
                               "topology.kubernetes.io/zone": "zone-b"}
    assert added["allocatable"]["cpu"] == 4000 and added["unschedulable"] is False
