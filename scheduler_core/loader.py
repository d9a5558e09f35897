"""Kubernetes objects from YAML or JSON files into a Cluster, all or nothing.

Bad input raises InputError naming the file, the object and the field; nothing is returned
half-loaded because the Cluster is only built once every document has been checked.
"""
from __future__ import annotations

import copy
import random
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field

from . import limit_ranger
from .admission import admit_pods
from .errors import InputError, json_kind
from .features import DEFAULT_GATES, FeatureGates
from .field_validation import IGNORE, WARN, check_fields
from .framework.handle import ClusterObjects
from .framework.types import PodInfo
from .object_shapes import CheckedShapes, shape_of
from .object_validation import ObjectInvalid, validate_object
from .plugins.dynamicresources import objects as dra
from .plugins.dynamicresources import taint_rules
from .plugins.dynamicresources import versions as dra_versions
from .plugins.gangscheduling import objects as workload_api
from .release_input import (
    dropped_dra_fields,
    gated_paths,
    served_by_other_releases,
    skipped_kind,
    unhonoured_fields,
)
from .safe_read import Duplicate, read_with_duplicates
from .simulator_export import exported_gates_note, is_simulator_export, simulator_export_objects
from .warninglog import WarningLog
from .workloads.manager import WORKLOAD_KINDS, ControllerManager, expand, workload_problems
from .workloads.naming import generate_name
from .workloads.persistentvolume import sync_claims

SYSTEM_PRIORITY_CLASSES = {
    "system-node-critical": 2000001000,
    "system-cluster-critical": 2000000000,
}
CONFIG_KIND = "KubeSchedulerConfiguration"
TIMELINE_KIND = "Timeline"      # the playground's own kind: docs/TIMELINE.md
EXTRA_KINDS = ("PodGroup", "Service", "CSIDriver", "CSIStorageCapacity", "ElasticQuota",
               "LimitRange", *workload_api.KINDS, taint_rules.KIND)
DEFAULT_CLASS_ANNOTATION = "storageclass.kubernetes.io/is-default-class"


@dataclass
class Cluster:
    nodes: list[dict] = field(default_factory=list)
    pods: list[dict] = field(default_factory=list)
    objects: ClusterObjects = field(default_factory=ClusterObjects)
    config: dict | None = None
    config_file: str = ""
    warnings: WarningLog = field(default_factory=WarningLog)
    features: FeatureGates = DEFAULT_GATES    # the release and gates the run follows
    # The keys the configuration's document repeats: kube-scheduler refuses them.
    config_duplicates: list[str] = field(default_factory=list)
    workloads: list[dict] = field(default_factory=list)
    # Timeline documents as (file, document): scheduler_core.timeline reads them.
    timelines: list[tuple[str, dict]] = field(default_factory=list)
    controllers: ControllerManager | None = None

    def pod_infos(self) -> list[PodInfo]:
        return [PodInfo(p, priority=pod_priority(p, self.objects.priority_classes))
                for p in self.pods]


def pod_priority(pod: dict, classes: dict[str, dict]) -> int:
    """spec.priority, else the class's value, else the globalDefault class, else 0."""
    spec = pod.get("spec") or {}
    if spec.get("priority") is not None:
        return int(spec["priority"])
    name = spec.get("priorityClassName")
    if name:
        if name in SYSTEM_PRIORITY_CLASSES:
            return SYSTEM_PRIORITY_CLASSES[name]
        return int(classes[name].get("value", 0))
    for pc in classes.values():
        if pc.get("globalDefault"):
            return int(pc.get("value", 0))
    return 0


STDIN = "-"


def _read_documents(path: str, text: str | None = None) -> list:
    return _read_with_duplicates(path, text)[0]


def _read_with_duplicates(path: str, text: str | None = None) -> tuple[list, list[Duplicate]]:
    if text is None and path == STDIN:
        text = sys.stdin.read()
    if text is None:
        try:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
        except OSError as exc:
            raise InputError(f"cannot read file: {exc.strerror}", file=path) from exc
        except UnicodeDecodeError as exc:
            raise InputError(f"not UTF-8 text ({exc.reason} at byte {exc.start})",
                             file=path) from exc
    return read_with_duplicates(text, source=path)


