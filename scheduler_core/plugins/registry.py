"""The in-tree plugins by name (plugins/registry.go's NewInTreeRegistry), and the registry a
scheduler starts from: the in-tree plugins, then installed entry points, then out-of-tree
plugins by dotted path (app.WithPlugin).

The framework's Registry knows no plugin; this side of the tree lists them, as in Go.
"""
from __future__ import annotations

from ..features import DEFAULT_GATES, FeatureGates
from ..framework.registry import Registry
from . import names

IN_TREE = {
    names.SCHEDULING_GATES: "scheduler_core.plugins.schedulinggates",
    names.PRIORITY_SORT: "scheduler_core.plugins.queuesort",
    names.NODE_UNSCHEDULABLE: "scheduler_core.plugins.nodeunschedulable",
    names.NODE_NAME: "scheduler_core.plugins.nodename",
    names.TAINT_TOLERATION: "scheduler_core.plugins.tainttoleration",
    names.NODE_AFFINITY: "scheduler_core.plugins.nodeaffinity",
    names.NODE_DECLARED_FEATURES: "scheduler_core.plugins.nodedeclaredfeatures",
    names.NODE_PORTS: "scheduler_core.plugins.nodeports",
    names.NODE_RESOURCES_FIT: "scheduler_core.plugins.noderesources.fit",
    names.VOLUME_RESTRICTIONS: "scheduler_core.plugins.volumerestrictions",
    names.NODE_VOLUME_LIMITS: "scheduler_core.plugins.nodevolumelimits",
    names.VOLUME_BINDING: "scheduler_core.plugins.volumebinding",
    names.VOLUME_ZONE: "scheduler_core.plugins.volumezone",
    names.POD_TOPOLOGY_SPREAD: "scheduler_core.plugins.podtopologyspread",
    names.INTER_POD_AFFINITY: "scheduler_core.plugins.interpodaffinity",
    names.DEFAULT_PREEMPTION: "scheduler_core.plugins.defaultpreemption",
    names.DYNAMIC_RESOURCES: "scheduler_core.plugins.dynamicresources",
    names.NODE_RESOURCES_BALANCED_ALLOCATION:
        "scheduler_core.plugins.noderesources.balanced_allocation",
    names.IMAGE_LOCALITY: "scheduler_core.plugins.imagelocality",
    names.DEFAULT_BINDER: "scheduler_core.plugins.defaultbinder",
    names.GANG_SCHEDULING: "scheduler_core.plugins.gangscheduling",
}


# The release that brought each in-tree plugin newer than v1.34: an older release's
# NewInTreeRegistry lacks it, so its kube-scheduler refuses a configuration naming it.
IN_TREE_SINCE = {names.NODE_DECLARED_FEATURES: 35, names.GANG_SCHEDULING: 35}


def in_tree_registry(features: FeatureGates = DEFAULT_GATES) -> Registry:
    """NewInTreeRegistry of the release `features` follows."""
    return Registry({name: path for name, path in IN_TREE.items()
                     if IN_TREE_SINCE.get(name, 0) <= features.minor})


def default_registry(out_of_tree: dict[str, str] | None = None,
                     entry_points_too: bool = True,
                     features: FeatureGates = DEFAULT_GATES) -> Registry:
    """The in-tree plugins of the release, then installed entry points, then the given
    dotted paths."""
    registry = in_tree_registry(features)
    if entry_points_too:
        registry.load_entry_points()
    registry.merge(out_of_tree or {})
    return registry
