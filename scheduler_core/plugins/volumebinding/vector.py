"""VolumeBinding's Filter and Score on the columns, for pods whose claims are all bound.

Then FindPodVolumes only checks each bound volume's node affinity (checkBoundClaims), which
reads the node's labels alone: it is decided once per class of nodes alike under the keys the
affinity names. An in-tree volume is checked as translated to CSI where the node's CSINode
lists its plugin as migrated; only the nodes where the two answers differ look their CSINode
up. Such a pod binds nothing, so every node that passes has empty PodVolumes and scores 0.
Pods with unbound claims keep the per-node Filter.
"""
from __future__ import annotations

import numpy as np

from ...columns.verdict import Verdict
from ...framework.status import Code
from . import storage as st
from .binder import ERR_REASON_NODE_CONFLICT, ERR_REASON_PV_NOT_EXIST, PodVolumes
from .storage import NotFoundError, spec

NODE_CONFLICT, PV_NOT_EXIST = 1, 2
OUTCOMES = {NODE_CONFLICT: (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_NODE_CONFLICT,)),
            PV_NOT_EXIST: (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_PV_NOT_EXIST,))}
# isCSIMigrationOnForPlugin's plugins, as VolumeBinder.try_translate_pv_to_csi reads them.
MIGRATABLE = (st.AWS_EBS, st.GCE_PD, st.AZURE_DISK, st.CINDER, st.PORTWORX)


class PassedNodes(dict):
    """pod_volumes_by_node after a vectorized Filter: every node that passed has empty
    PodVolumes (made when first read), as the per-node Filter would have recorded."""

    def __init__(self, kinds: np.ndarray, position: dict[str, int]):
        super().__init__()
        self.kinds, self.position = kinds, position

    def _passed(self, name: str) -> bool:
        row = self.position.get(name)
        return row is not None and not self.kinds[row]

    def get(self, name, default=None):
        if not dict.__contains__(self, name) and self._passed(name):
            self[name] = PodVolumes()
        return dict.get(self, name, default)

    def __contains__(self, name) -> bool:
        return dict.__contains__(self, name) or self._passed(name)


def filter_vector(binder, data, cols) -> Verdict | None:
    """checkBoundClaims for every node, as find_pod_volumes reports it; None when the pod has
    unbound claims. Records the passing nodes' PodVolumes in `data`."""
    claims = data.pod_volume_claims
    if claims is None or claims.unbound_claims_delay_binding:
        return None
    kinds = np.zeros(cols.size, np.int32)
    undecided = np.ones(cols.size, bool)
    for pvc in claims.bound_claims:
        try:
            pv = binder.pv_cache.get(spec(pvc).get("volumeName") or "")
        except NotFoundError:
            kinds[undecided] = PV_NOT_EXIST
            break
        conflict = _conflicts(binder, pv, cols)
        if conflict is not None:
            conflict &= undecided
            kinds[conflict] = NODE_CONFLICT
            undecided &= ~conflict
    data.pod_volumes_by_node = PassedNodes(kinds, cols.position)
    if not kinds.any():
        return Verdict.uniform(cols.size, None)
    return Verdict(kinds, OUTCOMES)


def _conflicts(binder, pv: dict, cols) -> np.ndarray | None:
    """Per row, whether the volume's node affinity rules the node out (None: no node)."""
    plugin = st.in_tree_plugin_of(spec(pv))
    if plugin not in MIGRATABLE:
        return _affinity_conflicts(pv, cols)
    if not _has_affinity(pv) and not st.meta(pv).get("labels"):
        # Translation adds topology only from the volume's zone labels: nothing to check.
        return None
    plain = _affinity_conflicts(pv, cols)
    translated = _affinity_conflicts(st.translate_pv_to_csi(pv), cols)
    if plain is None and translated is None:
        return None
    plain = np.zeros(cols.size, bool) if plain is None else plain
    translated = np.zeros(cols.size, bool) if translated is None else translated
    out = plain.copy()
    csinodes, names = binder.objects.csinodes, cols.names
    for row in np.flatnonzero(plain != translated).tolist():
        if plugin in st.migrated_plugins(csinodes.get(names[row])):
            out[row] = translated[row]
    return out


def _has_affinity(pv: dict) -> bool:
    affinity = spec(pv).get("nodeAffinity")
    return bool(affinity) and affinity.get("required") is not None


def _affinity_conflicts(pv: dict, cols) -> np.ndarray | None:
    """check_node_affinity per row, decided per class of nodes alike under the keys it
    names (it reads the labels alone); None when it passes every node."""
    if not _has_affinity(pv):
        return None
    terms = (spec(pv)["nodeAffinity"]["required"] or {}).get("nodeSelectorTerms") or []
    keys = tuple(sorted({expr.get("key", "") for term in terms
                         for expr in term.get("matchExpressions") or []}))
    class_ids, classes = cols.label_classes(keys)
    conflict = np.array([st.check_node_affinity(pv, labels) is not None for labels in classes],
                        bool).reshape(len(classes))
    if not conflict.any():
        return None
    return conflict[class_ids]


def score_vector(data, rows) -> np.ndarray | None:
    """0 for every node when nothing is to be bound: the vectorized Filter ran, or no node
    has PodVolumes at all (a pod without claims, whose Score still runs in v1.37 under
    StorageCapacityScoring and finds no PodVolumes); None to score node by node."""
    volumes = data.pod_volumes_by_node
    if isinstance(volumes, PassedNodes) or not volumes:
        return np.zeros(len(rows), np.int64)
    return None
