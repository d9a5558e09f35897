"""Reads of clusters: what a user may see and change.

A user sees their own clusters and every shared one; shared clusters are read-only to anyone
but their owner (runs on them and clones of them are allowed: neither changes the cluster).
Anything a user may not see is "not found" to them, and so is what an app withholds from
them for a while (playground.withholding).
"""

from __future__ import annotations

from django.db.models import Q, QuerySet

from playground.clusters.models import Cluster
from playground.withholding import withheld


def clusters_visible_to(user) -> QuerySet[Cluster]:
    if not getattr(user, "is_authenticated", False):
        return Cluster.objects.none()
    return withheld(user, Cluster.objects.filter(Q(owner=user) | Q(shared=True)), "cluster")


def cluster_writable_by(cluster: Cluster, user) -> bool:
    return getattr(user, "is_authenticated", False) and cluster.owner_id == user.pk
