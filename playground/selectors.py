"""Reads: what a user may see and change.

A user sees their own clusters and every shared one; shared clusters are read-only to anyone
but their owner (runs on them and clones of them are allowed: neither changes the cluster).
A user sees the runs they started, the runs on their own clusters, and the runs a shared
cluster's owner started on it; only the run's starter and the cluster's owner may drive or
delete a run. Anything a user may not see is "not found" to them.
"""

from __future__ import annotations

import copy
import functools

from django.db.models import F, Q, QuerySet

from playground.models import Cluster, CycleRecord, Run
from playground.services import out_of_tree_plugins
from scheduler_core.config import DEFAULT_MULTI_POINT
from scheduler_core.framework.handle import FakeHandle
from scheduler_core.framework.interfaces import EXTENSION_POINTS
from scheduler_core.framework.registry import default_registry
from scheduler_core.session import RunSession


def clusters_visible_to(user) -> QuerySet[Cluster]:
    if not getattr(user, "is_authenticated", False):
        return Cluster.objects.none()
    return Cluster.objects.filter(Q(owner=user) | Q(shared=True))


def clusters_owned_by(user) -> QuerySet[Cluster]:
    if not getattr(user, "is_authenticated", False):
        return Cluster.objects.none()
    return Cluster.objects.filter(owner=user)


def cluster_writable_by(cluster: Cluster, user) -> bool:
    return getattr(user, "is_authenticated", False) and cluster.owner_id == user.pk


def runs_visible_to(user) -> QuerySet[Run]:
    if not getattr(user, "is_authenticated", False):
        return Run.objects.none()
    return Run.objects.filter(
        Q(owner=user) | Q(cluster__owner=user)
        | Q(cluster__shared=True, owner=F("cluster__owner"))
    )


def run_writable_by(run: Run, user) -> bool:
    return getattr(user, "is_authenticated", False) and user.pk in (
        run.owner_id, run.cluster.owner_id)


def cycles_of(run: Run, *, pod: str | None = None, outcome: str | None = None,
              node: str | None = None) -> QuerySet[CycleRecord]:
    cycles = CycleRecord.objects.filter(run=run)
    if pod:
        cycles = cycles.filter(pod=pod)
    if outcome:
        cycles = cycles.filter(outcome=outcome)
    if node:
        cycles = cycles.filter(node=node)
    return cycles.order_by("index")


def plugin_catalog() -> tuple[dict, ...]:
    """Every registered plugin: its extension points, kube-scheduler's default args, whether
    the default profile enables it and with which score weight (as `simulate plugins`)."""
    return _plugin_catalog(tuple(sorted(out_of_tree_plugins().items())))


@functools.cache
def _plugin_catalog(out_of_tree: tuple) -> tuple[dict, ...]:
    defaults = dict(DEFAULT_MULTI_POINT)
    registry = default_registry(dict(out_of_tree))
    out = []
    for name in registry.names():
        spec = registry.spec(name)
        args = spec.default_args({})
        plugin = spec.new(copy.deepcopy(args), FakeHandle())
        out.append({
            "name": name,
            "extension_points": [p for p, iface in EXTENSION_POINTS.items()
                                 if isinstance(plugin, iface)],
            "default_args": args,
            "enabled_by_default": name in defaults,
            "default_weight": defaults.get(name),
        })
    return tuple(out)


def run_state(run: Run, *, max_nodes: int | None = None) -> dict:
    """RunSession.state() of the run where it is, rebuilt by replaying its cycles.

    The run executor (playground.runs.run_state) answers from its cached session when it has
    one; this is the fallback that needs nothing but the run's row.
    """
    session = RunSession(copy.deepcopy(run.sources()), run.config, seed=run.seed,
                         out_of_tree=out_of_tree_plugins())
    session.replay(run.cycle_count)
    state = session.state(max_nodes=max_nodes)
    state["nodeCount"] = len(session.scheduler.cache.node_infos)
    return state
