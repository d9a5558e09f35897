"""Models: denormalized columns computed in save(), constraints in the database."""

import pytest
from django.db import IntegrityError, transaction

from playground.clusters.models import (
    Cluster,
    ExtraObject,
    Node,
    PersistentVolumeClaim,
    Pod,
    PriorityClass,
)
from playground.runs.models import CycleRecord, Run, RunDocuments


@pytest.fixture
def empty(alice):
    return Cluster.objects.create(owner=alice, name="c")


def _pod(name, namespace="default", **spec):
    return {"kind": "Pod", "metadata": {"name": name, "namespace": namespace},
            "spec": {"containers": [{"name": "c", "resources": {
                "requests": {"cpu": "1500m", "memory": "1Gi"}}}], **spec}}


def test_node_columns_are_computed_on_save(empty):
    node = Node.objects.create(cluster=empty, manifest={
        "kind": "Node", "metadata": {"name": "n"}, "spec": {"unschedulable": True},
        "status": {"allocatable": {"cpu": "3500m", "memory": "2Gi", "pods": "17"}}})
    node.refresh_from_db()
    assert (node.name, node.unschedulable, node.cpu_milli, node.memory_bytes,
            node.pods_allocatable) == ("n", True, 3500, 2 * 1024**3, 17)


def test_pod_columns_follow_the_engine(empty):
    PriorityClass.objects.create(cluster=empty, manifest={
        "kind": "PriorityClass", "metadata": {"name": "hi"}, "value": 99})
    pod = Pod.objects.create(cluster=empty, manifest=_pod(
        "p", "ns", nodeName="n", schedulerName="other", priorityClassName="hi",
        initContainers=[{"name": "init", "resources": {"requests": {"cpu": "4"}}}]))
    pod.refresh_from_db()
    # PodRequests: the larger of the containers' sum and each init container.
    assert (pod.namespace, pod.node_name, pod.phase, pod.priority, pod.cpu_request_milli,
            pod.memory_request_bytes, pod.scheduler_name) == (
        "ns", "n", "Running", 99, 4000, 1024**3, "other")


def test_a_pods_phase_comes_from_its_status(empty):
    pod = Pod.objects.create(cluster=empty, manifest={**_pod("p"),
                                                      "status": {"phase": "Succeeded"}})
    assert pod.phase == "Succeeded"
    assert Pod.objects.create(cluster=empty, manifest=_pod("q")).phase == "Pending"


def test_saving_a_priority_class_updates_the_pods_priorities(empty):
    pc = PriorityClass.objects.create(cluster=empty, manifest={
        "kind": "PriorityClass", "metadata": {"name": "hi"}, "value": 1})
    pod = Pod.objects.create(cluster=empty, manifest=_pod("p", priorityClassName="hi"))
    pc.manifest["value"] = 50
    pc.save()
    pod.refresh_from_db()
    assert pod.priority == 50
    default = PriorityClass.objects.create(cluster=empty, manifest={
        "kind": "PriorityClass", "metadata": {"name": "d"}, "value": 3, "globalDefault": True})
    other = Pod.objects.create(cluster=empty, manifest=_pod("q"))
    assert other.priority == 3
    default.delete()
    other.refresh_from_db()
    assert other.priority == 0


def test_a_dangling_priority_class_leaves_priority_zero(empty):
    assert Pod.objects.create(cluster=empty,
                              manifest=_pod("p", priorityClassName="gone")).priority == 0


@pytest.mark.parametrize(
    ("model", "first", "second", "clash"),
    [
        (Node, {"kind": "Node", "metadata": {"name": "n"}},
         {"kind": "Node", "metadata": {"name": "n"}}, True),
        (Pod, _pod("p", "a"), _pod("p", "a"), True),
        (Pod, _pod("p", "a"), _pod("p", "b"), False),
        (PersistentVolumeClaim, {"kind": "PersistentVolumeClaim", "metadata": {"name": "c"}},
         {"kind": "PersistentVolumeClaim", "metadata": {"name": "c", "namespace": "default"}},
         True),
        (ExtraObject, {"kind": "CSINode", "metadata": {"name": "n"}},
         {"kind": "CSINode", "metadata": {"name": "n"}}, True),
        (ExtraObject, {"kind": "PodGroup", "metadata": {"name": "n"}},
         {"kind": "Service", "metadata": {"name": "n"}}, False),
    ],
    ids=["node name", "pod in one namespace", "pods in two namespaces",
         "claim with default namespace", "csinode", "same name of two kinds"],
)
def test_names_are_unique_per_cluster_and_namespace_in_the_database(empty, model, first,
                                                                    second, clash):
    model.objects.create(cluster=empty, manifest=first)
    if clash:
        with pytest.raises(IntegrityError), transaction.atomic():
            model.objects.create(cluster=empty, manifest=second)
    else:
        model.objects.create(cluster=empty, manifest=second)


def test_a_cluster_name_is_unique_per_owner(alice, bob, empty):
    Cluster.objects.create(owner=bob, name="c")
    with pytest.raises(IntegrityError), transaction.atomic():
        Cluster.objects.create(owner=alice, name="c")


def test_a_cycle_index_is_unique_per_run(alice, empty):
    run = Run.objects.create(cluster=empty, owner=alice, config={}, documents=[])
    CycleRecord.objects.create(run=run, index=0, pod="a/b", outcome="Bound", trace={})
    with pytest.raises(IntegrityError), transaction.atomic():
        CycleRecord.objects.create(run=run, index=0, pod="a/c", outcome="Bound", trace={})


def test_deleting_a_cluster_deletes_everything_in_it(alice, empty):
    Node.objects.create(cluster=empty, manifest={"kind": "Node", "metadata": {"name": "n"}})
    run = Run.objects.create(cluster=empty, owner=alice, config={}, documents=[])
    CycleRecord.objects.create(run=run, index=0, pod="a/b", outcome="Bound", trace={})
    empty.delete()
    assert not (Node.objects.exists() or Run.objects.exists() or CycleRecord.objects.exists())


def test_a_run_gives_its_documents_as_loader_sources(alice, empty):
    run = Run.objects.create(cluster=empty, owner=alice, config={}, documents=[{"kind": "Node"}])
    assert run.sources() == [(f"run {run.pk}", [{"kind": "Node"}])]


def test_a_runs_documents_are_a_row_of_their_own_read_on_first_use(alice, empty):
    run = Run.objects.create(cluster=empty, owner=alice, config={}, documents=[{"kind": "Node"}])
    assert RunDocuments.objects.get(run=run).documents == [{"kind": "Node"}]
    read = Run.objects.get(pk=run.pk)
    assert not read.documents_loaded
    assert read.documents == [{"kind": "Node"}]
    # Saved again with the row when set; the row's own saves leave them alone.
    read.documents = [{"kind": "Node"}, {"kind": "Pod"}]
    read.save(update_fields=["updated"])
    Run.objects.get(pk=run.pk).save()
    assert Run.objects.get(pk=run.pk).documents == [{"kind": "Node"}, {"kind": "Pod"}]
    # A refreshed run reads them again (a run action may have changed them).
    run.refresh_from_db()
    assert run.documents == [{"kind": "Node"}, {"kind": "Pod"}]
    run.delete()
    assert not RunDocuments.objects.exists()
