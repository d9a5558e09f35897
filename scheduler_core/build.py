"""build_scheduler(): the one way to assemble the engine, for every caller.

The command line, the benchmarks, the playground's run sessions and its compare page all come
here with a loaded cluster, as kube-scheduler's app.Setup does with its options: the plugin
registry (in tree plus the out-of-tree plugins, like app.WithPlugin), the configuration
checked against it, then the scheduler, and the cluster brought to life when it has timelines
or workloads.
"""
from __future__ import annotations

from .config import parse_configuration
from .features import FeatureGates
from .loader import Cluster
from .plugins.registry import default_registry
from .scheduler import Scheduler
from .timeline.life import attach
from .timings import PluginTimer

# The contract's --until when the input has a CronJob and none is given: an hour of schedule.
CRONJOB_DEFAULT_UNTIL = 3600.0


def build_scheduler(cluster: Cluster, config: dict | None = None, *, config_file: str = "",
                    seed: int = 0, observer=None, out_of_tree: dict | None = None,
                    record: bool = False, until: float | None = None,
                    features: FeatureGates | None = None,
                    drop_removed_plugins: bool = False) -> Scheduler:
    """The scheduler over `cluster` with `config` (None: the cluster's own document).

    features: the release and gates to follow (None: those the cluster was loaded under);
    the default profile, plugin arguments and gates are fixed here, once.
    config_file names the configuration in error messages. record: keep the timeline recorder
    (steps, samples, plugin timings) even for a cluster without timelines. until: the
    virtual second the run stops at (None: when nothing can change, or an hour with a CronJob).
    drop_removed_plugins: plugins kube-scheduler removed are left out with a warning each
    (into the cluster's warnings), as for an old kube-scheduler-simulator export.
    """
    features = features or cluster.features
    registry = default_registry(out_of_tree, features=features)
    cfg = parse_configuration(config if config is not None else cluster.config, registry,
                              file=config_file, features=features,
                              duplicates=cluster.config_duplicates if config is None else (),
                              drop_removed=drop_removed_plugins)
    cluster.warnings.extend(cfg.warnings)
    scheduler = Scheduler(cluster, cfg, seed=seed, observer=observer, registry=registry,
                          features=features)
    scheduler.until = until if until is not None else default_until(cluster)
    timer = PluginTimer(scheduler.frameworks.values()) if record else None
    scheduler.life = attach(scheduler, timer=timer, always=record)
    return scheduler


def default_until(cluster: Cluster) -> float | None:
    """An hour when the input has a CronJob, or a timeline creates one (its schedule would
    otherwise keep the run going for ever); no bound otherwise."""
    kinds = [w.get("kind") for w in cluster.workloads]
    for _, doc in cluster.timelines:
        spec = doc.get("spec")
        steps = spec.get("steps") if isinstance(spec, dict) else None
        # Not checked yet (timeline.attach refuses a malformed one): read only what is sound.
        for step in steps if isinstance(steps, list) else []:
            if isinstance(step, dict) and isinstance(step.get("object"), dict):
                kinds.append(step["object"].get("kind"))
    return CRONJOB_DEFAULT_UNTIL if "CronJob" in kinds else None
