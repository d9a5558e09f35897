"""Small in-test plugins and a one-call way to run the scheduler over them.

`fake(name, log, filter=..., score=...)` builds a plugin class that implements exactly the
extension points it is given (multiPoint expansion enables a plugin at every point whose
interface it implements, so a plugin must not implement more than the test means). Each
point's behaviour is a function taking the point's arguments, or a constant result; every call
is appended to `log` as (plugin, point[, node]).
"""
from __future__ import annotations

import copy
from types import SimpleNamespace

from scheduler_core.config import API_VERSION, parse_configuration
from scheduler_core.features import DEFAULT_GATES
from scheduler_core.framework import interfaces as fw
from scheduler_core.framework.registry import Registry
from scheduler_core.loader import load_documents
from scheduler_core.observe import TraceObserver
from scheduler_core.plugins.registry import default_registry
from scheduler_core.scheduler import Scheduler

# point keyword -> (interface, method, index of the node argument or None)
_POINTS = {
    "pre_enqueue": (fw.PreEnqueuePlugin, "pre_enqueue", None),
    "queue_sort": (fw.QueueSortPlugin, "less", None),
    "pre_filter": (fw.PreFilterPlugin, "pre_filter", None),
    "filter": (fw.FilterPlugin, "filter", 2),
    "post_filter": (fw.PostFilterPlugin, "post_filter", None),
    "pre_score": (fw.PreScorePlugin, "pre_score", None),
    "score": (fw.ScorePlugin, "score", 2),
    "reserve": (fw.ReservePlugin, "reserve", 2),
    "permit": (fw.PermitPlugin, "permit", 2),
    "pre_bind": (fw.PreBindPlugin, "pre_bind", 2),
    "pre_bind_pre_flight": (fw.PreBindPlugin, "pre_bind_pre_flight", 2),
    "bind": (fw.BindPlugin, "bind", 2),
    "post_bind": (fw.PostBindPlugin, "post_bind", 2),
}
# What a point returns when its behaviour gives None: Go's nil result and nil status.
_DEFAULTS = {"pre_filter": (None, None), "score": (0, None), "permit": (None, 0),
             "post_filter": (None, None)}


def _node_name(arg):
    return arg if isinstance(arg, str) else arg.name


def _method(name: str, point: str, behaviour, log, node_index):
    def call(self, *args):
        entry = (name, point) if node_index is None else (name, point, _node_name(args[node_index]))
        log.append(entry)
        result = behaviour(*args) if callable(behaviour) else behaviour
        return _DEFAULTS.get(point) if result is None and point in _DEFAULTS else result
    return call


def fake(name: str, log: list | None = None, *, normalize=None, events=None, **points):
    """A plugin instance named `name` implementing exactly the given points."""
    log = log if log is not None else []
    bases, methods = [], {"NAME": name}
    for point, behaviour in points.items():
        iface, method, node_index = _POINTS[point]
        if iface not in bases:
            bases.append(iface)
        methods[method] = _method(name, point, behaviour, log, node_index)
    if "reserve" in points:
        methods["unreserve"] = _method(name, "unreserve", None, log, 2)
    if normalize is not None:
        methods["normalize_score"] = _method(name, "normalize", normalize, log, None)
        methods["score_extensions"] = lambda self: self
        bases.append(fw.ScoreExtensions)
    if events is not None:
        methods["events_to_register"] = lambda self: set(events)
        bases.append(fw.EnqueueExtensions)
    return type(name, tuple(bases), methods)()


def spec_of(plugin):
    """A registry entry handing out one shared instance; the handle is kept for Permit tests."""
    def new(args, handle):
        plugin.handle = handle
        return plugin
    return SimpleNamespace(new=new, default_args=lambda args: dict(args or {}),
                           validate_args=lambda args, path: [])


def registry(*plugins) -> Registry:
    """The in-tree registry plus the given plugin instances, registered as out-of-tree."""
    reg = default_registry(entry_points_too=False)
    for plugin in plugins:
        reg.register(plugin.NAME, spec_of(plugin))
    return reg


def ref(entry) -> dict:
    if isinstance(entry, tuple):
        return {"name": entry[0], "weight": entry[1]}
    return {"name": entry}


def profile(*enabled, name="default-scheduler", queue_sort="PrioritySort", binder="DefaultBinder",
            **extra) -> dict:
    """A profile running only the queue sort, the given plugins and the binder, in that order."""
    entries = ([queue_sort] if queue_sort else []) + list(enabled) + ([binder] if binder else [])
    return {"schedulerName": name,
            "plugins": {"multiPoint": {"enabled": [ref(e) for e in entries],
                                       "disabled": [{"name": "*"}]}},
            **extra}


def configuration(*profiles, **top) -> dict:
    return {"apiVersion": API_VERSION, "kind": "KubeSchedulerConfiguration",
            "profiles": list(profiles), **top}


def run(plugins, nodes, pods, *, config=None, enabled=None, seed=0, max_cycles=None,
        other_objects=(), features=DEFAULT_GATES):
    """Schedule `pods` on `nodes` with a minimal profile of `plugins`; (scheduler, cycles)."""
    reg = registry(*plugins)
    if config is None:
        names = enabled if enabled is not None else [p.NAME for p in plugins]
        config = configuration(profile(*names))
    docs = copy.deepcopy(list(nodes) + list(other_objects) + list(pods))
    cluster = load_documents([("test.yaml", docs)], features=features)
    trace = TraceObserver()
    sched = Scheduler(cluster, parse_configuration(config, reg, features=features), seed=seed,
                      observer=trace,
                      registry=reg)
    sched.run(max_cycles)
    return sched, trace.to_list()
