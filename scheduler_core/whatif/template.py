"""The node template of `plan`: one Node, copied as `<name>-1`, `<name>-2`, ...

Each copy is the node as the kubelet would register it from that template: its own name,
and its `kubernetes.io/hostname` label set to that name (the kubelet always sets it), so that
spreading and anti-affinity over hostnames see distinct nodes. Everything else (labels,
taints, allocatable, capacity, images) is the template's.
"""
from __future__ import annotations

import copy
from collections import Counter

from ..errors import InputError
from ..features import DEFAULT_GATES, FeatureGates
from ..loader import load_documents, read_sources

HOSTNAME = "kubernetes.io/hostname"


def read_template(path: str, text: str | None = None, *, features: FeatureGates = DEFAULT_GATES,
                  warnings: list[str] | None = None) -> dict:
    """The template Node, checked as the API server checks a Node; InputError otherwise.
    warnings gets what the run's release (features) does not honour in it, and its unknown
    fields (dropped), each line naming the file: said once here, not for each copy."""
    sources = read_sources([path], {path: text} if text is not None else None)
    docs = sources[0][1]
    kinds = [str(d.get("kind")) if isinstance(d, dict) else type(d).__name__ for d in docs]
    if kinds != ["Node"]:
        found = ", ".join(f"{n} {kind}" for kind, n in Counter(kinds).items()) or "nothing"
        raise InputError(f"a node template is exactly one Node document, found {found}",
                         file=path, field="kind")
    cluster = load_documents(sources, features=features)
    if warnings is not None:
        warnings.extend(cluster.warnings)
    return cluster.nodes[0]


def copies(template: dict, count: int, start: int = 1) -> list[dict]:
    """`count` copies named <name>-<start>, <name>-<start+1>, ..."""
    name = template["metadata"]["name"]
    out = []
    for i in range(start, start + count):
        node = copy.deepcopy(template)
        meta = node["metadata"]
        meta["name"] = f"{name}-{i}"
        meta.pop("uid", None)
        meta["labels"] = {**(meta.get("labels") or {}), HOSTNAME: meta["name"]}
        out.append(node)
    return out


def check_names(template: dict, count: int, existing: set[str], file: str) -> None:
    """No copy may take the name of a node the cluster already has."""
    name = template["metadata"]["name"]
    taken = sorted(n for n in existing if n.startswith(f"{name}-")
                   and n[len(name) + 1:].isdigit() and 1 <= int(n[len(name) + 1:]) <= count)
    if taken:
        raise InputError(f'copies of the template would be named like node "{taken[0]}" of '
                         "the cluster; give the template another name",
                         file=file, obj=f"Node {name}", field="metadata.name")
