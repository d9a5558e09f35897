"""NodeLabelScorer: an example out-of-tree Score plugin that prefers nodes carrying a label.

It is not in the in-tree registry. Register it as kube-scheduler's app.WithPlugin would:

    python -m scheduler_core simulate cluster.yaml --config ksc.yaml \\
        --plugin NodeLabelScorer=scheduler_core.examples.node_label_scorer

or from a package's metadata, in the `scheduler_core.plugins` entry point group:

    [project.entry-points."scheduler_core.plugins"]
    NodeLabelScorer = "scheduler_core.examples.node_label_scorer"

then enable it in a profile and give it args through pluginConfig:

    pluginConfig:
    - name: NodeLabelScorer
      args: {labelKey: disktype, labelValue: ssd, preferPresence: true}

A node scores 100 when it carries labelKey (with labelValue, when one is set) and 0 otherwise;
preferPresence: false turns that around, to steer pods away from such nodes.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from scheduler_core.errors import invalid, required
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import MAX_NODE_SCORE, MIN_NODE_SCORE, ScorePlugin
from scheduler_core.framework.types import NodeInfo, PodInfo

NAME = "NodeLabelScorer"
DEFAULT_LABEL_KEY = "scheduling.example.com/preferred"

# The label syntax of apimachinery's validation (IsQualifiedName, IsValidLabelValue).
_NAME_PART = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


@dataclass(frozen=True)
class NodeLabelScorerArgs:
    """The plugin's typed args, built from the pluginConfig mapping (camelCase keys)."""

    label_key: str
    label_value: str
    prefer_presence: bool

    @classmethod
    def from_dict(cls, args: dict) -> NodeLabelScorerArgs:
        return cls(args["labelKey"], args["labelValue"], args["preferPresence"])


def default_args(args: dict) -> dict:
    """A copy with every field set: the default label, any value, presence preferred."""
    out = dict(args or {})
    out.setdefault("labelKey", DEFAULT_LABEL_KEY)
    out.setdefault("labelValue", "")
    out.setdefault("preferPresence", True)
    return out


def _qualified_name_errors(value: str) -> list[str]:
    prefix, _, name = value.rpartition("/")
    errors = []
    if "/" in value and (not prefix or len(prefix) > 253 or not _DNS_SUBDOMAIN.match(prefix)):
        errors.append("prefix part must be a lowercase RFC 1123 subdomain")
    if not name or len(name) > 63 or not _NAME_PART.match(name):
        errors.append("name part must consist of alphanumeric characters, '-', '_' or '.', "
                      "and must start and end with an alphanumeric character, "
                      "at most 63 characters")
    return errors


def validate_args(args: dict, path: str) -> list[str]:
    """Field errors worded as kube-scheduler's args validation words them."""
    errors = []
    key, value, prefer = args.get("labelKey"), args.get("labelValue"), args.get("preferPresence")
    if not key:
        errors.append(required(f"{path}.labelKey"))
    elif not isinstance(key, str):
        errors.append(invalid(f"{path}.labelKey", key, "must be a string"))
    else:
        errors += [invalid(f"{path}.labelKey", key, e) for e in _qualified_name_errors(key)]
    if not isinstance(value, str):
        errors.append(invalid(f"{path}.labelValue", value, "must be a string"))
    elif value and (len(value) > 63 or not _NAME_PART.match(value)):
        errors.append(invalid(f"{path}.labelValue", value,
                              "a valid label value must be 63 characters or less and consist of "
                              "alphanumeric characters, '-', '_' or '.'"))
    if not isinstance(prefer, bool):
        errors.append(invalid(f"{path}.preferPresence", prefer, "must be a boolean"))
    return errors


class NodeLabelScorer(ScorePlugin):
    NAME = NAME

    def __init__(self, args: NodeLabelScorerArgs):
        self.args = args

    # Score ----------------------------------------------------------------------------------
    def score(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> tuple[int, None]:
        value = node_info.labels.get(self.args.label_key)
        has = value is not None and (not self.args.label_value or value == self.args.label_value)
        # Scores are already in [0, 100]: no NormalizeScore needed.
        return (MAX_NODE_SCORE if has == self.args.prefer_presence else MIN_NODE_SCORE), None


def new(args: dict, handle) -> NodeLabelScorer:
    return NodeLabelScorer(NodeLabelScorerArgs.from_dict(default_args(args)))
