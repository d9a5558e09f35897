"""A cluster's scheduler profile."""

from __future__ import annotations

from django.db import models

from playground.clusters.models import Cluster


class SchedulerProfile(models.Model):
    """The cluster's KubeSchedulerConfiguration, checked by scheduler_core.config."""

    cluster = models.OneToOneField(Cluster, on_delete=models.CASCADE, related_name="profile")
    config = models.JSONField()
    updated = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"profile of {self.cluster}"
