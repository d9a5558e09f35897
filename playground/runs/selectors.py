"""Reads: what a user may see and change.

A user sees their own clusters and every shared one; shared clusters are read-only to anyone
but their owner (runs on them and clones of them are allowed: neither changes the cluster).
A user sees the runs they started, the runs on their own clusters, and the runs a shared
cluster's owner started on it; only the run's starter and the cluster's owner may drive or
delete a run. Anything a user may not see is "not found" to them.

Also where a run is, for its clients: the row, the engine state (from this process's cached
session, playground.run_sessions) and the stored cycles.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import logging
from contextlib import contextmanager

from django.db.models import F, Q, QuerySet

from playground.models import Cluster, CycleRecord, Run, stored_trace
from playground.run_lease import run_busy
from playground.run_sessions import nominations, queue_sizes, session_at, sessions
from playground.services import out_of_tree_plugins
from scheduler_core.config import DEFAULT_MULTI_POINT
from scheduler_core.framework.handle import FakeHandle
from scheduler_core.framework.interfaces import EXTENSION_POINTS
from scheduler_core.plugins.registry import default_registry

logger = logging.getLogger(__name__)

SNAPSHOT_MAX_NODES = 600


def clusters_visible_to(user) -> QuerySet[Cluster]:
    if not getattr(user, "is_authenticated", False):
        return Cluster.objects.none()
    return Cluster.objects.filter(Q(owner=user) | Q(shared=True))


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


def profile_label(config: dict | None) -> str:
    """A run's profile in a few characters: its scheduler names and a digest of its
    configuration, so two runs of one profile read the same and an edited one reads apart."""
    config = config or {}
    names = [p.get("schedulerName") or "default-scheduler"
             for p in config.get("profiles") or [{}] if isinstance(p, dict)]
    canonical = json.dumps(config, sort_keys=True, separators=(",", ":"))
    return f"{', '.join(names)} · {hashlib.sha256(canonical.encode()).hexdigest()[:8]}"


def run_summary(run: Run) -> dict:
    """The run row for the socket, with the REST API's field names, and whether it is busy."""
    return {"id": run.pk, "cluster": run.cluster_id, "name": run.name, "seed": run.seed,
            "status": run.status, "virtual_time": run.virtual_time,
            "cycle_count": run.cycle_count, "pods_bound": run.pods_bound, "error": run.error,
            "busy": run_busy(run)}


@contextmanager
def _session_for_reading(run_id: int):
    """(run, session) consistent with each other; the session must not be kept."""
    entry = sessions.entry(run_id)
    with entry.lock:  # a working task holds it for one chunk at most
        # The documents load only if a session has to be built.
        run = Run.objects.get(pk=run_id)
        try:
            session = session_at(entry, run)
        except Exception:
            entry.session = None
            raise
        yield run, session


def _engine_state(session, max_nodes: int | None) -> dict:
    state = session.state(max_nodes=max_nodes)
    state["nodeCount"] = len(session.scheduler.cache.node_infos)
    state["queueSizes"] = queue_sizes(session)
    return state


def run_state(run: Run, *, max_nodes: int | None = None) -> dict:
    """RunSession.state() where the run is, from this process's cached session if it has one
    (else rebuilt by replaying the run's cycles)."""
    with _session_for_reading(run.pk) as (_, session):
        return _engine_state(session, max_nodes)


def row_snapshot(run_id: int) -> dict:
    """The run row and its last cycles, without the engine: a snapshot for a client that
    reads the engine state elsewhere (the run page, pages.run_view)."""
    run = Run.objects.get(pk=run_id)
    return {"run": run_summary(run), "cycles": list((run.result or {}).get("recent") or [])}


def snapshot(run_id: int, *, max_nodes: int | None = SNAPSHOT_MAX_NODES) -> dict:
    """What a client joining late needs: the run row, the engine state, the last cycles
    (max_nodes None: every node).

    If the engine cannot rebuild the state (a run that failed in it), `state` is None and
    `stateError` says why; the row and the stored cycles are still there.
    """
    try:
        with _session_for_reading(run_id) as (run, session):
            state = _engine_state(session, max_nodes)
            state["nominations"] = nominations(session)
            extra = {}
    except Run.DoesNotExist:
        raise
    except Exception as exc:
        logger.exception("run %s: no engine state for a snapshot", run_id)
        run = Run.objects.get(pk=run_id)
        state, extra = None, {"stateError": f"{type(exc).__name__}: {exc}"}
    return {"run": run_summary(run), "state": state,
            "cycles": list((run.result or {}).get("recent") or []), **extra}


def cycle_detail(run_id: int, index: int) -> dict | None:
    row = (CycleRecord.objects.filter(run_id=run_id, index=index)
           .values_list("legacy_trace", "packed").first())
    return stored_trace(*row) if row else None
