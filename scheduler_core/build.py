"""build_scheduler(): the one way to assemble the engine, for every caller.

The command line, the benchmarks, the playground's run sessions and its compare page all come
here with a loaded cluster, as kube-scheduler's app.Setup does with its options: the plugin
registry (in tree plus the out-of-tree plugins, like app.WithPlugin), the configuration
checked against it, then the scheduler, and the cluster brought to life when it has timelines
or workloads.
"""
from __future__ import annotations

from .config import parse_configuration
from .loader import Cluster
from .plugins.registry import default_registry
from .scheduler import Scheduler
from .timeline.life import attach
from .timings import PluginTimer


def build_scheduler(cluster: Cluster, config: dict | None = None, *, config_file: str = "",
                    seed: int = 0, observer=None, out_of_tree: dict | None = None,
                    record: bool = False) -> Scheduler:
    """The scheduler over `cluster` with `config` (None: the cluster's own document).

    config_file names the configuration in error messages. record: keep the timeline recorder
    (steps, samples, plugin timings) even for a cluster without timelines.
    """
    registry = default_registry(out_of_tree)
    cfg = parse_configuration(config if config is not None else cluster.config, registry,
                              file=config_file)
    scheduler = Scheduler(cluster, cfg, seed=seed, observer=observer, registry=registry)
    timer = PluginTimer(scheduler.frameworks.values()) if record else None
    scheduler.life = attach(scheduler, timer=timer, always=record)
    return scheduler
