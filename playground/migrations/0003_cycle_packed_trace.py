"""CycleRecord keeps the engine's packed columns (scheduler_core.tracepack) instead of the
contract's JSON; rows stored before keep their JSON in the same column, read by `trace`.
RunChunk: a running run's results appended per chunk."""

import django.db.models.deletion
from django.db import migrations, models

import playground.runs.models


class Migration(migrations.Migration):

    dependencies = [
        ("playground", "0002_timeline"),
    ]

    operations = [
        migrations.RenameField(model_name="cyclerecord", old_name="trace",
                               new_name="legacy_trace"),
        migrations.AlterField(
            model_name="cyclerecord",
            name="legacy_trace",
            field=playground.runs.models.OrderedJSONField(blank=True, db_column="trace", null=True),
        ),
        migrations.AddField(
            model_name="cyclerecord",
            name="packed",
            field=models.BinaryField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="cyclerecord",
            name="preempted",
            field=models.BooleanField(default=False),
        ),
        migrations.RunSQL(
            "UPDATE playground_cyclerecord SET preempted = TRUE "
            "WHERE trace LIKE '%\"preemption\":{%'",
            reverse_sql=migrations.RunSQL.noop,
        ),
        migrations.CreateModel(
            name="RunChunk",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False,
                                           verbose_name="ID")),
                ("start", models.IntegerField()),
                ("bindings", models.JSONField(default=dict)),
                ("removed", models.JSONField(default=list)),
                ("victims", models.JSONField(default=list)),
                ("run", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE,
                                          related_name="chunks", to="playground.run")),
            ],
            options={"ordering": ["run", "start", "id"]},
        ),
    ]
