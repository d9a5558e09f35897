"""The scheduler's volume binder (volumebinding/binder.go) with its assume caches.

PreFilter sorts a pod's claims (GetPodVolumeClaims), Filter matches them against a node
(FindPodVolumes), Reserve assumes the chosen bindings in memory (AssumePodVolumes), Unreserve
forgets them (RevertAssumedPodVolumes) and PreBind writes them to the cluster objects
(BindPodVolumes), doing at once what the PV controller and an external provisioner would do.
"""
from __future__ import annotations

import copy
import uuid
from dataclasses import dataclass, field

from ...labels import LabelSelector, SelectorError
from ...quantity import QuantityError, int_value
from . import storage as st
from .storage import NotFoundError, go_quote, meta, spec

ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
ERR_REASON_NODE_CONFLICT = "node(s) had volume node affinity conflict"
ERR_REASON_NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"
ERR_REASON_PV_NOT_EXIST = (
    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)")


class AssumeCache:
    """assumecache.AssumeCache over one kind of the cluster objects.

    An assumed object shadows the API object it was made from until it is restored, or until
    the API object changes (Go drops an assumed object once the informer delivers a newer
    resourceVersion; a changed manifest stands for that newer version here).
    """

    def __init__(self, api, type_name: str):
        self._api = api                  # callable: the live {key: object} dict
        self._type_name = type_name
        self._assumed: dict[str, tuple[dict, dict]] = {}  # key -> (API object then, assumed)

    def _not_found(self, key: str) -> NotFoundError:
        return NotFoundError(f"could not find {self._type_name} {go_quote(key)}")

    def _assumed_object(self, key: str) -> dict | None:
        entry = self._assumed.get(key)
        if entry is None:
            return None
        if self._api().get(key) != entry[0]:
            del self._assumed[key]
            return None
        return entry[1]

    def get(self, key: str) -> dict:
        """The latest object: the assumed one if any, else the API object."""
        obj = self._assumed_object(key)
        if obj is not None:
            return obj
        api = self._api().get(key)
        if api is None:
            raise self._not_found(key)
        return api

    def get_api(self, key: str) -> dict:
        api = self._api().get(key)
        if api is None:
            raise self._not_found(key)
        return api

    def is_assumed(self, key: str) -> bool:
        return self._assumed_object(key) is not None

    def list(self) -> list[dict]:
        return [self.get(key) for key in sorted(self._api())]

    def assume(self, key: str, obj: dict) -> None:
        api = self._api().get(key)
        if api is None:
            raise self._not_found(key)
        # Assuming again keeps the API object of the first assumption as the base.
        base = self._assumed[key][0] if self._assumed_object(key) is not None else None
        self._assumed[key] = (copy.deepcopy(api) if base is None else base, obj)

    def restore(self, key: str) -> None:
        self._assumed.pop(key, None)


@dataclass
class BindingInfo:
    """A claim and the static volume chosen for it."""
    pvc: dict
    pv: dict

    def storage_class_name(self) -> str:
        return spec(self.pv).get("storageClassName") or ""


@dataclass
class PodVolumes:
    """What Filter found for one node: static bindings and claims to provision."""
    static_bindings: list[BindingInfo] = field(default_factory=list)
    dynamic_provisions: list[dict] = field(default_factory=list)
    # DynamicProvision.NodeCapacity: the CSIStorageCapacity that let each claim (by key) be
    # provisioned on the node, for Score under StorageCapacityScoring.
    node_capacities: dict[str, dict] = field(default_factory=dict)
    # The API objects as Reserve saw them, keyed ("pv", name) / ("pvc", "ns/name"): PreBind's
    # updates conflict when they changed since, as a stale resourceVersion does in Go.
    api_versions: dict = field(default_factory=dict)


@dataclass
class PodVolumeClaims:
    """A pod's claims sorted by GetPodVolumeClaims."""
    bound_claims: list[dict] = field(default_factory=list)
    unbound_claims_delay_binding: list[dict] = field(default_factory=list)
    unbound_claims_immediate: list[dict] = field(default_factory=list)
    # storage class name -> the PVs of that class, for the delay-binding claims
    unbound_volumes_delay_binding: dict[str, list[dict]] = field(default_factory=dict)


