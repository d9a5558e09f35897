"""VolumeBinding: binds a pod's PersistentVolumeClaims as part of scheduling (volume_binding.go).

PreFilter sorts the pod's claims and rejects pods whose Immediate claims are still unbound;
Filter checks bound volumes' node affinity and finds static volumes or provisioning for
WaitForFirstConsumer claims; Reserve assumes the choice in memory, Unreserve forgets it,
PreBind writes it to the cluster objects. Score runs only with the StorageCapacityScoring
feature gate (alpha, off in v1.33-v1.36; beta, on from v1.37; read from `handle.features` when
the plugin is built): it scores the utilization of the node's static volumes, or, when the pod
binds none, of the CSIStorageCapacity its claims would be provisioned from; the default shape
prefers the emptiest storage.
"""
from __future__ import annotations

import math

from ...errors import ConfigError, Printed, child, invalid
from ...features import DEFAULT_GATES, FeatureGates
from ...framework.cycle_state import StateData
from ...framework.interfaces import (
    MAX_NODE_SCORE,
    EnqueueExtensions,
    FilterPlugin,
    PreBindPlugin,
    PreFilterPlugin,
    PreScorePlugin,
    ReservePlugin,
    ScorePlugin,
)
from ...framework.status import Code, Status
from ...quantity import int_value
from .. import names
from ..helper import (
    MAX_CUSTOM_PRIORITY_SCORE,
    MAX_UTILIZATION,
    build_broken_linear_function,
    go_div,
    validate_function_shape,
)
from . import queueing_hints, vector
from . import storage as st
from .binder import PodVolumeClaims, VolumeBinder

NAME = names.VOLUME_BINDING
STATE_KEY = NAME
DECISIONS_KEY = "VolumeBinding/decisions"
ERR_UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"
DEFAULT_BIND_TIMEOUT_SECONDS = 600
FEATURE_GATE = "StorageCapacityScoring"
# SetDefaults_VolumeBindingArgs (v1.33+): the lower the utilization, the higher the score.
DEFAULT_SHAPE = [{"utilization": 0, "score": MAX_CUSTOM_PRIORITY_SCORE},
                 {"utilization": 100, "score": 0}]


class _StateData(StateData):
    """The pod's claims (PreFilter) and, per feasible node, what Filter found."""

    def __init__(self, pod_volume_claims: PodVolumeClaims | None = None):
        self.all_bound = False
        self.pod_volume_claims = pod_volume_claims
        self.pod_volumes_by_node: dict = {}
        self.has_static_bindings = False

    def clone(self):
        # Shared on purpose, as in Go: Filter results must outlive the preemption dry runs.
        return self


def _decisions(state) -> dict:
    """The record of what Reserve assumed, Unreserve reverted and PreBind wrote."""
    record = state.get(DECISIONS_KEY)
    if record is None:
        record = {"assumed": [], "reverted": [], "bound": [], "provisioned": []}
        state.write(DECISIONS_KEY, record)
    return record


