"""A run's documents move to a row of their own (RunDocuments): the run row is written on every
step, and SQLite rewrites a row whole, documents included. Existing runs keep theirs (copied
over before the column goes; copied back when migrating backwards)."""

import django.db.models.deletion
from django.db import migrations, models

COPY = ("INSERT INTO playground_rundocuments (run_id, documents) "
        "SELECT id, documents FROM playground_run")
COPY_BACK = ("UPDATE playground_run SET documents = (SELECT d.documents FROM "
             "playground_rundocuments d WHERE d.run_id = playground_run.id)")


class Migration(migrations.Migration):

    dependencies = [
        ("playground", "0003_cycle_packed_trace"),
    ]

    operations = [
        # A default only so that migrating backwards can add the column to existing rows.
        migrations.AlterField(model_name="run", name="documents",
                              field=models.JSONField(default=list)),
        migrations.CreateModel(
            name="RunDocuments",
            fields=[
                ("run", models.OneToOneField(
                    on_delete=django.db.models.deletion.CASCADE, primary_key=True,
                    related_name="stored_documents", serialize=False, to="playground.run")),
                ("documents", models.JSONField()),
            ],
        ),
        migrations.RunSQL(COPY, reverse_sql=COPY_BACK),
        migrations.RemoveField(model_name="run", name="documents"),
    ]
