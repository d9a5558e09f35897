"""Migrations that move data keep it: a run's documents into their own row (0004) and back."""

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
