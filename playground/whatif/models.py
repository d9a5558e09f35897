"""A capacity plan: `python -m scheduler_core plan` over a cluster, run as a background task.

The cluster is referred to by label ("playground.Cluster"), as the workshops' models do, so
that this app's models import nothing of the playground app's."""
from django.conf import settings
from django.db import models


class PlanJob(models.Model):
    QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
    STATUS_CHOICES = [(s, s) for s in (QUEUED, RUNNING, DONE, FAILED)]

    cluster = models.ForeignKey("playground.Cluster", on_delete=models.CASCADE,
                                related_name="plans")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                              related_name="plans")
    template = models.JSONField()            # the Node whose copies are added
    max_nodes = models.IntegerField()
    status = models.CharField(max_length=16, choices=STATUS_CHOICES, default=QUEUED)
    progress = models.JSONField(default=list, blank=True)   # each trial's row, as it ends
    result = models.JSONField(default=dict, blank=True)     # plan's JSON once done
    error = models.TextField(blank=True, default="")
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self):
        return f"plan {self.pk} of cluster {self.cluster_id} ({self.status})"
