"""Users, clients and clusters for the data layer's tests."""

import copy
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from playground import services
from playground.models import CycleRecord, Run
from scheduler_core.observe import TraceObserver
from scheduler_core.session import RunSession

FIXTURES = Path(__file__).resolve().parent.parent.parent / "fixtures"


def fixture_text(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def import_fixture(owner, name="gpu-cluster.yaml", *, cluster_name=None, shared=False):
    cluster, _ = services.cluster_import(owner=owner, name=cluster_name or name,
                                         files=[(name, fixture_text(name))], shared=shared)
    return cluster


def finish_run(run: Run) -> list[dict]:
    """Run the engine to the end and store its cycles as the run executor would."""
    # The engine writes spec.nodeName into the manifests it schedules: give it copies.
    session = RunSession(copy.deepcopy(run.sources()), run.config, seed=run.seed,
                         out_of_tree=services.out_of_tree_plugins())
    trace = TraceObserver()
    session.advance(None, observer=trace)
    cycles = trace.to_list()
    CycleRecord.objects.bulk_create(services.cycle_records_from_trace(run, cycles))
    run.cycle_count = len(cycles)
    run.pods_bound = sum(1 for c in cycles if c["outcome"] == "Bound")
    run.virtual_time = session.scheduler.clock
    run.status = Run.FINISHED
    run.save()
    return cycles


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def api(alice):
    """Alice, logged in with a session (as the pages are)."""
    client = APIClient()
    client.force_login(alice)
    return client


@pytest.fixture
def bob_api(bob):
    client = APIClient()
    client.force_login(bob)
    return client


@pytest.fixture
def anon(db):
    return APIClient()


@pytest.fixture
def cluster(alice):
    """Alice's private gpu-cluster."""
    return import_fixture(alice, cluster_name="gpu")


@pytest.fixture
def bobs_cluster(bob):
    return import_fixture(bob, cluster_name="bob's")


@pytest.fixture
def shared_cluster(bob):
    """Bob's cluster, shared read-only with everyone."""
    return import_fixture(bob, "taints-affinity.yaml", cluster_name="shared", shared=True)


@pytest.fixture
def finished_run(alice):
    cluster = import_fixture(alice, "taints-affinity.yaml", cluster_name="taints")
    run = services.run_create(cluster=cluster, seed=3, owner=alice)
    finish_run(run)
    return run
