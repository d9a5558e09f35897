"""Objects alike but for their names, checked once per load.

A cluster of thousands of nodes or pods is mostly copies of a few templates (scheduler_perf's
node-default and pod-default; a Deployment's replicas): the objects differ in their names,
their uids, labels holding the name (kubernetes.io/hostname) and a pod's spec.nodeName. The
API server's checks the loader runs on each object (unknown fields, out-of-range integers,
types, validation: about half of loading 50,000 nodes) depend on those values only through
a few checks of their own: the name's, a label value's, nodeName's. The storage objects
scheduler_perf's volumes workloads make one per pod (a PersistentVolume and its claim, bound
to each other; a CSINode per node) and the pods using them also differ in values no check of
ours reads at all: the claim a pod's volume names, a volume's claimRef and disk id, a claim's
volumeName, a CSINode driver's nodeID (OWN_VALUES). So an object's *shape*,
its text with those values replaced by placeholders, is checked in full once; another
object of the same shape is taken when it passes those few checks alone, and is checked in
full when it does not, so that what is refused and how it is worded are unchanged.

A shape is the object's repr, which tells apart every value the readers give (strings are
quoted; True, 1 and 1.0 differ; the placeholders are written without quotes).
"""
from __future__ import annotations

from .validation import is_dns1123_subdomain, is_valid_label_value

# The kinds whose validation reads the name only through these checks (object_validation:
# a PriorityClass's, for one, also reads the name's prefix).
KINDS = ("Pod", "Node", "PersistentVolume", "PersistentVolumeClaim", "CSINode")

# Per kind, the string fields (paths; "*" is each item of a list) whose values validation
# does not read (object_validation's _pod, _pv, _pvc and CSINode's metadata alone; field
# validation reads keys and integers only): a non-empty string there is a placeholder. An
# empty one, or another type, stays in the shape, so that it is checked in full.
OWN_VALUES = {
    "Pod": (("spec", "volumes", "*", "persistentVolumeClaim", "claimName"),),
    "PersistentVolume": tuple(
        ("spec", *path) for path in (
            ("claimRef", "name"), ("claimRef", "uid"), ("awsElasticBlockStore", "volumeID"),
            ("gcePersistentDisk", "pdName"), ("azureDisk", "diskName"), ("azureDisk", "diskURI"),
            ("cinder", "volumeID"), ("portworxVolume", "volumeID"), ("csi", "volumeHandle"))),
    "PersistentVolumeClaim": (("spec", "volumeName"),),
    "CSINode": (("spec", "drivers", "*", "nodeID"),),
}


class _Placeholder:
    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


NAME, UID, NODE_NAME = _Placeholder("<name>"), _Placeholder("<uid>"), _Placeholder("<nodeName>")
OWN = _Placeholder("<own>")


def _with_own_value(value, path: tuple[str, ...]):
    """value with the non-empty string at path replaced by OWN: copies of the dicts and
    lists on the way, the original left as it is (and returned when nothing is replaced)."""
    if not path:
        return OWN if type(value) is str and value else value
    head, rest = path[0], path[1:]
    if head == "*":
        if type(value) is not list:
            return value
        items = [_with_own_value(v, rest) for v in value]
        return value if all(a is b for a, b in zip(items, value)) else items
    if type(value) is not dict or head not in value:
        return value
    inner = _with_own_value(value[head], rest)
    return value if inner is value[head] else {**value, head: inner}


def shape_of(kind: str, obj: dict) -> str | None:
    """The object's shape, or None when it has none (another kind, no name)."""
    meta = obj.get("metadata")
    if kind not in KINDS or type(meta) is not dict:
        return None
    name = meta.get("name")
    if type(name) is not str or not name:
        return None
    meta = {**meta, "name": NAME}
    if type(meta.get("uid")) is str:
        meta["uid"] = UID
    labels = meta.get("labels")
    if type(labels) is dict and name in labels.values():
        meta["labels"] = {k: NAME if v == name else v for k, v in labels.items()}
    shaped = {**obj, "metadata": meta}
    spec = obj.get("spec")
    if kind == "Pod" and type(spec) is dict and type(spec.get("nodeName")) is str \
            and spec["nodeName"]:
        shaped["spec"] = {**spec, "nodeName": NODE_NAME}
    for path in OWN_VALUES.get(kind, ()):
        shaped = _with_own_value(shaped, path)
    try:
        return repr(shaped)
    except RecursionError:       # nested past the stack: checked in full, as it comes
        return None


def own_values_pass(obj: dict) -> bool:
    """The checks the placeholders stand for: the name (a DNS subdomain for both kinds), as
    a label value where a label holds it, and a pod's nodeName."""
    meta = obj["metadata"]
    name = meta["name"]
    if is_dns1123_subdomain(name):
        return False
    labels = meta.get("labels")
    if type(labels) is dict and name in labels.values() and is_valid_label_value(name):
        return False
    spec = obj.get("spec")
    node_name = spec.get("nodeName") if type(spec) is dict else None
    return not (type(node_name) is str and node_name and is_dns1123_subdomain(node_name))


class CheckedShapes:
    """The shapes of the objects of one load that passed every check with nothing to say."""

    def __init__(self):
        self._clean: set[str] = set()

    def passed(self, shape: str | None, obj: dict) -> bool:
        """An object of a shape already checked, whose own values pass too."""
        return shape is not None and shape in self._clean and own_values_pass(obj)

    def add(self, shape: str) -> None:
        self._clean.add(shape)
