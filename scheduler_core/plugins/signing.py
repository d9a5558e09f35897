"""Pod signatures for OpportunisticBatching: the in-tree plugins' SignPod, and the profile's.

Go (v1.35+): every in-tree plugin with a PreFilter, Filter, PreScore or Score implements
fwk.SignPlugin, returning the parts of the pod its verdicts depend on
(staging/src/k8s.io/kube-scheduler/framework/signers.go names them), or Unschedulable when it
cannot sign the pod. frameworkImpl.computeBatchablePlugins turns signatures off for a profile
with extenders, or with a plugin at those points that does not implement SignPlugin (an
out-of-tree one here); frameworkImpl.SignPod merges the fragments, keyed by signer name, with
the scheduler name. Two pods with the same signature get the same Filter and Score verdicts.

Each signer below cites its Go file. It returns the fragments {signer name: value}, or raises
Unsignable with Go's message.
"""
from __future__ import annotations

import json

from ..framework.types import PodInfo
from . import names
from .imagelocality.image_locality import _pod_images
from .nodedeclaredfeatures import NodeDeclaredFeatures

# signers.go's signer names.
IMAGE_NAMES = "v1.Pod.Spec.CanonicalImageNames()"
LABELS = "v1.Pod.Labels"
NODE_NAME = "v1.Pod.Spec.NodeName"
NODE_AFFINITY = "v1.Pod.Spec.Affinity.NodeAffinity"
NODE_SELECTOR = "v1.Pod.Spec.Affinity.NodeSelector"
HOST_PORTS = "v1.Pod.Spec.HostPorts()"
RESOURCES = "v1.Pod.Spec.ContainerRequestsAndOverheads()"
SCHEDULER_NAME = "v1.Pod.Spec.SchedulerName"
TOLERATIONS = "v1.Pod.Spec.Tolerations"
VOLUMES = "v1.Pod.Spec.Volumes.NonSyntheticSources()"
FEATURES = "v1.Pod.Spec.RequiredFeatures()"

# The points whose plugins must all sign (computeBatchablePlugins).
SIGNED_POINTS = ("pre_filter_plugins", "filter_plugins", "pre_score_plugins", "score_plugins")


class Unsignable(Exception):
    """SignPod's Unschedulable status: this plugin cannot sign this pod."""


