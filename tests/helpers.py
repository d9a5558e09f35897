"""The web app's test builders: users, clusters and runs made from the fixtures, the engine's
reference output for a fixture, and Django run in a subprocess with a chosen environment
(settings are read at import)."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import yaml
from django.contrib.auth.models import User

from playground.clusters.services import cluster_import
from playground.engine import out_of_tree_plugins
from playground.runs.models import CycleRecord, Run
from playground.runs.records import cycle_records_from_trace
from playground.runs.services import run_create
from scheduler_core.features import feature_gates
from scheduler_core.observe import TraceObserver
from scheduler_core.session import RunSession
from scheduler_core.simulate import simulate

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"

# Variables settings.py reads; cleared so each subprocess sees only what a test sets.
SETTINGS_VARIABLES = ("DATABASE_URL", "REDIS_URL", "PLAYGROUND_TASKS_SYNC")


def clean_env(**overrides):
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in SETTINGS_VARIABLES and not key.startswith("DJANGO_")
    }
    env["DJANGO_SETTINGS_MODULE"] = "playground.settings"
    env.update(overrides)
    return env


def run_python(code, **env):
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=clean_env(**env),
        capture_output=True,
        text=True,
        timeout=120,
    )


def run_manage(*args, **env):
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=clean_env(**env),
        capture_output=True,
        text=True,
        timeout=120,
    )


SUMMARY = """
import json
from django.conf import settings
from playground import celery_app
conf = celery_app.conf
print(json.dumps(default=repr, obj={
    "DEBUG": settings.DEBUG,
    "ENGINE": settings.DATABASES["default"]["ENGINE"],
    "NAME": str(settings.DATABASES["default"]["NAME"]),
    "HOST": settings.DATABASES["default"].get("HOST", ""),
    "CONN_MAX_AGE": settings.DATABASES["default"].get("CONN_MAX_AGE", 0),
    "POOL": settings.DATABASES["default"].get("OPTIONS", {}).get("pool"),
    "LAYER": settings.CHANNEL_LAYERS["default"]["BACKEND"],
    "LAYER_CONFIG": settings.CHANNEL_LAYERS["default"].get("CONFIG"),
    "MODE": settings.PLAYGROUND_TASK_MODE,
    "ALLOWED_HOSTS": settings.ALLOWED_HOSTS,
    "broker_url": conf.broker_url,
    "result_backend": conf.result_backend,
    "task_always_eager": conf.task_always_eager,
    "task_acks_late": conf.task_acks_late,
    "worker_prefetch_multiplier": conf.worker_prefetch_multiplier,
    "task_reject_on_worker_lost": conf.task_reject_on_worker_lost,
    "includes": list(conf.include),
}))
"""


def settings_summary(**env):
    done = run_python(SUMMARY, **env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


# --- users, clusters and runs ---------------------------------------------------------------
def make_user(name: str) -> User:
    return User.objects.create_user(name, password=f"{name}-password-1")


def import_cluster(owner, fixture: str = "gpu-cluster.yaml", *, name: str | None = None,
                   shared: bool = False, text: str | None = None):
    text = text if text is not None else (FIXTURES / fixture).read_text(encoding="utf-8")
    cluster, _ = cluster_import(owner=owner, name=name or fixture,
                                         files=[(fixture, text)], shared=shared)
    return cluster


def fixture_text(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def import_fixture(owner, name="gpu-cluster.yaml", *, cluster_name=None, shared=False):
    """import_cluster as the API and workshop tests call it (the cluster's name apart)."""
    return import_cluster(owner, name, name=cluster_name, shared=shared)


def finish_run(run: Run) -> list[dict]:
    """Run the engine to the end and store its cycles as the run executor would."""
    # The engine writes spec.nodeName into the manifests it schedules: give it copies.
    session = RunSession(copy.deepcopy(run.sources()), run.config, seed=run.seed,
                         out_of_tree=out_of_tree_plugins(),
                         features=feature_gates(run.release, run.feature_gates or None))
    trace = TraceObserver()
    session.advance(None, observer=trace)
    cycles = trace.to_list()
    CycleRecord.objects.bulk_create(cycle_records_from_trace(run, cycles))
    run.cycle_count = len(cycles)
    run.pods_bound = sum(1 for c in cycles if c["outcome"] == "Bound")
    run.virtual_time = session.scheduler.clock
    run.status = Run.FINISHED
    run.save()
    return cycles


def new_run(owner, fixture: str = "gpu-cluster.yaml", *, seed: int = 3, shared=False,
            text: str | None = None, name: str | None = None) -> Run:
    cluster = import_cluster(owner, fixture, shared=shared, text=text, name=name)
    return run_create(cluster=cluster, seed=seed, owner=owner)


def reference(fixture: str = "gpu-cluster.yaml", *, seed: int = 3) -> dict:
    """What `python -m scheduler_core simulate FILE --seed N --output json` computes."""
    result = simulate([str(FIXTURES / fixture)], seed=seed,
                      out_of_tree=out_of_tree_plugins())
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


class WorkerDied(BaseException):
    """Stands for SIGKILL: nothing in the task gets to clean up."""


def die_after_chunks(monkeypatch, chunks: int):
    """The run executor commits `chunks` chunks, then its worker dies (WorkerDied); returns
    the real commit, for a worker that takes over."""
    from playground.runs import executor as run_executor

    real_commit, commits = run_executor._commit_chunk, []

    def commit_then_die(*args):
        if len(commits) == chunks:
            raise WorkerDied()
        commits.append(1)
        return real_commit(*args)

    monkeypatch.setattr(run_executor, "_commit_chunk", commit_then_die)
    return real_commit
