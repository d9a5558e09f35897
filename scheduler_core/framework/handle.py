"""What the framework hands to plugins (framework.Handle), with a minimal in-memory version.

The scheduler implements the same attributes on the real thing; plugin tests use FakeHandle.
"""
from __future__ import annotations

import random

from ..features import DEFAULT_GATES, FeatureGates
from ..warninglog import WarningLog
from .snapshot import Snapshot


class WatchedDict(dict):
    """A dict that counts its writes, so that what is computed from its objects can be kept
    until it changes (`ClusterObjects.storage_version`)."""

    writes = 0

    def __setitem__(self, key, value):
        self.writes += 1
        super().__setitem__(key, value)

    def __delitem__(self, key):
        self.writes += 1
        super().__delitem__(key)

    def pop(self, *args):
        self.writes += 1
        return super().pop(*args)

    def popitem(self):
        self.writes += 1
        return super().popitem()

    def clear(self):
        self.writes += 1
        super().clear()

    def update(self, *args, **kwargs):
        self.writes += 1
        super().update(*args, **kwargs)

    def setdefault(self, key, default=None):
        self.writes += 1
        return super().setdefault(key, default)


def _watched(name: str, generation: str = "_storage_generation"):
    """A ClusterObjects attribute kept as a WatchedDict whatever dict it is given; replacing
    it moves `generation` on."""
    attr = "_" + name

    def get(self):
        return getattr(self, attr)

    def put(self, value):
        setattr(self, generation, getattr(self, generation, 0) + 1)
        setattr(self, attr, value if isinstance(value, WatchedDict) else WatchedDict(value))
    return property(get, put)


class ClusterObjects:
    """Cluster objects other than nodes and pods, as plugins look them up.

    The storage objects (volumes, claims, classes, CSINodes) are WatchedDicts: their
    `storage_version` changes whenever one is written, replaced or, through
    `storage_changed()`, edited in place. ResourceClaims likewise have `claims_version`
    (`claims_changed()` for an edit in place)."""

    pvs = _watched("pvs")
    pvcs = _watched("pvcs")
    storage_classes = _watched("storage_classes")
    csinodes = _watched("csinodes")
    resource_claims = _watched("resource_claims", "_claims_generation")

    def claims_changed(self) -> None:
        """A ResourceClaim was edited in place (its status: allocation, reservedFor)."""
        self._claims_generation += 1

    def claims_version(self) -> tuple:
        """Changes whenever a ResourceClaim is added, replaced, removed or edited."""
        return self._claims_generation, self._resource_claims.writes

    def storage_changed(self) -> None:
        """A volume or claim was edited in place (the binder's writes)."""
        self._storage_generation += 1

    def storage_version(self) -> tuple:
        """Changes whenever a storage object is added, replaced, removed or edited."""
        return (self._storage_generation, self._pvs.writes, self._pvcs.writes,
                self._storage_classes.writes, self._csinodes.writes)

    def __init__(self):
        self.namespaces: dict[str, dict] = {}           # name -> Namespace
        self.priority_classes: dict[str, dict] = {}     # name -> PriorityClass
        self.pdbs: list[dict] = []                      # PodDisruptionBudget manifests
        self.pvs: dict[str, dict] = {}                  # name -> PersistentVolume
        self.pvcs: dict[str, dict] = {}                 # "namespace/name" -> PersistentVolumeClaim
        self.storage_classes: dict[str, dict] = {}      # name -> StorageClass
        self.csinodes: dict[str, dict] = {}             # node name -> CSINode
        self.device_classes: dict[str, dict] = {}       # name -> DeviceClass
        self.resource_claims = {}                       # "namespace/name" -> ResourceClaim
        self.resource_claim_templates: dict[str, dict] = {}  # "namespace/name" -> template
        self.resource_slices: list[dict] = []           # ResourceSlice manifests
        self.extra: dict[str, list[dict]] = {}          # other kinds plugins read (PodGroup, ...)

    def namespace_labels(self, name: str) -> dict:
        ns = self.namespaces.get(name) or {}
        return (ns.get("metadata") or {}).get("labels") or {}


class FakeHandle:
    """A handle over a fixed snapshot, for plugin tests and for what-if runs."""

    def __init__(self, snapshot: Snapshot | None = None, objects: ClusterObjects | None = None,
                 now: float = 0.0, seed: int = 0, features: FeatureGates = DEFAULT_GATES):
        self.snapshot = snapshot or Snapshot([])
        self.features = features       # the release and feature gates plugins read
        self.warnings = WarningLog()   # what plugins said the run does not honour
        self.objects = objects or ClusterObjects()
        self.rng = random.Random(seed)
        self.waiting_pods: dict = {}
        self.pending_pods: list = []   # pods on no node, for list_pods
        self.activated: list = []      # what plugins asked activate() for
        self.cluster_events: list = []  # (event, old, new) that plugins reported
        self._now = now

    def now(self) -> float:
        return self._now

    def nominated_pods_for_node(self, node_name: str) -> list:
        return []

    def get_waiting_pod(self, uid: str):
        return self.waiting_pods.get(uid)

    def iterate_waiting_pods(self):
        return list(self.waiting_pods.values())

    def list_pods(self) -> list:
        return [pi for ni in self.snapshot.list() for pi in ni.pods] + list(self.pending_pods)

    def activate(self, pods) -> None:
        self.activated.extend(pods)

    def cluster_event(self, event: str, *, old=None, new=None) -> None:
        self.cluster_events.append((event, old, new))
