"""Out-of-tree plugins: not in plugins/registry.py's IN_TREE, registered by dotted path.

Register them as kube-scheduler's app.WithPlugin would: the CLI's
`--plugin Coscheduling=scheduler_core.outoftree.coscheduling`, the Django setting
SCHEDULER_OUT_OF_TREE_PLUGINS, or the `scheduler_core.plugins` entry point group.
docs/PLUGIN_GUIDE.md explains how, and template/ is a plugin to copy.
"""

# Name -> dotted path of the plugins this package ships, ready for default_registry(out_of_tree=).
PLUGINS = {
    "Coscheduling": "scheduler_core.outoftree.coscheduling",
    "GPUScorer": "scheduler_core.outoftree.gpu_scorer",
    "BindAudit": "scheduler_core.outoftree.bind_audit",
    "CapacityScheduling": "scheduler_core.outoftree.capacity_scheduling",
}
