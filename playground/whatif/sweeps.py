"""Writes: sweeps of configurations over a cluster are checked, stored, queued, run variant
by variant, cancelled and finished here.

A sweep is one SweepVariant row per configuration of its grid (scheduler_core.whatif.sweep);
each variant is a task of its own, the whole a chord (playground.tasking), so the variants
spread over every worker there is and `sweep_finish` runs once after the last. A variant's
task records its own failure (the chord and the other variants go on); a cancelled sweep's
variants not yet started are skipped.
"""
from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections import OrderedDict

import yaml
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from playground import tasking
from playground.engine import out_of_tree_plugins
from playground.errors import Conflict, InvalidInput
from playground.whatif.models import Sweep, SweepVariant
from playground.whatif.services import cluster_config, cluster_sources
from scheduler_core.errors import InputError
from scheduler_core.features import DEFAULT_RELEASE
from scheduler_core.whatif.scenario import Frozen
from scheduler_core.whatif.sweep import Variant, expand, run_variant

logger = logging.getLogger(__name__)

# Registered names of the sweep tasks (playground.whatif.tasks): queued messages carry them.
SWEEP_VARIANT = "playground.whatif.sweep_variant"
SWEEP_FINISH = "playground.whatif.sweep_finish"
LIMIT_SETTING = "PLAYGROUND_SWEEP_MAX_VARIANTS"
SEED_RANGE = 2**63


def max_variants() -> int:
    return settings.PLAYGROUND_SWEEP_MAX_VARIANTS


def _grid_of(value) -> dict:
    if isinstance(value, str):
        try:
            value = yaml.safe_load(value)
        except yaml.YAMLError as exc:
            raise InvalidInput({"grid": [f"grid: not YAML or JSON: {exc}"]}) from exc
    if not isinstance(value, dict) or not value:
        raise InvalidInput({"grid": ["grid: give at least one axis as an object (YAML or JSON)"]})
    return value


def _seed_of(value) -> int:
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or \
            not -SEED_RANGE <= value < SEED_RANGE:
        raise InvalidInput({"seed": ["must be a whole number (a 64-bit integer)"]})
    return value


def sweep_create(*, cluster, owner, grid, seed=None) -> Sweep:
    """Expand and check the grid against the cluster's configuration (every variant's
    configuration through the engine's own checks, at most PLAYGROUND_SWEEP_MAX_VARIANTS of
    them), store the sweep and its variants, and queue them as a chord."""
    spec, seed = _grid_of(grid), _seed_of(seed)
    try:
        variants = expand(spec, cluster_config(cluster), base_release=DEFAULT_RELEASE,
                          max_variants=max_variants(), out_of_tree=out_of_tree_plugins(),
                          limit_name=f"the limit {LIMIT_SETTING}")
    except InputError as exc:
        raise InvalidInput({"grid": [str(exc)]}) from exc
    with transaction.atomic():
        sweep = Sweep.objects.create(cluster=cluster, owner=owner, grid=spec, seed=seed)
        rows = SweepVariant.objects.bulk_create(
            [SweepVariant(sweep=sweep, index=v.index, label=v.label, params=v.params,
                          config=v.config, release=v.release) for v in variants])
        tasking.enqueue_chord_on_commit(
            [(tasking.task_named(SWEEP_VARIANT), {"variant_id": row.pk}) for row in rows],
            (tasking.task_named(SWEEP_FINISH), {"sweep_id": sweep.pk}))
    return sweep


def sweep_cancel(sweep: Sweep) -> Sweep:
    """Stop a sweep: the variants not started are skipped, those running end as they are."""
    with transaction.atomic():
        locked = Sweep.objects.select_for_update().get(pk=sweep.pk)
        if locked.status not in (Sweep.QUEUED, Sweep.RUNNING):
            raise Conflict({"status": [f"the sweep is {locked.status} already"]})
        SweepVariant.objects.filter(sweep=locked, status=SweepVariant.QUEUED).update(
            status=SweepVariant.SKIPPED)
        locked.status = Sweep.CANCELLED
        locked.save(update_fields=["status"])
    return locked


def _start(variant_id: int) -> SweepVariant | None:
    """Mark the variant running (and its sweep), unless it was skipped or already taken."""
    with transaction.atomic():
        variant = SweepVariant.objects.select_for_update().select_related("sweep") \
            .get(pk=variant_id)
        if variant.status != SweepVariant.QUEUED:
            return None
        variant.status = SweepVariant.RUNNING
        variant.worker = f"{socket.gethostname()}:{os.getpid()}"
        variant.save(update_fields=["status", "worker"])
        Sweep.objects.filter(pk=variant.sweep_id, status=Sweep.QUEUED).update(
            status=Sweep.RUNNING)
    return variant


class _SourcesCache:
    """Each process reads a sweep's cluster from the database once, for every variant of the
    sweep it runs: the cluster as it was when the first of them started there. Only the last
    few sweeps are kept (a cluster can be large); a lock, as embedded mode runs variants on
    threads."""

    SIZE = 2

    def __init__(self):
        self._lock = threading.Lock()
        self._frozen: OrderedDict[tuple, Frozen] = OrderedDict()

    def get(self, sweep: Sweep) -> Frozen:
        # Keyed by creation time too: a database rebuilt (tests roll back) reuses the ids.
        key = (sweep.pk, sweep.created)
        with self._lock:
            if key not in self._frozen:
                self._frozen[key] = Frozen(cluster_sources(sweep.cluster))
                while len(self._frozen) > self.SIZE:
                    self._frozen.popitem(last=False)
            self._frozen.move_to_end(key)
            return self._frozen[key]


_sources = _SourcesCache()


def sweep_variant_execute(*, variant_id: int) -> None:
    """Run one variant and store its measures; its failure is stored, never raised (the
    chord's other variants and its finish go on)."""
    variant = _start(variant_id)
    if variant is None:
        return
    started = time.perf_counter()
    sweep = variant.sweep
    try:
        result = run_variant(_sources.get(sweep),
                             Variant(variant.index, variant.params, variant.config,
                                     variant.release),
                             seed=sweep.seed, out_of_tree=out_of_tree_plugins())
    except InputError as exc:
        _end(variant_id, started, status=SweepVariant.FAILED, error=str(exc))
    except Exception as exc:   # a bug in one variant must not stop the others
        logger.exception("variant %s of sweep %s failed", variant.index, sweep.pk)
        _end(variant_id, started, status=SweepVariant.FAILED,
             error=f"internal error: {type(exc).__name__}: {exc}")
    else:
        _end(variant_id, started, status=SweepVariant.DONE, metrics=result.metrics,
             warnings=result.warnings)


def _end(variant_id: int, started: float, **fields) -> None:
    SweepVariant.objects.filter(pk=variant_id).update(
        seconds=round(time.perf_counter() - started, 3), **fields)


def sweep_finish(*, sweep_id: int) -> None:
    """After the last variant: the sweep is done (a cancelled one stays cancelled)."""
    with transaction.atomic():
        sweep = Sweep.objects.select_for_update().get(pk=sweep_id)
        if sweep.status != Sweep.CANCELLED:
            sweep.status = Sweep.DONE
        sweep.finished = timezone.now()
        sweep.save(update_fields=["status", "finished"])
