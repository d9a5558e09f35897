"""Storage helpers shared by the volume plugins.

Ports of component-helpers/storage/volume (pv_helpers.go, helpers.go), storage/ephemeral,
cloud-provider/volume/helpers (zone label sets), core/v1/helper (topology selector terms),
volume/util (attach limit keys) and the parts of csi-translation-lib that the scheduler uses.
Objects are plain Kubernetes manifests (dicts).
"""
from __future__ import annotations

import hashlib
import json

from ...labels import LabelSelector, SelectorError, match_node_selector_term
from ...quantity import QuantityError, int_value, parse_quantity

ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
ANN_STORAGE_PROVISIONER = "volume.kubernetes.io/storage-provisioner"
ANN_BETA_STORAGE_PROVISIONER = "volume.beta.kubernetes.io/storage-provisioner"
ANN_DYNAMICALLY_PROVISIONED = "pv.kubernetes.io/provisioned-by"
BETA_STORAGE_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"
MIGRATED_PLUGINS_ANNOTATION = "storage.alpha.kubernetes.io/migrated-plugins"
NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner"
WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"
READ_WRITE_ONCE_POD = "ReadWriteOncePod"
LABEL_MULTI_ZONE_DELIMITER = "__"

ZONE_BETA = "failure-domain.beta.kubernetes.io/zone"
REGION_BETA = "failure-domain.beta.kubernetes.io/region"
ZONE_GA = "topology.kubernetes.io/zone"
REGION_GA = "topology.kubernetes.io/region"


def go_quote(text: str) -> str:
    """Go's %q for the plain strings names are made of."""
    return json.dumps(text)


def not_found(resource: str, name: str) -> str:
    """apierrors.NewNotFound(...).Error() as the informer listers word it.

    resource is the lister's singular name with its group: "persistentvolumeclaim",
    "persistentvolume", "storageclass.storage.k8s.io", "csinode.storage.k8s.io".
    """
    return f"{resource} {go_quote(name)} not found"


class NotFoundError(Exception):
    """A lister miss; the plugins turn it into UnschedulableAndUnresolvable, as Go's IsNotFound."""


def meta(obj: dict) -> dict:
    return obj.get("metadata") or {}


def annotations(obj: dict) -> dict:
    return meta(obj).get("annotations") or {}


def spec(obj: dict) -> dict:
    return obj.get("spec") or {}


def claim_key(pvc: dict) -> str:
    m = meta(pvc)
    return f"{m.get('namespace') or 'default'}/{m.get('name', '')}"


def pod_uid(pod) -> str:
    """The pod's own metadata.uid (not PodInfo's fallback key): owner references compare it."""
    return meta(pod.obj).get("uid") or ""


# --- PVC and PV fields -------------------------------------------------------------------------

def claim_class(pvc: dict) -> str:
    """GetPersistentVolumeClaimClass: the beta annotation first, then spec.storageClassName."""
    ann = annotations(pvc)
    if BETA_STORAGE_CLASS_ANNOTATION in ann:
        return ann[BETA_STORAGE_CLASS_ANNOTATION]
    return spec(pvc).get("storageClassName") or ""


def pv_class(pv: dict) -> str:
    """GetPersistentVolumeClass: the beta annotation first, then spec.storageClassName."""
    ann = annotations(pv)
    if BETA_STORAGE_CLASS_ANNOTATION in ann:
        return ann[BETA_STORAGE_CLASS_ANNOTATION]
    return spec(pv).get("storageClassName") or ""


def _storage_quantity(resources: dict | None):
    value = (resources or {}).get("storage")
    if value is None:
        return parse_quantity(0)
    try:
        return parse_quantity(value)
    except QuantityError:
        return parse_quantity(0)


def requested_quantity(pvc: dict):
    """spec.resources.requests[storage] as an exact Decimal (zero when unset)."""
    return _storage_quantity((spec(pvc).get("resources") or {}).get("requests"))


def capacity_quantity(pv: dict):
    return _storage_quantity(spec(pv).get("capacity"))


