"""Parsed spread constraints and what filtering and scoring share (podtopologyspread/common.go).

The reason strings and label names live here rather than in plugin.py (where Go keeps them)
because filtering.py and scoring.py need them and plugin.py imports both.
"""
from __future__ import annotations

from ...labels import LabelSelector, SelectorError, match_node_selector_terms
from ...taints import does_not_schedule, find_untolerated_taint
from ..names import POD_TOPOLOGY_SPREAD

NAME = POD_TOPOLOGY_SPREAD
ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"

LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"
DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"
HONOR = "Honor"
IGNORE = "Ignore"


class Constraint:
    """topologySpreadConstraint: a v1.TopologySpreadConstraint with its selector compiled."""

    __slots__ = (
        "max_skew",
        "min_domains",
        "node_affinity_policy",
        "node_taints_policy",
        "selector",
        "selector_key",
        "topology_key",
    )

    def __init__(self, max_skew: int, topology_key: str, selector: LabelSelector,
                 min_domains: int = 1, node_affinity_policy: str = HONOR,
                 node_taints_policy: str = IGNORE):
        self.max_skew = max_skew
        self.topology_key = topology_key
        self.selector = selector
        self.selector_key = selector_key(selector)
        self.min_domains = min_domains
        self.node_affinity_policy = node_affinity_policy
        self.node_taints_policy = node_taints_policy

    def with_selector(self, selector: LabelSelector) -> Constraint:
        return Constraint(self.max_skew, self.topology_key, selector, self.min_domains,
                          self.node_affinity_policy, self.node_taints_policy)

    def honors_policies(self, affinity) -> bool:
        """Whether matches_inclusion_policies can exclude any node for this pod."""
        return (self.node_affinity_policy == HONOR and affinity is not None) \
            or self.node_taints_policy == HONOR

    def matches_inclusion_policies(self, pod, node_info, affinity) -> bool:
        """matchNodeInclusionPolicies: the node counts for this constraint's domains."""
        if self.node_affinity_policy == HONOR and affinity is not None \
                and not affinity(node_info):
            return False
        return not (self.node_taints_policy == HONOR and node_info.taints
                    and find_untolerated_taint(node_info.taints, pod.tolerations,
                                               does_not_schedule) is not None)

    def __repr__(self):
        return (f"Constraint(maxSkew={self.max_skew}, topologyKey={self.topology_key!r}, "
                f"minDomains={self.min_domains}, nodeAffinityPolicy={self.node_affinity_policy}, "
                f"nodeTaintsPolicy={self.node_taints_policy})")


def selector_key(selector: LabelSelector) -> tuple:
    """A hashable identity for a compiled selector, to memoize match counts by."""
    return (selector.nothing, tuple(sorted(selector.match_labels.items())),
            tuple(sorted(selector.expressions)))


def _requirements(selector: LabelSelector) -> list[dict]:
    """The selector's requirements as matchExpressions (labels.Selector.Requirements)."""
    exprs = [{"key": k, "operator": "In", "values": [v]} for k, v in selector.match_labels.items()]
    exprs += [{"key": k, "operator": op, "values": list(values)}
              for k, op, values in selector.expressions]
    return exprs


def merge_label_set_with_selector(match_labels: dict, selector: LabelSelector) -> LabelSelector:
    """mergeLabelSetWithSelector: the pod's matchLabelKeys values ANDed with the selector.

    A nil labelSelector selects nothing and has no requirements to merge into, so it stays.
    """
    if selector.nothing:
        return selector
    return LabelSelector({"matchLabels": dict(match_labels),
                          "matchExpressions": _requirements(selector)})


def _int(value, default: int) -> int:
    return default if value is None else int(value)


def filter_topology_spread_constraints(constraints, pod_labels: dict,
                                       action: str) -> list[Constraint]:
    """filterTopologySpreadConstraints: the pod's constraints with this whenUnsatisfiable.

    Raises SelectorError for a labelSelector that does not compile.
    """
    result = []
    for c in constraints or []:
        if c.get("whenUnsatisfiable") != action:
            continue
        selector = LabelSelector(c.get("labelSelector"))
        keys = c.get("matchLabelKeys") or []
        if keys:
            match_labels = {k: pod_labels[k] for k in keys if k in pod_labels}
            if match_labels:
                selector = merge_label_set_with_selector(match_labels, selector)
        result.append(Constraint(
            max_skew=_int(c.get("maxSkew"), 0),
            topology_key=c.get("topologyKey") or "",
            selector=selector,
            # Unset minDomains means 1, unset policies mean Honor affinity and Ignore taints.
            min_domains=_int(c.get("minDomains"), 1),
            node_affinity_policy=c.get("nodeAffinityPolicy") or HONOR,
            node_taints_policy=c.get("nodeTaintsPolicy") or IGNORE,
        ))
    return result


def node_labels_match_spread_constraints(node_labels: dict, constraints) -> bool:
    """nodeLabelsMatchSpreadConstraints: the node has every constraint's topology key."""
    for c in constraints:
        if c.topology_key not in node_labels:
            return False
    return True


def nodes_with_all_topology_keys(node_infos, constraints) -> list:
    """The nodes whose labels hold every constraint's topology key, in order."""
    keys = list(dict.fromkeys(c.topology_key for c in constraints))
    if len(keys) == 1:
        key = keys[0]
        return [ni for ni in node_infos if key in ni.labels]
    return [ni for ni in node_infos if all(k in ni.labels for k in keys)]