def _flatten(doc, where: str, warnings=None, gates: str = "") -> list[tuple[str, dict]]:
    """A document, a List or any *List kind, as (where, object) pairs; gates: the run's
    --feature-gates, against which a simulator export's own are checked."""
    if not isinstance(doc, dict):
        raise InputError("a document must be a mapping (a Kubernetes object)", obj=where)
    if is_simulator_export(doc):
        lines: list[str] = []
        objects = simulator_export_objects(doc, lines)
        if note := exported_gates_note(doc, gates):
            lines.append(note)
        if warnings is not None:
            warnings.extend(f"{where}: {line}" for line in lines)
        return [(f"{where} {w}", obj) for w, obj in objects]
    for field_name in ("apiVersion", "kind"):
        if not isinstance(doc.get(field_name) or "", str):
            got = json_kind(doc[field_name])
            raise InputError(f'Invalid value: "{got}": {field_name} in body must be of type '
                             f'string: "{got}"', obj=where, field=field_name)
    kind = doc.get("kind") or ""
    if kind == "List" or (kind.endswith("List") and isinstance(doc.get("items"), list)):
        out = []
        for i, item in enumerate(doc.get("items") or []):
            item_kind = kind[:-4] if kind != "List" else None
            if isinstance(item, dict) and item_kind and "kind" not in item:
                item = {**item, "kind": item_kind}
            out += _flatten(item, f"{where} item {i}")
        return out
    return [(where, doc)]


