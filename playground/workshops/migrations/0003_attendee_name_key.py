"""Display names compared as the room reads them: a name_key (NFKC, case-folded, format
characters dropped) unique per workshop instead of the display name as typed."""

from django.db import migrations, models


def fill_keys(apps, schema_editor):
    from playground.workshops.services import name_key

    Attendee = apps.get_model("workshops", "Attendee")
    taken = set()
    for attendee in Attendee.objects.order_by("id"):
        key = name_key(attendee.display_name)
        if (attendee.workshop_id, key) in taken:  # joined before names were compared so
            key = f"{key} #{attendee.pk}"
        taken.add((attendee.workshop_id, key))
        attendee.name_key = key
        attendee.save(update_fields=["name_key"])


class Migration(migrations.Migration):
    dependencies = [
        ("workshops", "0002_lazy_sandbox_copy"),
    ]

    operations = [
        migrations.AddField(
            model_name="attendee",
            name="name_key",
            field=models.CharField(default="", max_length=240),
            preserve_default=False,
        ),
        migrations.RunPython(fill_keys, migrations.RunPython.noop),
        migrations.RemoveConstraint(model_name="attendee", name="attendee_unique_name"),
        migrations.AddConstraint(
            model_name="attendee",
            constraint=models.UniqueConstraint(fields=("workshop", "name_key"),
                                               name="attendee_unique_name_key"),
        ),
    ]