def pod_labels_match_spread_constraints(constraints, pod_labels: dict) -> bool:
    return any(c.selector.matches(pod_labels) for c in constraints)


def required_node_affinity(pod):
    """nodeaffinity.GetRequiredNodeAffinity(pod).Match as a predicate on a NodeInfo.

    None when the pod has neither a nodeSelector nor a required node affinity, i.e. every
    node matches. Terms that do not parse match nothing, as Go's lazy-error selector ignores
    their errors.
    """
    node_selector = pod.spec.get("nodeSelector") or {}
    node_affinity = pod.affinity.get("nodeAffinity") or {}
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if not node_selector and required is None:
        return None
    selector_items = tuple(node_selector.items())

    def match(node_info) -> bool:
        labels = node_info.labels
        for key, value in selector_items:
            if labels.get(key) != value:
                return False
        if required is None:
            return True
        try:
            return match_node_selector_terms(required, labels, node_info.name)
        except SelectorError:
            return False

    return match


def _ns(obj: dict) -> str:
    return (obj.get("metadata") or {}).get("namespace") or "default"


def _controller_of(pod) -> dict | None:
    """metav1.GetControllerOfNoCopy: the owner reference marked as the controller."""
    for ref in (pod.obj.get("metadata") or {}).get("ownerReferences") or []:
        if ref.get("controller"):
            return ref
    return None


def _find(objects: list[dict], namespace: str, name: str) -> dict | None:
    for obj in objects:
        if _ns(obj) == namespace and (obj.get("metadata") or {}).get("name") == name:
            return obj
    return None


def default_selector(pod, objects) -> LabelSelector:
    """helper.DefaultSelector: the selectors of the Services, ReplicationControllers,
    ReplicaSets and StatefulSets that select the pod, ANDed (plugins/helper/spread.go)."""
    extra = objects.extra if objects is not None else {}
    label_set: dict = {}
    # Services, RCs, RSs and SSs that match the pod can't have conflicting labels.
    for service in extra.get("Service", []):
        selector = (service.get("spec") or {}).get("selector")
        if selector is None or _ns(service) != pod.namespace:
            continue  # a nil service selector matches nothing, not everything
        if all(k in pod.labels and pod.labels[k] == v for k, v in selector.items()):
            label_set.update(selector)
    expressions: list[dict] = []
    owner = _controller_of(pod)
    if owner is not None:
        api_version, kind = owner.get("apiVersion") or "", owner.get("kind") or ""
        if (api_version, kind) == ("v1", "ReplicationController"):
            rc = _find(extra.get("ReplicationController", []), pod.namespace, owner.get("name"))
            if rc is not None:
                label_set.update((rc.get("spec") or {}).get("selector") or {})
        elif (api_version, kind) in (("apps/v1", "ReplicaSet"), ("apps/v1", "StatefulSet")):
            owner_obj = _find(extra.get(kind, []), pod.namespace, owner.get("name"))
            if owner_obj is not None:
                try:
                    other = LabelSelector((owner_obj.get("spec") or {}).get("selector"))
                except SelectorError:
                    other = None
                if other is not None and not other.nothing:
                    expressions = _requirements(other)
    return LabelSelector({"matchLabels": label_set, "matchExpressions": expressions})


class MatchCounter:
    """countPodsMatchSelector, memoized per node state.

    PreFilter and PreScore count matching pods on every node of the cluster each cycle; most
    nodes did not change since the last cycle. The memo is keyed by the node's pod list (kept
    alive here so its id stays unique) and NodeInfo.generation, which every add and remove
    bumps. It keeps the matching pods rather than their number because a graceful deletion
    marks a pod terminating without touching its node, and terminating pods do not count.

    A nil labelSelector counts nothing; an empty one ({}) counts every pod of the namespace,
    as kubernetes/kubernetes#141340 fixed it (before, {} wrongly counted nothing too).
    """

    LIMIT = 50_000  # entries before the memo is dropped, bounding what it keeps alive

    __slots__ = ("_entries",)

    def __init__(self):
        self._entries: dict[int, tuple] = {}

    def count(self, node_info, constraint: Constraint, namespace: str) -> int:
        return self.count_all((node_info,), constraint, namespace)[0]

    def count_all(self, node_infos, constraint: Constraint, namespace: str) -> list[int]:
        """The matching-pod count of each node, in order (the hot loop of PreFilter/PreScore)."""
        selector = constraint.selector
        if selector.nothing:
            return [0] * len(node_infos)
        entries = self._entries
        memo_key = (namespace, constraint.selector_key)
        matches = selector.matches
        out = []
        append = out.append
        for node_info in node_infos:
            pods = node_info.pods
            if not pods:
                append(0)
                continue
            generation = node_info.generation
            entry = entries.get(id(pods))
            if entry is None or entry[0] is not pods or entry[1] != generation:
                if len(entries) >= self.LIMIT:
                    entries.clear()
                entry = entries[id(pods)] = (pods, generation, {})
            memo = entry[2]
            matched = memo.get(memo_key)
            if matched is None:
                matched = memo[memo_key] = tuple(
                    p for p in pods if p.namespace == namespace and matches(p.labels))
            n = 0
            for p in matched:
                if p.deletion_time is None:
                    n += 1
            append(n)
        return out
