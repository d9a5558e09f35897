"""The per-user quotas (PLAYGROUND_QUOTA_*), refused as a ResourceQuota refuses: 403.

Every feature that stores something for a user checks them before writing.
"""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Count, F, OuterRef, Subquery, Sum
from django.db.models.functions import Coalesce

from playground.clusters.models import OBJECT_MODELS, Cluster
from playground.errors import QuotaExceeded
from playground.runs.models import CycleRecord, Run, RunDocuments


def _over(what: str, used: int, limit: int, setting: str, *, field: str) -> QuotaExceeded:
    return QuotaExceeded(f"exceeded quota: {what}: used {used}, limited to {limit} ({setting})",
                         field=field)


def lock_owner(owner) -> None:
    """Hold the owner's quota lock until the transaction ends (call it inside atomic()).

    A quota is a count read before a write, so two requests counting at once both see room
    (8 simultaneous run starts against a quota of 3 all went). A no-op UPDATE of the owner's
    row takes that row's lock on PostgreSQL and the database's write lock on SQLite: the next
    request of the same owner counts only once this one has committed what it counted for.
    """
    get_user_model().objects.filter(pk=owner.pk).update(last_login=F("last_login"))


def check_cluster_quota(*, owner) -> None:
    limit = settings.PLAYGROUND_QUOTA_CLUSTERS
    used = Cluster.objects.filter(owner=owner).count()
    if used >= limit:
        raise _over("clusters", used, limit, "PLAYGROUND_QUOTA_CLUSTERS", field="name")


def _total(queryset, owner_field: str) -> Coalesce:
    """The sum of `queryset`'s `size` column over the owner's rows, as a subquery."""
    sums = (queryset.filter(**{owner_field: OuterRef("pk")}).order_by()
            .values(owner_field).annotate(n=Sum("size")).values("n"))
    return Coalesce(Subquery(sums), 0)


def _stored_parts() -> dict:
    parts = [_total(model.objects.all(), "cluster__owner") for model in OBJECT_MODELS]
    parts += [_total(RunDocuments.objects.all(), "run__owner"),
              _total(CycleRecord.objects.all(), "run__owner")]
    return {f"part{i}": part for i, part in enumerate(parts)}


def _owner_row(owner, **counts) -> tuple[int, ...]:
    """(*counts, stored bytes) of `owner`, in one query."""
    parts = _stored_parts()
    row = (get_user_model().objects.filter(pk=owner.pk).annotate(**counts, **parts)
           .values_list(*counts, *parts).get())
    return (*row[:len(counts)], sum(row[len(counts):]))


def stored_bytes(owner) -> int:
    """What the owner's clusters and runs take: manifests, run snapshots, recorded cycles.

    Each row's `size` column is kept by the database (clusters.models.stored_size), so this is one
    query summing integers, not a measure of megabytes of JSON: every run step asks it."""
    (used,) = _owner_row(owner)
    return used


def _check_stored(used: int, adding: int = 0) -> None:
    limit = settings.PLAYGROUND_QUOTA_STORED_BYTES
    if used + adding > limit:
        raise _over("stored bytes", used + adding, limit, "PLAYGROUND_QUOTA_STORED_BYTES",
                    field="non_field_errors")


def check_storage_quota(*, owner, adding: int = 0) -> None:
    _check_stored(stored_bytes(owner), adding)


def check_run_quota(*, owner, run: Run) -> None:
    """Before a run starts or goes on: the owner's other running runs and stored bytes, in
    one query. Call it under lock_owner, in the transaction that marks the run running."""
    limit = settings.PLAYGROUND_QUOTA_CONCURRENT_RUNS
    others = (Run.objects.filter(owner=OuterRef("pk"), status=Run.RUNNING).exclude(pk=run.pk)
              .order_by().values("owner").annotate(n=Count("pk")).values("n"))
    running, stored = _owner_row(owner, running=Coalesce(Subquery(others), 0))
    if running >= limit:
        raise _over("concurrent runs", running, limit, "PLAYGROUND_QUOTA_CONCURRENT_RUNS",
                    field="non_field_errors")
    _check_stored(stored)
