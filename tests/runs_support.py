"""Shared helpers for the run executor's tests (tests/test_runs_*.py, tests/test_consumer_*.py)."""

from __future__ import annotations

from pathlib import Path

import yaml
from django.contrib.auth.models import User

from playground import services
from playground.models import Run
from scheduler_core.simulate import simulate

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def make_user(name: str) -> User:
    return User.objects.create_user(name, password=f"{name}-password-1")


def import_cluster(owner, fixture: str = "gpu-cluster.yaml", *, name: str | None = None,
                   shared: bool = False, text: str | None = None):
    text = text if text is not None else (FIXTURES / fixture).read_text(encoding="utf-8")
    cluster, _ = services.cluster_import(owner=owner, name=name or fixture,
                                         files=[(fixture, text)], shared=shared)
    return cluster


def new_run(owner, fixture: str = "gpu-cluster.yaml", *, seed: int = 3, shared=False,
            text: str | None = None, name: str | None = None) -> Run:
    cluster = import_cluster(owner, fixture, shared=shared, text=text, name=name)
    return services.run_create(cluster=cluster, seed=seed, owner=owner)


def reference(fixture: str = "gpu-cluster.yaml", *, seed: int = 3) -> dict:
    """What `python -m scheduler_core simulate FILE --seed N --output json` computes."""
    result = simulate([str(FIXTURES / fixture)], seed=seed,
                      out_of_tree=services.out_of_tree_plugins())
    return result.to_json()


def big_cluster_yaml(nodes: int, pods: int) -> str:
    """`nodes` identical nodes in 5 zones and `pods` small pending pods."""
    docs = []
    for i in range(nodes):
        docs.append({"apiVersion": "v1", "kind": "Node", "metadata": {
            "name": f"node-{i:05d}", "labels": {
                "kubernetes.io/hostname": f"node-{i:05d}",
                "topology.kubernetes.io/zone": f"zone-{i % 5}"}},
            "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"},
                       "capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"}}})
    for i in range(pods):
        docs.append({"apiVersion": "v1", "kind": "Pod", "metadata": {
            "name": f"web-{i}", "namespace": "default", "labels": {"app": "web"}},
            "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {
                "requests": {"cpu": "100m", "memory": "128Mi"}}}]}})
    return yaml.safe_dump_all(docs, sort_keys=False)