def requested_bytes(pvc: dict) -> int:
    """Quantity.Value() of the storage request."""
    value = ((spec(pvc).get("resources") or {}).get("requests") or {}).get("storage")
    return int_value(value) if value is not None else 0


def capacity_bytes(pv: dict) -> int:
    value = (spec(pv).get("capacity") or {}).get("storage")
    return int_value(value) if value is not None else 0


def pv_phase(pv: dict) -> str:
    """status.phase; a PV nobody has looked at yet is what the PV controller makes it: Available."""
    return (pv.get("status") or {}).get("phase") or "Available"


def is_pvc_fully_bound(pvc: dict) -> bool:
    """isPVCFullyBound: a volume name and the bind-completed annotation the PV controller sets.

    A claim whose status says Bound counts too: in the simulation nobody else runs the PV
    controller, so a manifest written as bound stands for a claim the controller finished.
    """
    if not spec(pvc).get("volumeName"):
        return False
    return ANN_BIND_COMPLETED in annotations(pvc) or \
        (pvc.get("status") or {}).get("phase") == "Bound"


# --- Pod volumes -------------------------------------------------------------------------------

def claim_name_for_volume(pod, volume: dict) -> tuple[str | None, bool]:
    """(claim name, is generic ephemeral) for a PVC-backed volume, (None, False) otherwise."""
    if volume.get("persistentVolumeClaim") is not None:
        return (volume["persistentVolumeClaim"] or {}).get("claimName") or "", False
    if volume.get("ephemeral") is not None:
        # ephemeral.VolumeClaimName: <pod name>-<volume name>.
        return f"{pod.name}-{volume.get('name', '')}", True
    return None, False


def volume_is_for_pod(pod, pvc: dict) -> str | None:
    """ephemeral.VolumeIsForPod: the claim must be controlled by this pod."""
    m = meta(pvc)
    ns = m.get("namespace") or "default"
    owned = any(ref.get("controller") and (ref.get("uid") or "") == pod_uid(pod)
                for ref in m.get("ownerReferences") or [])
    if ns != pod.namespace or not owned:
        return (f"PVC {ns}/{m.get('name', '')} was not created for pod "
                f"{pod.namespace}/{pod.name} (pod is not owner)")
    return None


# --- Node affinity and topology ----------------------------------------------------------------

def check_node_affinity(pv: dict, node_labels: dict) -> str | None:
    """volume.CheckNodeAffinity: None when the PV may be used from a node with these labels.

    The node is built from its labels only, so matchFields on metadata.name never match.
    """
    affinity = spec(pv).get("nodeAffinity")
    if not affinity or affinity.get("required") is None:
        return None
    errors = []
    for term in (affinity["required"] or {}).get("nodeSelectorTerms") or []:
        try:
            if match_node_selector_term(term, node_labels, ""):
                return None
        except SelectorError as exc:
            errors.append(str(exc))
    if errors:
        return errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"
    return "no matching NodeSelectorTerms"


def match_topology_selector_terms(terms, node_labels: dict) -> bool:
    """v1helper.MatchTopologySelectorTerms: no terms match everything; terms are ORed."""
    if not terms:
        return True
    for term in terms:
        exprs = term.get("matchLabelExpressions") or []
        if not exprs:
            continue
        # Each requirement is `key in values`; one with no values cannot be built and so the
        # whole term is dropped.
        if any(not e.get("values") for e in exprs):
            continue
        if all(e.get("key", "") in node_labels and node_labels[e.get("key", "")] in e["values"]
               for e in exprs):
            return True
    return False


def label_zones_to_set(value: str) -> tuple[set[str], str | None]:
    """volumehelpers.LabelZonesToSet: "a__b" -> {"a", "b"}; an empty member is an error."""
    zones = set()
    for zone in value.split(LABEL_MULTI_ZONE_DELIMITER):
        zone = zone.strip()
        if not zone:
            return set(), (f"{go_quote(LABEL_MULTI_ZONE_DELIMITER)} separated list "
                           f"({go_quote(value)}) must not contain an empty string")
        zones.add(zone)
    return zones, None


