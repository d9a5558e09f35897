"""ReplicationController (pkg/controller/replication): the ReplicaSet controller over v1
ReplicationControllers, as Go wraps it (its conversion makes an RC look like a ReplicaSet).

Pods are `<rc>-` plus five random characters, labelled from the template, with a controller
owner reference of apiVersion v1, kind ReplicationController. The API server defaults an RC's
selector and labels to its template's labels and its replicas to 1; only the replicas matter
to the controller here, which counts its pods by owner reference.
"""
from __future__ import annotations

from . import replicaset

KIND = "ReplicationController"


def sync(rc: dict, world) -> bool:
    return replicaset.sync(rc, world)