def _volume_limit(capacity: dict) -> int | None:
    """volumeLimit: maximumVolumeSize when set (it is more precise), else capacity."""
    value = capacity.get("maximumVolumeSize")
    if value is None:
        value = capacity.get("capacity")
    if value is None:
        return None
    try:
        return int_value(value)
    except QuantityError:
        return None


class VolumeBinder:
    """volumeBinder: the binding decisions of one VolumeBinding plugin instance."""

    def __init__(self, handle, bind_timeout_seconds: int):
        self.handle = handle
        # How long Go's PreBind waits for the PV controller; here the controller's work is done
        # within PreBind itself, so the wait never runs out.
        self.bind_timeout_seconds = bind_timeout_seconds
        self.pv_cache = AssumeCache(lambda: handle.objects.pvs, "v1.PersistentVolume")
        self.pvc_cache = AssumeCache(lambda: handle.objects.pvcs, "v1.PersistentVolumeClaim")

    @property
    def objects(self):
        return self.handle.objects

    # --- PreFilter -----------------------------------------------------------------------------

    def _is_pvc_bound(self, namespace: str, name: str) -> tuple[bool, dict | None, str | None]:
        key = f"{namespace}/{name}"
        try:
            pvc = self.pvc_cache.get(key)
        except NotFoundError as exc:
            return False, None, f"error getting PVC {go_quote(key)}: {exc}"
        return st.is_pvc_fully_bound(pvc), pvc, None

    def is_volume_bound(self, pod, volume: dict) -> tuple[bool, dict | None, str | None]:
        name, ephemeral = st.claim_name_for_volume(pod, volume)
        if name is None:
            return True, None, None
        bound, pvc, err = self._is_pvc_bound(pod.namespace, name)
        # A generic ephemeral volume's claim must also be owned by the pod.
        if ephemeral and err is None and pvc is not None:
            owner_err = st.volume_is_for_pod(pod, pvc)
            if owner_err:
                return False, None, owner_err
        return bound, pvc, err

    def are_pod_volumes_bound(self, pod) -> bool:
        return all(self.is_volume_bound(pod, v)[0] for v in pod.spec.get("volumes") or [])

    def list_pvs(self, class_name: str) -> list[dict]:
        """pvAssumeCache.ListPVs: the latest PVs of a storage class."""
        return [pv for pv in self.pv_cache.list() if st.pv_class(pv) == class_name]

    def get_pod_volume_claims(self, pod) -> tuple[PodVolumeClaims, str | None]:
        claims = PodVolumeClaims()
        for volume in pod.spec.get("volumes") or []:
            bound, pvc, err = self.is_volume_bound(pod, volume)
            if err:
                return claims, err
            if pvc is None:
                continue
            if bound:
                claims.bound_claims.append(pvc)
                continue
            delay, err = st.is_delay_binding_mode(pvc, self.objects.storage_classes)
            if err:
                return claims, err
            # A pre-bound claim (volumeName set, not yet bound) is the PV controller's job.
            if delay and not spec(pvc).get("volumeName"):
                claims.unbound_claims_delay_binding.append(pvc)
            else:
                claims.unbound_claims_immediate.append(pvc)
        for pvc in claims.unbound_claims_delay_binding:
            name = st.claim_class(pvc)
            claims.unbound_volumes_delay_binding[name] = self.list_pvs(name)
        return claims, None

    # --- Filter --------------------------------------------------------------------------------

    def try_translate_pv_to_csi(self, pv: dict, csinode: dict | None) -> dict:
        """An in-tree PV as its CSI driver sees it, when migration is on for it on the node."""
        plugin = st.in_tree_plugin_of(spec(pv))
        # isCSIMigrationOnForPlugin: the GA migrations, and Portworx (on by default in v1.31).
        if plugin not in (st.AWS_EBS, st.GCE_PD, st.AZURE_DISK, st.CINDER, st.PORTWORX):
            return pv
        if plugin not in st.migrated_plugins(csinode):
            return pv
        return st.translate_pv_to_csi(pv)

    def check_bound_claims(self, claims: list[dict], node_info) -> tuple[bool, bool]:
        """(bound volumes satisfied, bound PVs found) for this node."""
        csinode = self.objects.csinodes.get(node_info.name)
        for pvc in claims:
            try:
                pv = self.pv_cache.get(spec(pvc).get("volumeName") or "")
            except NotFoundError:
                return True, False
            pv = self.try_translate_pv_to_csi(pv, csinode)
            if st.check_node_affinity(pv, node_info.labels) is not None:
                return False, True
        return True, True

    def find_matching_volumes(self, claims: list[dict], volumes: dict[str, list[dict]],
                              node_info) -> tuple[bool, list[BindingInfo], list[dict], str | None]:
        """Match claims, smallest request first, to the smallest fitting volume each."""
        chosen: dict[str, dict] = {}
        bindings, unbound, found = [], [], True
        for pvc in sorted(claims, key=st.requested_quantity):
            pv, err = st.find_matching_volume(pvc, volumes.get(st.claim_class(pvc), []),
                                              node_info.labels, chosen, True)
            if err:
                return False, [], [], err
            if pv is None:
                unbound.append(pvc)
                found = False
                continue
            chosen[meta(pv)["name"]] = pv
            bindings.append(BindingInfo(pvc, pv))
        return found, bindings, unbound, None

    def _node_has_access(self, node_info, capacity: dict) -> bool:
        topology = capacity.get("nodeTopology")
        if topology is None:
            return False
        try:
            return LabelSelector(topology).matches(node_info.labels)
        except SelectorError:
            return False

    def has_enough_capacity(self, provisioner: str, claim: dict, sc: dict, node_info
                            ) -> tuple[bool, dict | None]:
        """CSIStorageCapacity check, for CSI drivers that opt into it: whether the claim fits,
        and the first accessible CSIStorageCapacity it fits in (None when nothing was checked)."""
        if "storage" not in ((spec(claim).get("resources") or {}).get("requests") or {}):
            return True, None
        driver = next((d for d in self.objects.extra.get("CSIDriver", [])
                       if meta(d).get("name") == provisioner), None)
        if driver is None or not spec(driver).get("storageCapacity"):
            return True, None
        size = st.requested_bytes(claim)
        sc_name = meta(sc).get("name")
        for capacity in self.objects.extra.get("CSIStorageCapacity", []):
            limit = _volume_limit(capacity)
            if capacity.get("storageClassName") == sc_name and limit is not None \
                    and limit >= size and self._node_has_access(node_info, capacity):
                return True, capacity
        return False, None

    def check_volume_provisions(self, claims: list[dict], node_info
                                ) -> tuple[bool, bool, list[dict], dict[str, dict], str | None]:
        """(provisioning satisfied, sufficient storage, claims to provision, the capacity each
        provisioned claim fits in by claim key, error)."""
        provisions, capacities = [], {}
        for claim in claims:
            class_name = st.claim_class(claim)
            if not class_name:
                return False, False, [], {}, f"no class for claim {go_quote(st.claim_key(claim))}"
            sc = self.objects.storage_classes.get(class_name)
            if sc is None:
                return False, False, [], {}, f"failed to find storage class {go_quote(class_name)}"
            provisioner = sc.get("provisioner") or ""
            if not provisioner or provisioner == st.NOT_SUPPORTED_PROVISIONER:
                return False, True, [], {}, None
            if not st.match_topology_selector_terms(sc.get("allowedTopologies"),
                                                    node_info.labels):
                return False, True, [], {}, None
            sufficient, capacity = self.has_enough_capacity(provisioner, claim, sc, node_info)
            if not sufficient:
                return True, False, [], {}, None
            provisions.append(claim)
            if capacity is not None:
                capacities[st.claim_key(claim)] = capacity
        return True, True, provisions, capacities, None

    def find_pod_volumes(self, pod, claims: PodVolumeClaims, node_info
                         ) -> tuple[PodVolumes, list[str], str | None]:
        """Whether the node can serve every claim; the bindings and provisions it would take."""
        volumes = PodVolumes()
        bound_ok = unbound_ok = sufficient = pvs_found = True
        if claims.bound_claims:
            bound_ok, pvs_found = self.check_bound_claims(claims.bound_claims, node_info)
        if claims.unbound_claims_delay_binding:
            to_match, to_provision = [], []
            for claim in claims.unbound_claims_delay_binding:
                annotations = st.annotations(claim)
                if st.ANN_SELECTED_NODE not in annotations:
                    to_match.append(claim)
                elif annotations[st.ANN_SELECTED_NODE] != node_info.name:
                    # Fast path: provisioning was already started for another node.
                    unbound_ok = False
                    break
                else:
                    to_provision.append(claim)
            else:
                if to_match:
                    unbound_ok, volumes.static_bindings, unbound, err = \
                        self.find_matching_volumes(to_match, claims.unbound_volumes_delay_binding,
                                                   node_info)
                    if err:
                        return PodVolumes(), [], err
                    to_provision += unbound
                if to_provision:
                    unbound_ok, sufficient, volumes.dynamic_provisions, \
                        volumes.node_capacities, err = \
                        self.check_volume_provisions(to_provision, node_info)
                    if err:
                        return PodVolumes(), [], err
        reasons = []
        if not bound_ok:
            reasons.append(ERR_REASON_NODE_CONFLICT)
        if not unbound_ok:
            reasons.append(ERR_REASON_BIND_CONFLICT)
        if not sufficient:
            reasons.append(ERR_REASON_NOT_ENOUGH_SPACE)
        if not pvs_found:
            reasons.append(ERR_REASON_PV_NOT_EXIST)
        return volumes, reasons, None

    # --- Reserve / Unreserve -------------------------------------------------------------------

    @staticmethod
    def bind_volume_to_claim(pv: dict, pvc: dict) -> tuple[dict, bool]:
        """volume.GetBindVolumeToClaim: a copy of pv bound to pvc, and whether anything changed."""
        set_bound_by_controller = not st.is_volume_bound_to_claim(pv, pvc)
        clone = copy.deepcopy(pv)
        clone.setdefault("spec", {})
        dirty = False
        ref = spec(pv).get("claimRef") or {}
        m = meta(pvc)
        if not ref or ref.get("name") != m.get("name") or \
                ref.get("namespace") != (m.get("namespace") or "default") or \
                (ref.get("uid") or "") != (m.get("uid") or ""):
            clone["spec"]["claimRef"] = st.claim_reference(pvc)
            dirty = True
        if set_bound_by_controller and st.ANN_BOUND_BY_CONTROLLER not in st.annotations(clone):
            clone.setdefault("metadata", {})
            clone["metadata"]["annotations"] = dict(st.annotations(clone))
            clone["metadata"]["annotations"][st.ANN_BOUND_BY_CONTROLLER] = "yes"
            dirty = True
        return clone, dirty

    def revert_assumed(self, volumes: PodVolumes) -> list[dict]:
        """RevertAssumedPodVolumes; returns what was really restored."""
        reverted = []
        for binding in volumes.static_bindings:
            name = meta(binding.pv).get("name", "")
            if self.pv_cache.is_assumed(name):
                reverted.append({"kind": "PersistentVolume", "name": name,
                                 "claim": st.claim_key(binding.pvc)})
            self.pv_cache.restore(name)
        for claim in volumes.dynamic_provisions:
            key = st.claim_key(claim)
            if self.pvc_cache.is_assumed(key):
                reverted.append({"kind": "PersistentVolumeClaim", "name": key,
                                 "selectedNode": st.annotations(claim).get(st.ANN_SELECTED_NODE)})
            self.pvc_cache.restore(key)
        return reverted

    def assume_pod_volumes(self, pod, node_name: str, volumes: PodVolumes
                           ) -> tuple[bool, list[dict], str | None]:
        """(all bound already, what was assumed, error): static PVs get the claim, claims to
        provision get the selected-node annotation, in the caches only."""
        if self.are_pod_volumes_bound(pod):
            return True, [], None
        assumed, new_bindings, versions = [], [], {}
        for binding in volumes.static_bindings:
            new_pv, dirty = self.bind_volume_to_claim(binding.pv, binding.pvc)
            name = meta(new_pv).get("name", "")
            api = self.objects.pvs.get(name)
            if api is not None:
                versions[("pv", name)] = copy.deepcopy(api)
            if dirty:
                try:
                    self.pv_cache.assume(name, new_pv)
                except NotFoundError as exc:
                    self.revert_assumed(PodVolumes(new_bindings))
                    return False, [], str(exc)
                assumed.append({"kind": "PersistentVolume", "name": name,
                                "claim": st.claim_key(binding.pvc)})
            new_bindings.append(BindingInfo(binding.pvc, new_pv))
        new_claims = []
        for claim in volumes.dynamic_provisions:
            clone = copy.deepcopy(claim)
            clone.setdefault("metadata", {})
            clone["metadata"]["annotations"] = dict(st.annotations(clone))
            clone["metadata"]["annotations"][st.ANN_SELECTED_NODE] = node_name
            key = st.claim_key(clone)
            if key in self.objects.pvcs:
                versions[("pvc", key)] = copy.deepcopy(self.objects.pvcs[key])
            try:
                self.pvc_cache.assume(key, clone)
            except NotFoundError as exc:
                self.revert_assumed(PodVolumes(new_bindings, new_claims))
                return False, [], str(exc)
            assumed.append({"kind": "PersistentVolumeClaim", "name": key,
                            "selectedNode": node_name})
            new_claims.append(clone)
        volumes.static_bindings = new_bindings
        volumes.dynamic_provisions = new_claims
        volumes.api_versions = versions
        return False, assumed, None

    # --- PreBind -------------------------------------------------------------------------------

    @staticmethod
    def _conflict(volumes: PodVolumes, key: tuple, api: dict, resource: str, name: str):
        seen = volumes.api_versions.get(key)
        if seen is not None and api != seen:
            return (f"Operation cannot be fulfilled on {resource} {go_quote(name)}: the object has "
                    f"been modified; please apply your changes to the latest version and try again")
        return None

    @staticmethod
    def _complete_claim_binding(pvc: dict, pv: dict) -> None:
        """What the PV controller does to a claim once its volume points at it."""
        pvc.setdefault("spec", {})["volumeName"] = meta(pv)["name"]
        ann = pvc.setdefault("metadata", {}).get("annotations") or {}
        pvc["metadata"]["annotations"] = ann
        ann[st.ANN_BIND_COMPLETED] = "yes"
        ann[st.ANN_BOUND_BY_CONTROLLER] = "yes"
        status = pvc.get("status") or {}
        pvc["status"] = status
        status["phase"] = "Bound"
        if spec(pv).get("accessModes"):
            status["accessModes"] = list(spec(pv)["accessModes"])
        if spec(pv).get("capacity"):
            status["capacity"] = dict(spec(pv)["capacity"])

    def _provisioned_pv(self, pvc: dict, sc: dict, node_info) -> dict:
        """The volume an external provisioner would create for the claim on the selected node.

        Its topology pins it where the class allows: the keys of allowedTopologies, or else
        the node's zone, with the selected node's values.
        """
        m = meta(pvc)
        uid = m.get("uid") or str(uuid.uuid5(uuid.NAMESPACE_URL, f"pvc/{st.claim_key(pvc)}"))
        name, n = f"pvc-{uid}", 1
        while name in self.objects.pvs:
            n += 1
            name = f"pvc-{uid}-{n}"
        provisioner = sc.get("provisioner") or ""
        pv_spec = {
            "capacity": {"storage": ((spec(pvc).get("resources") or {}).get("requests") or {})
                         .get("storage", "0")},
            "accessModes": list(spec(pvc).get("accessModes") or []),
            "storageClassName": st.claim_class(pvc),
            "persistentVolumeReclaimPolicy": sc.get("reclaimPolicy") or "Delete",
            "volumeMode": spec(pvc).get("volumeMode") or "Filesystem",
            "claimRef": st.claim_reference(pvc),
        }
        if not provisioner.startswith("kubernetes.io/"):
            pv_spec["csi"] = {"driver": provisioner, "volumeHandle": name}
        keys = list(dict.fromkeys(e.get("key", "") for term in sc.get("allowedTopologies") or []
                                  for e in term.get("matchLabelExpressions") or []))
        if not keys and st.ZONE_GA in node_info.labels:
            keys = [st.ZONE_GA]
        exprs = [{"key": k, "operator": "In", "values": [node_info.labels[k]]}
                 for k in keys if k in node_info.labels]
        if exprs:
            pv_spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [
                {"matchExpressions": exprs}]}}
        return {"apiVersion": "v1", "kind": "PersistentVolume",
                "metadata": {"name": name,
                             "annotations": {st.ANN_DYNAMICALLY_PROVISIONED: provisioner,
                                             st.ANN_BOUND_BY_CONTROLLER: "yes"}},
                "spec": pv_spec, "status": {"phase": "Bound"}}

    def bind_pod_volumes(self, pod, node_name: str, volumes: PodVolumes
                         ) -> tuple[list[dict], list[dict], str | None]:
        """(bound, provisioned, error): the API updates of bindAPIUpdate, then the PV
        controller's and the provisioner's work, then checkBindings."""
        node_info = self.handle.snapshot.get(node_name)
        if node_info is None:
            return [], [], (f"failed to get node {go_quote(node_name)}: "
                            f"node {go_quote(node_name)} not found")
        bound, provisioned = [], []
        # The volumes and claims below are edited in place: what was kept from them goes.
        self.objects.storage_changed()
        for i, binding in enumerate(volumes.static_bindings):
            name = meta(binding.pv).get("name", "")
            api = self.objects.pvs.get(name)
            err = st.not_found("persistentvolumes", name) if api is None else \
                self._conflict(volumes, ("pv", name), api, "persistentvolumes", name)
            if err:
                # Only what was not written yet goes back; there is no API rollback.
                self.revert_assumed(PodVolumes(volumes.static_bindings[i:],
                                               volumes.dynamic_provisions))
                return bound, provisioned, err
            written = copy.deepcopy(binding.pv)  # binding.pv may be the API object itself
            api.clear()
            api.update(written)
            api["status"] = dict(api.get("status") or {}, phase="Bound")
            self.pv_cache.restore(name)
            pvc = self.objects.pvcs.get(st.claim_key(binding.pvc))
            if pvc is not None:
                self._complete_claim_binding(pvc, api)
            bound.append({"pv": name, "pvc": st.claim_key(binding.pvc)})
        for i, claim in enumerate(volumes.dynamic_provisions):
            key = st.claim_key(claim)
            api = self.objects.pvcs.get(key)
            err = st.not_found("persistentvolumeclaims", meta(claim).get("name", "")) \
                if api is None else self._conflict(volumes, ("pvc", key), api,
                                                   "persistentvolumeclaims",
                                                   meta(claim).get("name", ""))
            if err:
                self.revert_assumed(PodVolumes([], volumes.dynamic_provisions[i:]))
                return bound, provisioned, err
            sc = self.objects.storage_classes.get(st.claim_class(claim)) or {}
            written = copy.deepcopy(claim)
            api.clear()
            api.update(written)
            api["metadata"]["annotations"][st.ANN_STORAGE_PROVISIONER] = sc.get("provisioner", "")
            api["metadata"]["annotations"][st.ANN_BETA_STORAGE_PROVISIONER] = \
                sc.get("provisioner", "")
            self.pvc_cache.restore(key)
            pv = self._provisioned_pv(api, sc, node_info)
            self.objects.pvs[pv["metadata"]["name"]] = pv
            self._complete_claim_binding(api, pv)
            provisioned.append({"pvc": key, "pv": pv["metadata"]["name"], "node": node_name,
                                "provisioner": sc.get("provisioner", "")})
        return bound, provisioned, self._check_bindings(volumes, node_info)

    def _check_bindings(self, volumes: PodVolumes, node_info) -> str | None:
        """checkBindings: every volume just bound must be usable from the node."""
        csinode = self.objects.csinodes.get(node_info.name)
        names = [meta(b.pv).get("name", "") for b in volumes.static_bindings]
        names += [spec(self.objects.pvcs.get(st.claim_key(c)) or {}).get("volumeName", "")
                  for c in volumes.dynamic_provisions]
        for name in names:
            pv = self.objects.pvs.get(name)
            if pv is None:
                continue
            pv = self.try_translate_pv_to_csi(pv, csinode)
            err = st.check_node_affinity(pv, node_info.labels)
            if err:
                return (f"binding volumes: pv {go_quote(name)} node affinity doesn't match node "
                        f"{go_quote(node_info.name)}: {err}")
        return None