def build_scorer(shape: list[tuple[int, int]]):
    """buildScorerFunction: per class utilization through the shape, averaged, rounded."""
    raw = build_broken_linear_function(shape)

    def class_score(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return raw(MAX_UTILIZATION)
        return raw(go_div(requested * MAX_UTILIZATION, capacity))

    def scorer(class_resources: dict[str, tuple[int, int]]) -> int:
        if not class_resources:
            return 0
        total = sum(class_score(r, c) for r, c in class_resources.values())
        # math.Round rounds half away from zero; scores are never negative.
        return math.floor(total / len(class_resources) + 0.5)
    return scorer


class VolumeBinding(PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, ReservePlugin,
                    PreBindPlugin, EnqueueExtensions):
    NAME = NAME

    def __init__(self, handle, bind_timeout_seconds: int, scorer=None):
        self.handle = handle
        self.binder = VolumeBinder(handle, bind_timeout_seconds)
        # Built only with StorageCapacityScoring on: the gate and the scorer go together.
        self.scorer = scorer

    # --- PreFilter -----------------------------------------------------------------------------

    def _pod_has_pvcs(self, pod) -> tuple[bool, str | None]:
        """podHasPVCs: whether any volume uses a claim, and why a claim is unusable."""
        has_pvc = False
        for volume in pod.spec.get("volumes") or []:
            name, ephemeral = st.claim_name_for_volume(pod, volume)
            if name is None:
                continue
            has_pvc = True
            pvc = self.handle.objects.pvcs.get(f"{pod.namespace}/{name}")
            if pvc is None:
                if ephemeral:
                    # Normal right after the pod was created: say what we are waiting for.
                    return True, ("waiting for ephemeral volume controller to create the "
                                  f"persistentvolumeclaim {st.go_quote(name)}")
                return True, st.not_found("persistentvolumeclaim", name)
            if (pvc.get("status") or {}).get("phase") == "Lost":
                return True, (f"persistentvolumeclaim {st.go_quote(name)} bound to non-existent "
                              f"persistentvolume "
                              f"{st.go_quote(st.spec(pvc).get('volumeName') or '')}")
            if st.meta(pvc).get("deletionTimestamp"):
                return True, f"persistentvolumeclaim {st.go_quote(name)} is being deleted"
            if ephemeral:
                err = st.volume_is_for_pod(pod, pvc)
                if err:
                    return True, err
        return has_pvc, None

    def pre_filter(self, state, pod, nodes):
        has_pvc, err = self._pod_has_pvcs(pod)
        if err:
            return None, Status.unresolvable(err)
        if not has_pvc:
            state.write(STATE_KEY, _StateData())
            return None, Status.skip()
        claims, err = self.binder.get_pod_volume_claims(pod)
        if err:
            return None, Status.as_error(err)
        if claims.unbound_claims_immediate:
            # The PV controller binds these; the pod waits for it.
            return None, Status.unresolvable(ERR_UNBOUND_IMMEDIATE)
        # No PreFilterResult: v1.31.0 narrowed the nodes to the hostnames in bound local PVs'
        # affinity, wrongly taking hostname label values for node names; its fix
        # (kubernetes#127584) leaves every node to Filter, as here.
        state.write(STATE_KEY, _StateData(PodVolumeClaims(
            bound_claims=claims.bound_claims,
            unbound_claims_delay_binding=claims.unbound_claims_delay_binding,
            unbound_volumes_delay_binding=claims.unbound_volumes_delay_binding)))
        return None, None

    # --- Filter --------------------------------------------------------------------------------

    def filter(self, state, pod, node_info):
        data = state.get(STATE_KEY)
        if data is None:
            return Status.as_error("not found")
        volumes, reasons, err = self.binder.find_pod_volumes(pod, data.pod_volume_claims,
                                                             node_info)
        if err:
            return Status.as_error(err)
        if reasons:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, *reasons)
        data.pod_volumes_by_node[node_info.name] = volumes
        data.has_static_bindings = data.has_static_bindings or bool(volumes.static_bindings)
        return None

    def filter_vector(self, state, pod, cols):
        """Every node at once when the pod's claims are all bound (vector.py)."""
        data = state.get(STATE_KEY)
        return None if data is None else vector.filter_vector(self.binder, data, cols)

    # --- PreScore / Score ----------------------------------------------------------------------

    def pre_score(self, state, pod, nodes):
        if self.scorer is None:
            return Status.skip()
        data = state.get(STATE_KEY)
        if data is None:
            return Status.as_error("not found")
        # With the gate on (the only way to have a scorer) dynamic provisions score too.
        return None

    def score(self, state, pod, node_info):
        if self.scorer is None:
            return 0, None
        data = state.get(STATE_KEY)
        if data is None:
            return 0, Status.as_error("not found")
        volumes = data.pod_volumes_by_node.get(node_info.name)
        if volumes is None:
            return 0, None
        if volumes.static_bindings:
            return self.scorer(_static_class_resources(volumes)), None
        return self.scorer(_provisioned_class_resources(volumes)), None

    def score_vector(self, state, pod, cols, rows):
        data = state.get(STATE_KEY)
        return None if data is None else vector.score_vector(data, rows)

    # --- Reserve / Unreserve -------------------------------------------------------------------

    def reserve(self, state, pod, node_name):
        data = state.get(STATE_KEY)
        if data is None:
            return Status.as_error("not found")
        volumes = data.pod_volumes_by_node.get(node_name)
        if volumes is None:
            # The pod references no claim.
            data.all_bound = True
            return None
        all_bound, assumed, err = self.binder.assume_pod_volumes(pod, node_name, volumes)
        if err:
            return Status.as_error(err)
        data.all_bound = all_bound
        _decisions(state)["assumed"].extend(assumed)
        return None

    def unreserve(self, state, pod, node_name):
        data = state.get(STATE_KEY)
        if data is None:
            return
        volumes = data.pod_volumes_by_node.get(node_name)
        if volumes is None:
            return
        reverted = self.binder.revert_assumed(volumes)
        if reverted:
            _decisions(state)["reverted"].extend(reverted)

    # --- PreBind -------------------------------------------------------------------------------

    def pre_bind(self, state, pod, node_name):
        data = state.get(STATE_KEY)
        if data is None:
            return Status.as_error("not found")
        if data.all_bound:
            return None
        volumes = data.pod_volumes_by_node.get(node_name)
        if volumes is None:
            return Status.as_error(f"no pod volumes found for node {st.go_quote(node_name)}")
        bound, provisioned, err = self.binder.bind_pod_volumes(pod, node_name, volumes)
        record = _decisions(state)
        record["bound"].extend(bound)
        record["provisioned"].extend(provisioned)
        if err:
            return Status.as_error(err)
        return None

    def pre_bind_pre_flight(self, state, pod, node_name):
        """Skip when every volume is bound (Reserve found nothing to bind on the node)."""
        data = state.get(STATE_KEY)
        if data is None:
            return Status.as_error("not found")
        if data.all_bound:
            return Status.skip()
        if node_name not in data.pod_volumes_by_node:
            return Status.as_error(f"no pod volumes found for node {st.go_quote(node_name)}")
        return None

    def describe(self, state) -> dict:
        """What this cycle assumed, reverted, bound and provisioned, for the trace."""
        record = state.get(DECISIONS_KEY) or {}
        return {k: list(record.get(k, [])) for k in ("assumed", "reverted", "bound",
                                                      "provisioned")}

    # --- EnqueueExtensions ---------------------------------------------------------------------

    def events_to_register(self) -> set[str]:
        # StorageClass, PVC, PV, CSINode, CSIDriver and CSIStorageCapacity Add|Update;
        # Node Add|UpdateNodeLabel|UpdateNodeTaint.
        return {"StorageClassAdd", "StorageClassUpdate", "PvcAdd", "PvcUpdate", "PvAdd",
                "PvUpdate", "NodeAdd", "NodeUpdate", "CSINodeAdd", "CSINodeUpdate",
                "CSIDriverAdd", "CSIDriverUpdate", "CSIStorageCapacityAdd",
                "CSIStorageCapacityUpdate"}

    def queueing_hints(self) -> dict:
        return queueing_hints.for_volume_binding(self)


