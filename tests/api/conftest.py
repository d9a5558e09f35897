"""Users, clients and clusters for the data layer's tests."""

import pytest
from rest_framework.test import APIClient

from playground.runs.services import run_create

# Re-exported: the API tests import their builders from here.
from tests.helpers import FIXTURES, finish_run, fixture_text, import_fixture  # noqa: F401


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
    run = run_create(cluster=cluster, seed=3, owner=alice)
    finish_run(run)
    return run