# --- Binding mode and matching -----------------------------------------------------------------

def is_delay_binding_mode(pvc: dict, classes: dict) -> tuple[bool, str | None]:
    """volume.IsDelayBindingMode: (WaitForFirstConsumer?, error)."""
    name = claim_class(pvc)
    if not name:
        return False, None
    sc = classes.get(name)
    if sc is None:
        return False, None
    mode = sc.get("volumeBindingMode")
    if mode is None:
        return False, f"VolumeBindingMode not set for StorageClass {go_quote(name)}"
    return mode == WAIT_FOR_FIRST_CONSUMER, None


def is_volume_bound_to_claim(pv: dict, pvc: dict) -> bool:
    ref = spec(pv).get("claimRef")
    if not ref:
        return False
    m = meta(pvc)
    if ref.get("name") != m.get("name") or \
            (ref.get("namespace") or "") != (m.get("namespace") or "default"):
        return False
    return not ref.get("uid") or ref.get("uid") == (m.get("uid") or "")


def claim_reference(pvc: dict) -> dict:
    """reference.GetReference for a claim, as a PV's spec.claimRef holds it."""
    m = meta(pvc)
    ref = {"kind": "PersistentVolumeClaim", "namespace": m.get("namespace") or "default",
           "name": m.get("name", ""), "apiVersion": "v1"}
    if m.get("uid"):
        ref["uid"] = m["uid"]
    if m.get("resourceVersion"):
        ref["resourceVersion"] = m["resourceVersion"]
    return ref


def check_volume_mode_mismatches(pvc: dict, pv: dict) -> bool:
    """True when the claim and the volume disagree on volumeMode (unset means Filesystem)."""
    return (spec(pvc).get("volumeMode") or "Filesystem") != \
        (spec(pv).get("volumeMode") or "Filesystem")


def check_access_modes(pvc: dict, pv: dict) -> bool:
    """The volume offers every access mode the claim asks for."""
    offered = set(spec(pv).get("accessModes") or [])
    return all(mode in offered for mode in spec(pvc).get("accessModes") or [])


def find_matching_volume(pvc: dict, volumes: list[dict], node_labels: dict | None,
                         excluded: dict, delay_binding: bool) -> tuple[dict | None, str | None]:
    """volume.FindMatchingVolume: the smallest volume that fits, or the one pre-bound to it.

    node_labels is given on the scheduler's path: the volume's node affinity must allow them.
    """
    requested = requested_quantity(pvc)
    requested_class = claim_class(pvc)
    selector = None
    if spec(pvc).get("selector") is not None:
        try:
            selector = LabelSelector(spec(pvc)["selector"])
        except SelectorError as exc:
            return None, (f"error creating internal label selector for claim: "
                          f"{claim_key(pvc)}: {exc}")
    smallest, smallest_qty = None, None
    for pv in volumes:
        if meta(pv).get("name") in excluded:
            continue
        if spec(pv).get("claimRef") and not is_volume_bound_to_claim(pv, pvc):
            continue
        qty = capacity_quantity(pv)
        if qty < requested:
            continue
        if check_volume_mode_mismatches(pvc, pv):
            continue
        if meta(pv).get("deletionTimestamp"):
            continue
        affinity_ok = True
        if node_labels is not None:
            affinity_ok = check_node_affinity(pv, node_labels) is None
        if is_volume_bound_to_claim(pv, pvc):
            # A volume pre-bound to the claim is its only match, on this node or nowhere.
            return (pv if affinity_ok else None), None
        if node_labels is None and delay_binding:
            continue
        if pv_phase(pv) != "Available":
            continue
        if selector is not None and not selector.matches(meta(pv).get("labels") or {}):
            continue
        if pv_class(pv) != requested_class:
            continue
        if not affinity_ok:
            continue
        if node_labels is not None and not check_access_modes(pvc, pv):
            continue
        if smallest is None or smallest_qty > qty:
            smallest, smallest_qty = pv, qty
    return smallest, None


