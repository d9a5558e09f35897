"""Background what-if jobs over a cluster: a capacity plan (`python -m scheduler_core plan`)
and a sweep of configurations.

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
    # What the release does not honour in the template, as its reading said (the template is
    # stored without its unknown fields): the plan's warnings start with these.
    template_warnings = models.JSONField(default=list, blank=True)
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


class Sweep(models.Model):
    """A grid of configurations over a cluster (scheduler_core.whatif.sweep), one
    SweepVariant row per configuration, each run as a task of its own."""
    QUEUED, RUNNING, DONE, CANCELLED = "queued", "running", "done", "cancelled"
    STATUS_CHOICES = [(s, s) for s in (QUEUED, RUNNING, DONE, CANCELLED)]

    cluster = models.ForeignKey("playground.Cluster", on_delete=models.CASCADE,
                                related_name="sweeps")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                              related_name="sweeps")
    grid = models.JSONField()                # the grid spec as given (checked)
    seed = models.BigIntegerField(default=0)
    status = models.CharField(max_length=16, choices=STATUS_CHOICES, default=QUEUED)
    created = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self):
        return f"sweep {self.pk} of cluster {self.cluster_id} ({self.status})"


class SweepVariant(models.Model):
    QUEUED, RUNNING, DONE, FAILED, SKIPPED = "queued", "running", "done", "failed", "skipped"
    STATUS_CHOICES = [(s, s) for s in (QUEUED, RUNNING, DONE, FAILED, SKIPPED)]

    sweep = models.ForeignKey(Sweep, on_delete=models.CASCADE, related_name="variants")
    index = models.IntegerField()
    label = models.CharField(max_length=500)
    params = models.JSONField()              # the grid's values for this variant
    config = models.JSONField()              # the KubeSchedulerConfiguration it runs under
    release = models.CharField(max_length=8)
    status = models.CharField(max_length=16, choices=STATUS_CHOICES, default=QUEUED)
    metrics = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True, default="")
    # The run's own warnings (input its release and gates do not honour, the gates' notes).
    warnings = models.JSONField(default=list, blank=True)
    seconds = models.FloatField(null=True, blank=True)   # the run's wall time
    worker = models.CharField(max_length=200, blank=True, default="")   # who ran it

    class Meta:
        ordering = ["index"]
        constraints = [models.UniqueConstraint(fields=["sweep", "index"],
                                               name="whatif_sweep_variant_index")]

    def __str__(self):
        return f"variant {self.index} of sweep {self.sweep_id} ({self.status})"
