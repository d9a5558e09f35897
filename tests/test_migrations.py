"""Migrations that move data keep it: a run's documents into their own row (0004) and back;
attendees' name keys (workshops 0003)."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("playground", "0003_cycle_packed_trace")]
AFTER = [("playground", "0004_run_documents_row")]
DOCUMENTS = [{"kind": "Node", "metadata": {"name": "n1"}}]


def migrate(target):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(target)
    return executor.loader.project_state(target).apps


@pytest.mark.django_db(transaction=True)
def test_a_runs_documents_move_to_their_own_row_and_back(alice):
    apps = migrate(BEFORE)
    cluster = apps.get_model("playground", "Cluster").objects.create(owner_id=alice.pk, name="c")
    run = apps.get_model("playground", "Run").objects.create(
        cluster=cluster, owner_id=alice.pk, config={}, documents=DOCUMENTS)
    try:
        apps = migrate(AFTER)
        assert apps.get_model("playground", "RunDocuments").objects.get(
            run_id=run.pk).documents == DOCUMENTS
        apps = migrate(BEFORE)
        assert apps.get_model("playground", "Run").objects.get(pk=run.pk).documents == DOCUMENTS
    finally:
        migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
def test_attendees_get_name_keys_and_names_joined_twice_before_stay_apart(alice):
    apps = migrate([("workshops", "0002_lazy_sandbox_copy")])
    user = apps.get_model("auth", "User")
    workshop = apps.get_model("workshops", "Workshop").objects.create(
        code="ABCDEF", title="t", trainer_id=alice.pk, expires="2030-01-01T00:00:00Z")
    attendee = apps.get_model("workshops", "Attendee")
    first, second = (attendee.objects.create(
        workshop=workshop, display_name=name,
        user=user.objects.create(username=f"ws-{i}")) for i, name in enumerate(["Ana", "ANA"]))
    try:
        apps = migrate([("workshops", "0003_attendee_name_key")])
        keys = dict(apps.get_model("workshops", "Attendee").objects.values_list("pk", "name_key"))
        assert keys == {first.pk: "ana", second.pk: f"ana #{second.pk}"}
    finally:
        migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