def _label(obj: dict, kind: str, where: str) -> str:
    """"Pod default/web-1" for an object with a name, "Pod" without one."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    name = meta.get("name")
    if not name or not isinstance(name, str):
        return kind or "object"
    namespace = meta.get("namespace") if isinstance(meta.get("namespace"), str) else ""
    return f"{kind} {namespace or 'default'}/{name}" if kind in _NAMESPACED else f"{kind} {name}"


class _Builder:
    """Collects objects of every file, checking each as it comes."""

    def __init__(self, checked: bool = False, seed: int = 0,
                 features: FeatureGates = DEFAULT_GATES, field_validation: str = WARN,
                 any_release: bool = False):
        self.cluster = Cluster(features=features)
        self.any_release = any_release
        self.seen: set[tuple[str, str]] = set()
        self.checked = checked
        self.field_validation = field_validation
        # Where each object came from, by id: admission's errors name the file and document.
        self.origin: dict[int, tuple[str, str]] = {}
        # generateName's random suffixes, apart from the controllers' and the scheduler's.
        self.names = random.Random(f"generateName/{seed}")
        self.shapes = CheckedShapes()

    def add(self, path: str, where: str, obj: dict, duplicates: list[str] = ()) -> None:
        """duplicates: the parser's messages for the keys obj's document repeats."""
        kind = obj.get("kind") or ""
        if kind == CONFIG_KIND:
            if self.cluster.config is not None:
                raise InputError("more than one KubeSchedulerConfiguration", file=path, obj=where)
            self.cluster.config, self.cluster.config_file = obj, path
            self.cluster.config_duplicates = list(duplicates)
            return
        if kind == TIMELINE_KIND:
            self.cluster.timelines.append((path, obj))
            return
        handler = _HANDLERS.get(kind)
        if handler is None and kind not in EXTRA_KINDS and kind not in WORKLOAD_KINDS:
            self.cluster.warnings.warn(path, where, "", f"skipping unsupported kind {kind!r}")
            return
        _generate_name(obj, self.names)
        label = _label(obj, kind, where)
        if not self.checked:
            obj = self.check(path, f"{where}: {label}", kind, obj, duplicates)
        elif kind in dra.HANDLERS:
            obj = _dra_v1(path, f"{where}: {label}", obj)
        elsewhere = self.any_release and served_by_other_releases(obj, self.cluster.features)
        if elsewhere:
            self.cluster.warnings.field(path, where, label, "apiVersion", elsewhere)
            return
        try:
            skipped = skipped_kind(obj, self.cluster.features, f"{where}: {label}")
        except InputError as exc:
            raise InputError(exc.message, file=path, obj=exc.obj, field=exc.field) from exc
        if skipped:
            self.cluster.warnings.warn(path, where, label, skipped)
            return
        for field_path, detail in unhonoured_fields(obj, self.cluster.features):
            self.cluster.warnings.field(path, where, label, field_path, detail)
        if kind in dra.HANDLERS:
            for field_path, detail in dropped_dra_fields(obj, self.cluster.features):
                self.cluster.warnings.field(path, where, label, field_path, detail)
        # A `kubectl get -o yaml` export: the server's field bookkeeping means nothing here.
        (obj.get("metadata") or {}).pop("managedFields", None)
        if kind in WORKLOAD_KINDS:
            # A copy: the controllers give it a uid, which must not leak into the source.
            obj = copy.deepcopy(obj)
            self.cluster.workloads.append(obj)
        self.origin[id(obj)] = (path, where)
        key = label.split(" ", 1)[1]
        if (kind, key) in self.seen:
            raise InputError(f"duplicate {kind} {key!r}", file=path, obj=label)
        self.seen.add((kind, key))
        try:
            (handler or _add_extra)(self.cluster, obj, label, key)
        except InputError as exc:
            raise InputError(str(exc), file=path) from exc

    def check(self, path: str, where: str, kind: str, obj: dict, duplicates) -> dict:
        """The API server's checks of one object (field validation, then validation), the
        object as it comes out of them; ObjectInvalid or InputError when it is refused. An
        object shaped as one that passed them with nothing to say takes its own few checks
        alone (object_shapes)."""
        shape = None if duplicates else shape_of(kind, obj)
        if self.shapes.passed(shape, obj):
            return obj
        found = self.warn_fields(path, where, obj, duplicates)
        if kind in dra.HANDLERS:
            obj = _dra_v1(path, where, obj)
        problems = validate_object(
            obj, self.cluster.features.enabled("TaintTolerationComparisonOperators"))
        if not problems and kind in WORKLOAD_KINDS:
            problems = workload_problems(obj)
        if problems:
            raise ObjectInvalid(problems, file=path, obj=where)
        if shape is not None and not found:
            # Ignore drops unknown fields without a word: the shape is the object's as left.
            self.shapes.add(shape_of(kind, obj) if self.field_validation == IGNORE else shape)
        return obj

    def warn_fields(self, path: str, where: str, obj, duplicates) -> list[str]:
        """The API server's field validation: warnings (returned too), or InputError in
        Strict mode."""
        kind = obj.get("kind") if isinstance(obj, dict) else None
        found = check_fields(obj, duplicates, mode=self.field_validation,
                             release=self.cluster.features.release, file=path, where=where,
                             keep=gated_paths(kind, self.cluster.features.minor)
                             if isinstance(kind, str) else frozenset())
        for message in found:
            self.cluster.warnings.warn(path, where, "", message)
        return found

    def finish(self, seed: int = 0) -> Cluster:
        """Admission of the input's pods, the controllers (whose pods are admitted as they
        make them), then the PV controller's bindings."""
        classes = self.cluster.objects.priority_classes
        defaults = [n for n, pc in classes.items() if pc.get("globalDefault")]
        if len(defaults) > 1:
            raise InputError(f"more than one globalDefault PriorityClass: {defaults}",
                             obj=f"PriorityClass {defaults[1]}", field="globalDefault")
        limit_ranges = self.cluster.objects.extra.get("LimitRange", [])
        with self._located(self.cluster.pods):
            admit_pods(self.cluster.pods, classes, limit_ranges)
        self.cluster.controllers = expand(self.cluster, seed,
                                          lambda obj: self.origin.get(id(obj), ("", "")))
        _default_storage(self.cluster.objects)
        with self._located(self.cluster.objects.pvcs.values()):
            _admit_claims(self.cluster.objects, limit_ranges)
        self._bind_claims()
        dra.finish(self.cluster.objects)
        return self.cluster

    @contextmanager
    def _located(self, objects):
        """An InputError about one of `objects` names the file and document it came from."""
        try:
            yield
        except InputError as exc:
            culprit = next((o for o in objects
                            if exc.obj.endswith(" " + _key_of(o))), None)
            if culprit is None or id(culprit) not in self.origin:
                raise
            path, where = self.origin[id(culprit)]
            raise InputError(exc.message, file=path, obj=f"{where}: {exc.obj}",
                            field=exc.field) from None

    def _bind_claims(self) -> None:
        """The PV controller binds the immediate claims before any pod is scheduled."""
        _, waiting = sync_claims(self.cluster.objects)
        for pvc, why in waiting:
            # A claim of the input is named by its file and document; a StatefulSet's by itself.
            path, where = self.origin.get(id(pvc), ("", ""))
            self.cluster.warnings.append(": ".join(
                p for p in (path, where, f"PersistentVolumeClaim {_key_of(pvc)}", why) if p))


