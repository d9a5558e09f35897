"""Sweeps on real workers: two Celery worker processes on Redis and PostgreSQL share one
sweep's variants, and the chord's finish marks it done after the last."""

from __future__ import annotations

import time

import pytest

from playground.whatif.models import Sweep, SweepVariant
from playground.whatif.sweeps import sweep_create
from tests.helpers import big_cluster_yaml, import_cluster, make_user

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

SWEEP_TIMEOUT = 300
GRID = {"strategies": ["LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"],
        "percentageOfNodesToScore": [0, 50], "weights": {"NodeResourcesFit": [1, 2]}}


def test_two_workers_share_a_sweeps_variants_and_the_chord_finishes_it(workers):
    alice = make_user("alice")
    cluster = import_cluster(alice, "big.yaml", text=big_cluster_yaml(60, 240))
    workers.start()
    workers.start()
    sweep = sweep_create(cluster=cluster, owner=alice, grid=GRID)
    deadline = time.monotonic() + SWEEP_TIMEOUT
    while Sweep.objects.get(pk=sweep.pk).status != Sweep.DONE:
        assert time.monotonic() < deadline, f"the sweep did not end:\n{workers.logs()}"
        time.sleep(0.5)
    variants = list(SweepVariant.objects.filter(sweep=sweep))
    assert len(variants) == 12
    assert {v.status for v in variants} == {SweepVariant.DONE}, [v.error for v in variants]
    assert all(v.metrics["bound"] == 240 for v in variants)
    by_worker: dict[str, int] = {}
    for v in variants:
        by_worker[v.worker] = by_worker.get(v.worker, 0) + 1
    assert len(by_worker) == 2, by_worker            # both processes took variants
    assert Sweep.objects.get(pk=sweep.pk).finished is not None