def _static_class_resources(volumes) -> dict[str, tuple[int, int]]:
    """Requested and capacity of the static bindings, summed per storage class."""
    classes: dict[str, tuple[int, int]] = {}
    for binding in volumes.static_bindings:
        requested, capacity = classes.get(binding.storage_class_name(), (0, 0))
        classes[binding.storage_class_name()] = (
            requested + st.requested_bytes(binding.pvc),
            capacity + st.capacity_bytes(binding.pv))
    return classes


def _provisioned_class_resources(volumes) -> dict[str, tuple[int, int]]:
    """Requested (summed) and the node's CSIStorageCapacity (taken once, not summed: the
    claims share it) per storage class, for claims provisioned from a known capacity."""
    classes: dict[str, tuple[int, int]] = {}
    for claim in volumes.dynamic_provisions:
        capacity = volumes.node_capacities.get(st.claim_key(claim))
        if capacity is None:
            continue
        requested, _ = classes.get(st.claim_class(claim), (0, 0))
        classes[st.claim_class(claim)] = (requested + st.requested_bytes(claim),
                                          _capacity_value(capacity))
    return classes


def _capacity_value(capacity: dict) -> int:
    """CSIStorageCapacity.capacity's Value(); an object with only maximumVolumeSize counts as
    empty (Go would dereference a nil quantity here)."""
    value = capacity.get("capacity")
    return int_value(value) if value is not None else 0


def _go_shape(shape) -> str:
    """%#v of a []config.UtilizationShapePoint, as field.Invalid prints it."""
    points = ", ".join(
        f"config.UtilizationShapePoint{{Utilization:{p.get('utilization', 0)}, "
        f"Score:{p.get('score', 0)}}}" for p in shape or [])
    return f"[]config.UtilizationShapePoint{{{points}}}"


def default_args(args: dict, gates: FeatureGates | None = None) -> dict:
    """SetDefaults_VolumeBindingArgs: bindTimeoutSeconds 600; the default shape only when the
    StorageCapacityScoring feature gate is on (gates: the run's; the default release's if None)."""
    out = dict(args or {})
    if out.get("bindTimeoutSeconds") is None:
        out["bindTimeoutSeconds"] = DEFAULT_BIND_TIMEOUT_SECONDS
    if not out.get("shape") and (gates or DEFAULT_GATES).enabled(FEATURE_GATE):
        out["shape"] = [dict(p) for p in DEFAULT_SHAPE]
    return out


def validate_args(args: dict, path: str, gates: FeatureGates | None = None) -> list[str]:
    """ValidateVolumeBindingArgsWithOptions, AllowStorageCapacityScoring from the gates."""
    errs = []
    timeout = args.get("bindTimeoutSeconds", 0)
    if timeout < 0:
        errs.append(invalid(child(path, "bindTimeoutSeconds"), timeout,
                            "invalid BindTimeoutSeconds, should not be a negative value"))
    shape = args.get("shape")
    if (gates or DEFAULT_GATES).enabled(FEATURE_GATE):
        errs += validate_function_shape(shape, child(path, "shape"))
    elif shape is not None:
        # Refused while the feature is off, so it cannot take effect unnoticed later.
        errs.append(invalid(child(path, "shape"), Printed(_go_shape(shape)),
                            "unexpected field `shape`, remove it or turn on the feature gate "
                            "StorageCapacityScoring"))
    return errs


def new(args: dict, handle) -> VolumeBinding:
    gates = handle.features
    args = default_args(args, gates)
    errs = validate_args(args, "", gates)
    if errs:
        raise ConfigError(errs)
    scorer = None
    if gates.enabled(FEATURE_GATE):
        scorer = build_scorer([(p.get("utilization", 0),
                                p.get("score", 0) * (MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE))
                               for p in args.get("shape") or []])
    return VolumeBinding(handle, args.get("bindTimeoutSeconds", DEFAULT_BIND_TIMEOUT_SECONDS),
                         scorer)
