"""A cluster's timelines."""

from __future__ import annotations

from django.db import models

from playground.clusters.models import Cluster


class Timeline(models.Model):
    """Cluster events at virtual times (scheduler_core.timeline, docs/TIMELINE.md); a run
    takes the cluster's timelines with its documents."""

    API_VERSION = "playground.k8s.local/v1"

    cluster = models.ForeignKey(Cluster, on_delete=models.CASCADE, related_name="timelines")
    name = models.CharField(max_length=200)
    steps = models.JSONField(default=list)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["cluster", "name"], name="timeline_unique_name"),
        ]

    def __str__(self):
        return f"timeline {self.name} of {self.cluster}"

    def document(self) -> dict:
        return {"apiVersion": self.API_VERSION, "kind": "Timeline",
                "metadata": {"name": self.name}, "spec": {"steps": self.steps}}
