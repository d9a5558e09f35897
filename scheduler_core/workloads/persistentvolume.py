"""The PV controller's binding of claims (pkg/controller/volume/persistentvolume).

syncUnboundClaim, for every claim that is not bound yet, before its pods are scheduled:
- a claim naming no volume, whose class binds immediately (no class object, or one without
  volumeBindingMode WaitForFirstConsumer), gets the best match of findBestMatchForClaim: the
  volumes are grouped by their access modes (the controller's index), the groups offering
  every mode the claim asks for are tried from the fewest modes up, and in each group
  volume.FindMatchingVolume picks the volume pre-bound to the claim, else the smallest
  Available one of the claim's class, size, volume mode and selector;
- a claim naming its volume (pre-bound) is bound to it when the volume is free and satisfies
  it (checkVolumeSatisfyClaim), or already points at the claim;
- a delayed claim (WaitForFirstConsumer) is left to the scheduler's VolumeBinding plugin.

Binding writes what bind() writes: the volume's claimRef, its bound-by-controller annotation
and phase Bound; the claim's volumeName, its bind-completed (and bound-by-controller)
annotations, and its status (phase Bound, the volume's access modes and capacity).

The playground runs no external provisioner: a claim that finds no volume while its class
names a provisioner stays Pending, and the caller is told so (`unbound`).
"""
from __future__ import annotations

from ..plugins.volumebinding import storage as st

MODE_ABBREVIATIONS = (("ReadWriteOnce", "RWO"), ("ReadOnlyMany", "ROX"),
                      ("ReadWriteMany", "RWX"), ("ReadWriteOncePod", "RWOP"))


def access_modes_key(modes) -> str:
    """GetAccessModesAsString: the index key, in a fixed order whatever the input's."""
    given = set(modes or [])
    return ",".join(short for mode, short in MODE_ABBREVIATIONS if mode in given)


def _modes_of(key: str) -> set[str]:
    names = dict((short, mode) for mode, short in MODE_ABBREVIATIONS)
    return {names[s] for s in key.split(",") if s}


def find_best_match(pvc: dict, volumes: list[dict], delay_binding: bool) -> dict | None:
    """findBestMatchForClaim over the access-mode index."""
    index: dict[str, list[dict]] = {}
    for pv in volumes:
        index.setdefault(access_modes_key(st.spec(pv).get("accessModes")), []).append(pv)
    wanted = set(st.spec(pvc).get("accessModes") or [])
    # Go sorts by the number of modes only; its map order decides ties, here the key does.
    keys = sorted((k for k in index if wanted <= _modes_of(k)),
                  key=lambda k: (len(_modes_of(k)), k))
    for key in keys:
        volume, _ = st.find_matching_volume(pvc, index[key], None, {}, delay_binding)
        if volume is not None:
            return volume
    return None


def satisfies(pvc: dict, pv: dict) -> bool:
    """checkVolumeSatisfyClaim: size, class and volume mode (access modes are not checked)."""
    return (st.capacity_quantity(pv) >= st.requested_quantity(pvc)
            and st.pv_class(pv) == st.claim_class(pvc)
            and not st.check_volume_mode_mismatches(pvc, pv))


def bind(pvc: dict, pv: dict) -> None:
    """bindVolumeToClaim, then bindClaimToVolume, then both statuses."""
    pv_spec = pv.setdefault("spec", {})
    if not pv_spec.get("claimRef"):
        _annotate(pv, st.ANN_BOUND_BY_CONTROLLER)
    pv_spec["claimRef"] = st.claim_reference(pvc)
    pv["status"] = {**(pv.get("status") or {}), "phase": "Bound"}
    pvc_spec = pvc.setdefault("spec", {})
    if not pvc_spec.get("volumeName"):
        _annotate(pvc, st.ANN_BOUND_BY_CONTROLLER)
    pvc_spec["volumeName"] = st.meta(pv)["name"]
    _annotate(pvc, st.ANN_BIND_COMPLETED)
    status = {**(pvc.get("status") or {}), "phase": "Bound"}
    if pv_spec.get("accessModes"):
        status["accessModes"] = list(pv_spec["accessModes"])
    if pv_spec.get("capacity"):
        status["capacity"] = dict(pv_spec["capacity"])
    pvc["status"] = status


def _annotate(obj: dict, key: str) -> None:
    meta = obj.setdefault("metadata", {})
    meta["annotations"] = {**(meta.get("annotations") or {}), key: "yes"}


def _pending(pvc: dict) -> bool:
    """Neither bound by the controller already nor lost."""
    return not st.is_pvc_fully_bound(pvc) and (pvc.get("status") or {}).get("phase") != "Lost"


def sync_claims(objects) -> tuple[list[tuple[dict, dict]], list[tuple[dict, str]]]:
    """Bind every claim that can be bound, in the order the claims were created.

    Returns ([(claim, volume) bound], [(claim, why it waits for a provisioner)])."""
    bound, unbound = [], []
    volumes = list(objects.pvs.values())
    for pvc in objects.pvcs.values():
        if not _pending(pvc):
            continue
        volume_name = st.spec(pvc).get("volumeName")
        if volume_name:
            pv = objects.pvs.get(volume_name)
            if pv is not None and (st.is_volume_bound_to_claim(pv, pvc) or (
                    not st.spec(pv).get("claimRef") and satisfies(pvc, pv))):
                bind(pvc, pv)
                objects.storage_changed()
                bound.append((pvc, pv))
            continue
        delay, error = st.is_delay_binding_mode(pvc, objects.storage_classes)
        if delay or error:
            continue   # the scheduler binds it (or reports the class's error) with the pod
        pv = find_best_match(pvc, volumes, delay_binding=False)
        if pv is not None:
            bind(pvc, pv)
            objects.storage_changed()
            bound.append((pvc, pv))
            continue
        sc = objects.storage_classes.get(st.claim_class(pvc))
        if sc is not None and sc.get("provisioner") and \
                sc["provisioner"] != st.NOT_SUPPORTED_PROVISIONER:
            unbound.append((pvc, f"no PersistentVolume matches and the playground runs no "
                                 f"provisioner for {sc['provisioner']!r} (StorageClass "
                                 f"{st.claim_class(pvc)}): the claim stays Pending"))
    return bound, unbound
