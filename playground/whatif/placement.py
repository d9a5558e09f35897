"""The global placement of a run's cluster, computed by the engine on demand (a read).

Nothing is stored: the answer follows from the run's documents, configuration and seed, and
the solver's limits keep it to clusters of about 50 nodes and 300 pending pods (the limits are
the engine's, PLAYGROUND_OPTIMIZE_MAX_NODES and _MAX_PODS may lower them)."""
from __future__ import annotations

from django.conf import settings

from playground.engine import out_of_tree_plugins
from playground.errors import InvalidInput, TooLarge
from playground.runs.models import Run
from playground.runs.sessions import engine_sources
from scheduler_core.errors import InputError
from scheduler_core.whatif.optimize import DEFAULT_MAX_NODES, DEFAULT_MAX_PODS, Limits, optimize
from scheduler_core.whatif.scenario import Scenario

MAX_TIME_LIMIT = 30.0


KNOBS = ("PLAYGROUND_OPTIMIZE_MAX_NODES", "PLAYGROUND_OPTIMIZE_MAX_PODS")


def solver_limits() -> Limits:
    return Limits(nodes=getattr(settings, KNOBS[0], DEFAULT_MAX_NODES),
                  pods=getattr(settings, KNOBS[1], DEFAULT_MAX_PODS), knobs=KNOBS)


def global_placement(run: Run, *, time_limit: float) -> dict:
    """optimize's answer for the run's cluster; TooLarge (413) past the solver's limits."""
    if not 0 < time_limit <= MAX_TIME_LIMIT:
        raise InvalidInput({"time_limit": [f"must be more than 0 and at most "
                                           f"{MAX_TIME_LIMIT:g} seconds"]})
    limits = solver_limits()
    try:
        # Counted before the cluster is loaded: a cluster of thousands of nodes is refused
        # at once (one listed inside a List is counted by optimize, once loaded).
        limits.check(sum(1 for _, docs in run.sources() for d in docs
                         if isinstance(d, dict) and d.get("kind") == "Node"), 0)
        scenario = Scenario(engine_sources(run), config=run.config or None, seed=run.seed,
                            out_of_tree=out_of_tree_plugins(), checked=True)
        return optimize(scenario, time_limit=time_limit, limits=limits)
    except InputError as exc:
        raise TooLarge({"cluster": [str(exc)]}) from exc