def _dra_v1(path: str, where: str, obj: dict) -> dict:
    """A resource.k8s.io object of any served version, as v1."""
    try:
        return dra_versions.to_v1(obj, where)
    except InputError as exc:
        raise InputError(str(exc), file=path) from exc


def _key_of(obj: dict) -> str:
    meta = obj.get("metadata") or {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name')}"


def _generate_name(obj: dict, rng: random.Random) -> None:
    """The API server names an object that has only metadata.generateName (BeforeCreate)."""
    meta = obj.get("metadata")
    if isinstance(meta, dict) and not meta.get("name") and \
            isinstance(meta.get("generateName"), str) and meta["generateName"]:
        meta["name"] = generate_name(rng, meta["generateName"])


def _admit_claims(objects, limit_ranges: list[dict]) -> None:
    """LimitRanger on the claims: their storage requests within the PersistentVolumeClaim
    ranges of their namespace."""
    for key, pvc in objects.pvcs.items():
        ranges = limit_ranger.ranges_for(key.split("/", 1)[0], limit_ranges)
        try:
            limit_ranger.admit_claim(pvc, ranges)
        except limit_ranger.Forbidden as exc:
            raise limit_ranger.Forbidden(str(exc), obj=f"PersistentVolumeClaim {key}") from None


def _default_storage(objects) -> None:
    """What the API server would have filled in: a class's binding mode, a claim's class."""
    for sc in objects.storage_classes.values():
        sc.setdefault("volumeBindingMode", "Immediate")
    default = next((name for name, sc in objects.storage_classes.items()
                    if ((sc.get("metadata") or {}).get("annotations") or {})
                    .get(DEFAULT_CLASS_ANNOTATION) == "true"), None)
    if default is None:
        return
    for pvc in objects.pvcs.values():
        spec = pvc.setdefault("spec", {})
        if "storageClassName" not in spec:
            spec["storageClassName"] = default


def _add_node(cluster, obj, label, key):
    cluster.nodes.append(obj)


def _add_pod(cluster, obj, label, key):
    obj.setdefault("metadata", {}).setdefault("namespace", "default")
    cluster.pods.append(obj)


def _add_priority_class(cluster, obj, label, key):
    cluster.objects.priority_classes[key] = obj


def _add_pvc(cluster, obj, label, key):
    obj.setdefault("metadata", {}).setdefault("namespace", "default")
    cluster.objects.pvcs[key] = obj


def _add_pv(cluster, obj, label, key):
    cluster.objects.pvs[key] = obj


def _add_extra(cluster, obj, label, key):
    cluster.objects.extra.setdefault(obj.get("kind"), []).append(obj)


_HANDLERS = {
    "Node": _add_node,
    "Pod": _add_pod,
    "Namespace": lambda c, o, label, k: c.objects.namespaces.__setitem__(k, o),
    "PriorityClass": _add_priority_class,
    "PodDisruptionBudget": lambda c, o, label, k: c.objects.pdbs.append(o),
    "PersistentVolume": _add_pv,
    "PersistentVolumeClaim": _add_pvc,
    "StorageClass": lambda c, o, label, k: c.objects.storage_classes.__setitem__(k, o),
    "CSINode": lambda c, o, label, k: c.objects.csinodes.__setitem__(k, o),
    **dra.HANDLERS,
}
_NAMESPACED = {"Pod", "PodDisruptionBudget", "PersistentVolumeClaim", "PodGroup", "Service",
               "CSIStorageCapacity", "ElasticQuota", "LimitRange", *WORKLOAD_KINDS,
               *dra.NAMESPACED, *workload_api.KINDS}


def load_documents(sources: list[tuple[str, list]], seed: int = 0, *,
                   checked: bool = False, features: FeatureGates = DEFAULT_GATES,
                   field_validation: str = WARN,
                   duplicates: dict[str, list[Duplicate]] | None = None,
                   any_release: bool = False) -> Cluster:
    """A Cluster from already-parsed documents: [(file name, [document, ...]), ...].

    Workloads become pods as their controllers would make them, named from `seed`.
    checked: every object was validated when it was stored (a playground run's documents),
    so the per-object validation, most of the load at 5,000 nodes, is not done again.
    features: the release and gates the run follows (input they do not honour is warned of).
    field_validation: the API server's parameter (Warn, Strict, Ignore) for unknown fields
    and for the keys a document repeats (duplicates: file name -> what the reader found).
    any_release: a cluster import's check, whose objects may go to a run under any supported
    release: a gated kind at a version another release serves is kept (a warning), left
    out of the cluster built here; a run's own load refuses it if its release does not
    serve it."""
    builder = _Builder(checked, seed, features, field_validation, any_release)
    gates = features.flag()
    for path, docs in sources:
        repeated = (duplicates or {}).get(path) or []
        for i, doc in enumerate(docs):
            lines: list[str] = []
            try:
                objects = _flatten(doc, f"document {i + 1}", lines, gates)
            except InputError as exc:
                raise InputError(str(exc), file=path) from exc
            for line in lines:
                builder.cluster.warnings.append(f"{path}: {line}")
            messages = [d.message() for d in repeated if d.document == i]
            if messages and len(objects) != 1:
                # A List's repeated keys belong to the document, not to one of its items.
                builder.warn_fields(path, f"document {i + 1}", None, messages)
                messages = []
            for where, obj in objects:
                builder.add(path, where, obj, messages)
    return builder.finish(seed)


def read_files(paths: list[str], texts: dict[str, str] | None = None
               ) -> tuple[list[tuple[str, list]], dict[str, list[Duplicate]]]:
    """Each file's documents, parsed but not checked (load_documents' `sources`), and the
    keys each file's documents repeat ("-" is standard input, read once)."""
    texts = texts or {}
    read = {p: _read_with_duplicates(p, texts.get(p)) for p in dict.fromkeys(paths)}
    return [(p, read[p][0]) for p in paths], {p: dups for p, (_, dups) in read.items()}


def read_sources(paths: list[str], texts: dict[str, str] | None = None) -> list[tuple[str, list]]:
    """Each file's documents, parsed but not checked: load_documents' `sources`."""
    return read_files(paths, texts)[0]


def load_files(paths: list[str], texts: dict[str, str] | None = None, seed: int = 0, *,
               features: FeatureGates = DEFAULT_GATES, field_validation: str = WARN) -> Cluster:
    """A Cluster from files (YAML with many documents, or JSON; "-" is standard input);
    texts overrides reading."""
    sources, duplicates = read_files(paths, texts)
    return load_documents(sources, seed, features=features, field_validation=field_validation,
                          duplicates=duplicates)