def _canonical(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _tolerations(plugin, pod: PodInfo, features) -> dict:
    # tainttoleration.go, nodeunschedulable.go (TolerationsSigner: sorted by key, value)
    return {TOLERATIONS: sorted(_canonical(t) for t in pod.tolerations)}


def _volumes(plugin, pod: PodInfo, features) -> dict:
    # volumebinding, volumerestrictions, volumezone, nodevolumelimits (VolumesSigner: the
    # sources other than ConfigMap and Secret, which differ per pod and never constrain a node)
    vols = [{k: v for k, v in vol.items() if k != "name"}
            for vol in pod.spec.get("volumes") or []
            if "configMap" not in vol and "secret" not in vol]
    return {VOLUMES: sorted(_canonical(v) for v in vols)}


def _node_name(plugin, pod: PodInfo, features) -> dict:
    return {NODE_NAME: pod.node_name}   # nodename.go


def _host_ports(plugin, pod: PodInfo, features) -> dict:
    # nodeports.go (HostPortsSigner: the set of host ports of containers and init containers)
    ports = {int(p.get("hostPort") or 0)
             for c in (pod.spec.get("containers") or []) + (pod.spec.get("initContainers") or [])
             for p in c.get("ports") or []}
    return {HOST_PORTS: sorted(ports - {0})}


def _node_affinity(plugin, pod: PodInfo, features) -> dict:
    # nodeaffinity.go (NodeAffinitySigner, and the node selector)
    affinity = pod.affinity.get("nodeAffinity")
    return {NODE_AFFINITY: _canonical(affinity) if affinity is not None else None,
            NODE_SELECTOR: _canonical(pod.spec.get("nodeSelector") or {})}


def _image_names(plugin, pod: PodInfo, features) -> dict:
    return {IMAGE_NAMES: sorted(_pod_images(pod))}   # imagelocality.go


DRA_EXTENDED = "signature disabled when dra extended resources enabled"
DEFAULT_SPREAD = "pods with default topology constraints are not signable"


def _dra_extended(features) -> bool:
    return features is not None and features.enabled("DRAExtendedResource")


def _default_spread(plugin) -> bool:
    return plugin.system_defaulted or any(plugin.default_constraints.values())


def _resources(plugin, pod: PodInfo, features) -> dict:
    # noderesources/fit.go and balanced_allocation.go: with DRAExtendedResource a pod's
    # extended resources may come from DRA, which a signature cannot tell.
    if _dra_extended(features):
        raise Unsignable(DRA_EXTENDED)
    r = pod.requests   # computePodResourceRequest: pod-level requests and overhead included
    return {RESOURCES: _canonical([r.milli_cpu, r.memory, r.ephemeral_storage, r.scalar])}


def _dynamic_resources(plugin, pod: PodInfo, features) -> dict:
    if pod.spec.get("resourceClaims"):   # dynamicresources.go (issue #134986)
        raise Unsignable("pods with dra resource claims are not signable")
    return {}


def _topology_spread(plugin, pod: PodInfo, features) -> dict:
    # podtopologyspread/plugin.go: spreading depends on other nodes' pods, not on this node.
    if pod.spec.get("topologySpreadConstraints"):
        raise Unsignable("pods with topology constraints are not signable")
    if _default_spread(plugin):
        raise Unsignable(DEFAULT_SPREAD)
    return {}


def _inter_pod_affinity(plugin, pod: PodInfo, features) -> dict:
    # interpodaffinity/plugin.go (TestPodAffinitySignature): a pod with pod (anti-)affinity
    # cannot be signed; otherwise its labels, which existing pods' terms may match, unless
    # those pods' preferred terms are ignored.
    if pod.affinity.get("podAffinity") or pod.affinity.get("podAntiAffinity"):
        raise Unsignable("pods with pod affinity or anti-affinity are not signable")
    if plugin.ignore_preferred_terms_of_existing_pods:
        return {}
    return {LABELS: _canonical(pod.labels)}


def _declared_features(plugin: NodeDeclaredFeatures, pod: PodInfo, features) -> dict:
    # nodedeclaredfeatures.go: the features the pod needs of a node
    return {FEATURES: sorted(plugin._requirements(pod)) if plugin.enabled else []}


SIGNERS = {
    names.TAINT_TOLERATION: _tolerations,
    names.NODE_UNSCHEDULABLE: _tolerations,
    names.VOLUME_BINDING: _volumes,
    names.VOLUME_RESTRICTIONS: _volumes,
    names.VOLUME_ZONE: _volumes,
    names.NODE_VOLUME_LIMITS: _volumes,
    names.NODE_NAME: _node_name,
    names.NODE_PORTS: _host_ports,
    names.NODE_AFFINITY: _node_affinity,
    names.IMAGE_LOCALITY: _image_names,
    names.NODE_RESOURCES_FIT: _resources,
    names.NODE_RESOURCES_BALANCED_ALLOCATION: _resources,
    names.DYNAMIC_RESOURCES: _dynamic_resources,
    names.POD_TOPOLOGY_SPREAD: _topology_spread,
    names.INTER_POD_AFFINITY: _inter_pod_affinity,
    names.NODE_DECLARED_FEATURES: _declared_features,
}


def _own_signer(plugin, pod: PodInfo, features) -> dict:
    """An out-of-tree SignPlugin: `sign_pod(pod)` -> (fragments {key: value} or None,
    Status or None); a status other than Success means it cannot sign the pod."""
    fragments, status = plugin.sign_pod(pod)
    if status is not None and not status.is_success():
        raise Unsignable(status.message())
    return {k: _canonical(v) for k, v in (fragments or {}).items()}


def _signer_of(name: str, plugin):
    if hasattr(plugin, "sign_pod"):
        return _own_signer
    return SIGNERS.get(name)


def profile_signer(fwk, has_extenders: bool, features):
    """frameworkImpl.computeBatchablePlugins and SignPod: sign(pod) -> (signature or None,
    why not). A profile that cannot sign at all says why for every pod."""
    plugins = {}
    for point in SIGNED_POINTS:
        for pl in getattr(fwk, point):
            plugins.setdefault(pl.name(), pl)
    unsupported = sorted(n for n, pl in plugins.items() if _signer_of(n, pl) is None)
    if has_extenders or unsupported:
        why = ("signatures disabled: the profile has extenders" if has_extenders else
               f"signatures disabled: plugin(s) {', '.join(unsupported)} cannot sign pods")
        return lambda pod: (None, why)
    signers = [(name, _signer_of(name, pl), pl) for name, pl in plugins.items()]
    refusal = _refusal_for_every_pod(signers, features)
    if refusal is not None:
        return refusal

    def sign(pod: PodInfo):
        sig = {SCHEDULER_NAME: pod.scheduler_name}
        for name, signer, pl in signers:
            try:
                sig.update(signer(pl, pod, features))
            except Unsignable as exc:
                return None, f"{name}: {exc}"
        return _canonical(sig), ""

    return sign


# Signers that may refuse one pod and sign another (the others sign every pod, or none).
_MAY_REFUSE = (_dynamic_resources, _topology_spread, _inter_pod_affinity, _own_signer)


def _every_pod_refusal(signer, plugin, features) -> str:
    """Fit and BalancedAllocation with DRAExtendedResource, PodTopologySpread with default
    constraints: their SignPod refuses whatever the pod (v1.36+, and the default profile)."""
    if signer is _resources and _dra_extended(features):
        return DRA_EXTENDED
    if signer is _topology_spread and _default_spread(plugin):
        return DEFAULT_SPREAD
    return ""


def _refusal_for_every_pod(signers, features):
    """When a plugin refuses every pod, sign(pod) need only run the plugins up to it that may
    refuse this pod in other words first (Go's SignPod stops at the first refusal, in the same
    order); None when every plugin may sign."""
    found = next(((i, refusal) for i, (_, signer, plugin) in enumerate(signers)
                  if (refusal := _every_pod_refusal(signer, plugin, features))), None)
    if found is None:
        return None
    i, refusal = found
    first = [s for s in signers[:i + 1] if s[1] in _MAY_REFUSE]
    why = f"{signers[i][0]}: {refusal}"

    def sign(pod: PodInfo):
        for name, earlier, pl in first:
            try:
                earlier(pl, pod, features)
            except Unsignable as exc:
                return None, f"{name}: {exc}"
        return None, why
    return sign
