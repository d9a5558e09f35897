"""BindAudit: a PostBind plugin that keeps a running count of bound pods per topology domain.

PostBind runs once a pod is bound, to tell something outside the scheduler (metrics, an
inventory, a notification). It returns nothing and cannot change the binding; a plugin that
must be able to fail a binding belongs at PreBind. BindAudit counts, for the value of the
pod's `groupLabel` (e.g. app=web), how many such pods each domain of `topologyKey` (e.g. the
zone) has received during the run, and shows the tally in the trace entry of each PostBind.
"""
from __future__ import annotations

from ..errors import child, invalid
from ..framework.interfaces import PostBindPlugin
from ..plugins.helper import checked_args
from ..validation import is_qualified_name

NAME = "BindAudit"
DETAIL_KEY = NAME + "/detail"
DEFAULT_ARGS = {"topologyKey": "topology.kubernetes.io/zone", "groupLabel": "app"}
ARGS_FIELDS = dict.fromkeys(DEFAULT_ARGS)
UNLABELLED = "<none>"


class BindAudit(PostBindPlugin):
    NAME = NAME

    def __init__(self, args: dict, handle):
        self.topology_key = args["topologyKey"]
        self.group_label = args["groupLabel"]
        self.handle = handle
        self.tally: dict[str, dict[str, int]] = {}   # group -> domain -> pods bound

    def post_bind(self, state, pod, node_name: str) -> None:
        group = pod.labels.get(self.group_label, UNLABELLED)
        ni = self.handle.snapshot.get(node_name) if self.handle.snapshot else None
        domain = (ni.labels if ni is not None else {}).get(self.topology_key, UNLABELLED)
        counts = self.tally.setdefault(group, {})
        counts[domain] = counts.get(domain, 0) + 1
        state.write(DETAIL_KEY, {"group": f"{self.group_label}={group}",
                                 "domain": f"{self.topology_key}={domain}",
                                 "boundPerDomain": dict(sorted(counts.items()))})

    def describe(self, state) -> dict | None:
        return state.get(DETAIL_KEY)


def default_args(args: dict) -> dict:
    return {**DEFAULT_ARGS, **(args or {})}


def validate_args(args: dict, path: str) -> list[str]:
    errs = []
    for name in ("topologyKey", "groupLabel"):
        value = args.get(name)
        problems = is_qualified_name(value) if isinstance(value, str) else ["must be a string"]
        errs += [invalid(child(path, name), value, p) for p in problems]
    return errs


def new(args: dict, handle) -> BindAudit:
    return BindAudit(checked_args(args, default_args, validate_args), handle)