# --- CSI migration (csi-translation-lib) -------------------------------------------------------

# In-tree plugin -> (volume source field, CSI driver, CSI zonal topology key).
IN_TREE_PLUGINS = {
    "kubernetes.io/gce-pd": ("gcePersistentDisk", "pd.csi.storage.gke.io", "topology.gke.io/zone"),
    "kubernetes.io/aws-ebs": ("awsElasticBlockStore", "ebs.csi.aws.com",
                              "topology.ebs.csi.aws.com/zone"),
    "kubernetes.io/cinder": ("cinder", "cinder.csi.openstack.org",
                             "topology.cinder.csi.openstack.org/zone"),
    "kubernetes.io/azure-disk": ("azureDisk", "disk.csi.azure.com",
                                 "topology.disk.csi.azure.com/zone"),
    "kubernetes.io/azure-file": ("azureFile", "file.csi.azure.com", ""),
    "kubernetes.io/vsphere-volume": ("vsphereVolume", "csi.vsphere.vmware.com", ""),
    "kubernetes.io/portworx-volume": ("portworxVolume", "pxd.portworx.com", ""),
    "kubernetes.io/rbd": ("rbd", "rbd.csi.ceph.com", ""),
}
GCE_PD, AWS_EBS, CINDER, AZURE_DISK, PORTWORX = (
    "kubernetes.io/gce-pd", "kubernetes.io/aws-ebs", "kubernetes.io/cinder",
    "kubernetes.io/azure-disk", "kubernetes.io/portworx-volume")
_UNSPECIFIED = "UNSPECIFIED"


def in_tree_plugin_of(source: dict) -> str:
    """GetInTreePluginNameFromSpec for a PV spec or an inline volume: '' when not migratable."""
    for plugin, (field, _, _) in IN_TREE_PLUGINS.items():
        if source.get(field) is not None:
            return plugin
    return ""


def csi_driver_of(plugin: str) -> str:
    """GetCSINameFromInTreeName."""
    return IN_TREE_PLUGINS[plugin][1]


def migrated_plugins(csinode: dict | None) -> set[str]:
    """The CSINode's migrated-plugins annotation as a set."""
    if csinode is None:
        return set()
    value = annotations(csinode).get(MIGRATED_PLUGINS_ANNOTATION) or ""
    return set(value.split(",")) if value else set()


def _ebs_volume_id(volume_id: str) -> str:
    """KubernetesVolumeIDToEBSVolumeID: aws://zone/vol-x and vol-x both name vol-x."""
    if volume_id.startswith("aws://"):
        return volume_id[len("aws://"):].split("/", 1)[-1].strip("/")
    return volume_id


def _gce_handle(pd_name: str, pv_labels: dict | None) -> str:
    """The pd.csi volume handle: zonal, regional or unspecified, from the PV's zone labels."""
    labels = pv_labels or {}
    zones_label = labels.get(ZONE_GA) or labels.get(ZONE_BETA) or ""
    zones = zones_label.split(LABEL_MULTI_ZONE_DELIMITER) if zones_label else []
    if len(zones) == 1:
        return f"projects/{_UNSPECIFIED}/zones/{zones[0]}/disks/{pd_name}"
    if len(zones) > 1:
        region = zones[0].rsplit("-", 1)[0]
        return f"projects/{_UNSPECIFIED}/regions/{region}/disks/{pd_name}"
    return f"projects/{_UNSPECIFIED}/zones/{_UNSPECIFIED}/disks/{pd_name}"


def csi_volume_handle(plugin: str, source: dict, pv_labels: dict | None) -> str:
    """The CSI volume handle an in-tree source translates to."""
    if plugin == AWS_EBS:
        return _ebs_volume_id(source.get("volumeID") or "")
    if plugin == GCE_PD:
        return _gce_handle(source.get("pdName") or "", pv_labels)
    if plugin == AZURE_DISK:
        return source.get("diskURI") or ""
    if plugin in (CINDER, PORTWORX):
        return source.get("volumeID") or ""
    return ""


