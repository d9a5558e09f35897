"""Workload controllers, as kube-controller-manager runs them, over a cluster of dicts.

Each module is one controller with `KIND` and `sync(obj, world) -> bool` (True when it
created or deleted something). `world` is the cluster the controllers act on: at load time
the Cluster being built (`manager.LoadWorld`), during a run the live scheduler
(`scheduler_core.timeline.world.LiveWorld`). The ControllerManager syncs every workload until
nothing changes, which is how a Deployment's new ReplicaSet gets its pods in the same pass.
"""