def _topology_values(pv_spec: dict, key: str) -> list[str]:
    values = set()
    required = ((pv_spec.get("nodeAffinity") or {}).get("required") or {})
    for term in required.get("nodeSelectorTerms") or []:
        for expr in term.get("matchExpressions") or []:
            if expr.get("key") == key:
                values.update(expr.get("values") or [])
    return sorted(values)


def _replace_topology(pv_spec: dict, old: str, new: str) -> None:
    required = ((pv_spec.get("nodeAffinity") or {}).get("required") or {})
    for term in required.get("nodeSelectorTerms") or []:
        for expr in term.get("matchExpressions") or []:
            if expr.get("key") == old:
                expr["key"] = new


def _topology_key_exists(pv_spec: dict, key: str) -> bool:
    required = ((pv_spec.get("nodeAffinity") or {}).get("required") or {})
    return any(expr.get("key") == key
               for term in required.get("nodeSelectorTerms") or []
               for expr in term.get("matchExpressions") or [])


def _topology_labels(pv_spec: dict, labels: dict) -> tuple[str, str]:
    """getTopologyLabel: GA or beta zone/region keys, node affinity first, then PV labels."""
    if _topology_key_exists(pv_spec, ZONE_GA):
        return ZONE_GA, REGION_GA
    if _topology_key_exists(pv_spec, ZONE_BETA):
        return ZONE_BETA, REGION_BETA
    if ZONE_GA in labels:
        return ZONE_GA, REGION_GA
    if ZONE_BETA in labels:
        return ZONE_BETA, REGION_BETA
    return ZONE_GA, REGION_GA


def _translate_topology(pv: dict, csi_key: str) -> None:
    """translateTopologyFromInTreeToCSI: zone affinity or zone labels become the CSI key."""
    pv_spec, labels = pv["spec"], meta(pv).get("labels") or {}
    zone_label, region_label = _topology_labels(pv_spec, labels)
    if _topology_values(pv_spec, zone_label):
        _replace_topology(pv_spec, zone_label, csi_key)
    elif zone_label in labels:
        zones = sorted({z.strip() for z in labels[zone_label].split(LABEL_MULTI_ZONE_DELIMITER)
                        if z.strip()})
        if zones:
            affinity = pv_spec.get("nodeAffinity") or {}
            pv_spec["nodeAffinity"] = affinity
            required = affinity.get("required") or {}
            affinity["required"] = required
            terms = required.get("nodeSelectorTerms") or [{}]
            required["nodeSelectorTerms"] = terms
            for term in terms:
                term.setdefault("matchExpressions", []).append(
                    {"key": csi_key, "operator": "In", "values": list(zones)})
    if region_label == REGION_BETA and _topology_values(pv_spec, REGION_BETA):
        _replace_topology(pv_spec, REGION_BETA, REGION_GA)


def translate_pv_to_csi(pv: dict) -> dict:
    """TranslateInTreePVToCSI for the zonal block plugins: a copy with a CSI source and topology."""
    plugin = in_tree_plugin_of(spec(pv))
    field, driver, topology_key = IN_TREE_PLUGINS[plugin]
    copy = json.loads(json.dumps(pv))
    copy.setdefault("spec", {})
    source = copy["spec"].pop(field) or {}
    copy["spec"]["csi"] = {"driver": driver,
                           "volumeHandle": csi_volume_handle(plugin, source,
                                                             meta(pv).get("labels"))}
    if topology_key:
        _translate_topology(copy, topology_key)
    return copy


def csi_attach_limit_key(driver: str) -> str:
    """volumeutil.GetCSIAttachLimitKey: attachable-volumes-csi-<driver>, hashed past 63 chars."""
    prefix = "attachable-volumes-csi-"
    if len(prefix) + len(driver) >= 63:
        digest = hashlib.sha1(driver.encode()).hexdigest()[:16]
        return prefix + driver[:23] + digest
    return prefix + driver
