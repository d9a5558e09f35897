"""Writes: clusters from files and back, profiles, objects, runs and their exports.

The service functions take keyword arguments and raise a ServiceError subclass for input they
refuse (`InvalidInput` -> 400, `Conflict` -> 409, `TooLarge` -> 413). Validation is the
engine's: the loader (`scheduler_core.loader`) checks objects,
`scheduler_core.config.parse_configuration` checks the KubeSchedulerConfiguration, so the API
and a run never disagree about what is valid.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterable, Iterator

import yaml
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Sum, TextField
from django.db.models.functions import Cast, Length
from django.utils import timezone

from playground.models import (
    CLUSTER_SCOPED_EXTRA_KINDS,
    DRA_KINDS,
    MODEL_BY_KIND,
    OBJECT_MODELS,
    Cluster,
    CycleRecord,
    ExtraObject,
    KubeObject,
    Node,
    Pod,
    PriorityClass,
    Run,
    RunDocuments,
    SchedulerProfile,
    Timeline,
    stored_trace,
    stored_trace_text,
)
from scheduler_core import simulator_annotations as annotations
from scheduler_core import tracepack
from scheduler_core.config import API_VERSION, parse_configuration
from scheduler_core.errors import ConfigError, InputError
from scheduler_core.framework.registry import Registry
from scheduler_core.loader import CONFIG_KIND, EXTRA_KINDS, _flatten, load_documents
from scheduler_core.object_validation import ObjectInvalid
from scheduler_core.plugins.registry import default_registry
from scheduler_core.safe_read import read_documents
from scheduler_core.simulate import SCHEMA_VERSION
from scheduler_core.timeline.document import parse_timelines
from scheduler_core.workloads.manager import WORKLOAD_KINDS

_YAML_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
# Kinds stored as ExtraObject rows: what the loader keeps besides the kinds with a model.
STORED_EXTRA_KINDS = (frozenset(EXTRA_KINDS) | CLUSTER_SCOPED_EXTRA_KINDS
                      | frozenset(WORKLOAD_KINDS) | DRA_KINDS)
TOP_LEVEL_ORDER = ("apiVersion", "kind", "metadata", "spec", "status")
DESCRIPTION_RE = re.compile(r"^#\s*description:\s*(.*?)\s*$", re.MULTILINE)
BULK_BATCH = 2000
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


class ServiceError(Exception):
    """Bad input for a service; `errors` maps a field path to messages (DRF's shape)."""

    status_code = 400

    def __init__(self, errors: dict[str, list[str]] | str, *, field: str = "non_field_errors"):
        self.errors = errors if isinstance(errors, dict) else {field: [errors]}
        super().__init__("; ".join(m for msgs in self.errors.values() for m in msgs))


class InvalidInput(ServiceError):
    status_code = 400


class TooLarge(ServiceError):
    status_code = 413


class QuotaExceeded(ServiceError):
    """Over one of the user's quotas (PLAYGROUND_QUOTA_*), as a ResourceQuota refuses: 403."""

    status_code = 403


class Conflict(ServiceError):
    """The object is in a state that does not allow the request (e.g. a run that is busy)."""

    status_code = 409


def out_of_tree_plugins() -> dict[str, str]:
    """settings.SCHEDULER_OUT_OF_TREE_PLUGINS: what RunSession(out_of_tree=...) takes."""
    return dict(getattr(settings, "SCHEDULER_OUT_OF_TREE_PLUGINS", None) or {})


def scheduler_registry() -> Registry:
    """The plugin registry every check and every run uses: in-tree plus out-of-tree."""
    return default_registry(out_of_tree_plugins())


def default_config() -> dict:
    return {"apiVersion": API_VERSION, "kind": CONFIG_KIND}


# --- quotas -------------------------------------------------------------------------------


def _over(what: str, used: int, limit: int, setting: str, *, field: str) -> QuotaExceeded:
    return QuotaExceeded(f"exceeded quota: {what}: used {used}, limited to {limit} ({setting})",
                         field=field)


def check_cluster_quota(*, owner) -> None:
    limit = settings.PLAYGROUND_QUOTA_CLUSTERS
    used = Cluster.objects.filter(owner=owner).count()
    if used >= limit:
        raise _over("clusters", used, limit, "PLAYGROUND_QUOTA_CLUSTERS", field="name")


def stored_bytes(owner) -> int:
    """What the owner's clusters and runs take: manifests, run snapshots, recorded cycles."""
    def total(queryset, expression) -> int:
        return queryset.aggregate(n=Sum(Length(expression)))["n"] or 0

    used = sum(total(model.objects.filter(cluster__owner=owner), Cast("manifest", TextField()))
               for model in OBJECT_MODELS)
    used += total(RunDocuments.objects.filter(run__owner=owner), Cast("documents", TextField()))
    cycles = CycleRecord.objects.filter(run__owner=owner)
    return used + total(cycles, "legacy_trace") + total(cycles, "packed")


def check_storage_quota(*, owner, adding: int = 0) -> None:
    limit = settings.PLAYGROUND_QUOTA_STORED_BYTES
    used = stored_bytes(owner)
    if used + adding > limit:
        raise _over("stored bytes", used + adding, limit, "PLAYGROUND_QUOTA_STORED_BYTES",
                    field="non_field_errors")


def check_run_quota(*, owner, run: Run) -> None:
    """Before a run starts or goes on: the owner's other running runs and stored bytes."""
    limit = settings.PLAYGROUND_QUOTA_CONCURRENT_RUNS
    used = Run.objects.filter(owner=owner, status=Run.RUNNING).exclude(pk=run.pk).count()
    if used >= limit:
        raise _over("concurrent runs", used, limit, "PLAYGROUND_QUOTA_CONCURRENT_RUNS",
                    field="non_field_errors")
    check_storage_quota(owner=owner)


# --- reading files ------------------------------------------------------------------------


def parse_file(name: str, text: str) -> list:
    """The documents of one file, read as the engine's loader reads them (within the safe
    reader's limits on size, depth and aliases)."""
    return read_documents(text, source=name)


def fixture_description(text: str) -> str:
    """The `# description: ...` header line of a file, or ""."""
    match = DESCRIPTION_RE.search(text[:4096])
    return match.group(1) if match else ""


def check_upload_size(total_bytes: int) -> None:
    limit = settings.PLAYGROUND_MAX_UPLOAD_BYTES
    if total_bytes > limit:
        raise TooLarge(
            f"upload is {total_bytes} bytes; the limit is {limit} bytes "
            f"(PLAYGROUND_MAX_UPLOAD_BYTES)",
            field="files",
        )


def _check_counts(nodes: int, pods: int) -> None:
    for what, count, setting in (("nodes", nodes, "PLAYGROUND_MAX_NODES"),
                                 ("pods", pods, "PLAYGROUND_MAX_PODS")):
        limit = getattr(settings, setting)
        if count > limit:
            raise TooLarge(f"the cluster would have {count} {what}; the limit is {limit} "
                           f"({setting})", field="files")


def _out_of_range(row: KubeObject) -> str:
    """A message if a computed column does not fit the database's 64-bit integers."""
    for field in row._meta.concrete_fields:
        integer = field.get_internal_type() in ("BigIntegerField", "IntegerField")
        if integer and not field.primary_key:
            value = getattr(row, field.attname)
            if value is not None and not INT64_MIN <= value <= INT64_MAX:
                return (f"{_label(row.get_kind(), row.manifest)}: {field.name} would be {value}, "
                        "out of range")
    return ""


def _has_nul(text: str) -> bool:
    # PostgreSQL text and jsonb cannot hold NUL characters.
    return "\x00" in text or "\\u0000" in text


def _normalized(obj: dict, kind: str) -> dict:
    """A stored manifest: kind set, namespace defaulted for namespaced kinds, keys in order."""
    obj = dict(obj)
    obj["kind"] = kind
    meta = dict(obj.get("metadata") or {})
    model = MODEL_BY_KIND.get(kind)
    namespaced = model.NAMESPACED if model else kind not in CLUSTER_SCOPED_EXTRA_KINDS
    if namespaced and not meta.get("namespace"):
        meta["namespace"] = "default"
    obj["metadata"] = meta
    return _top_level_ordered(obj)


def _top_level_ordered(obj: dict) -> dict:
    """apiVersion, kind, metadata, spec, status first, as kubectl prints them (PostgreSQL's
    jsonb does not keep key order)."""
    ordered = {k: obj[k] for k in TOP_LEVEL_ORDER if k in obj}
    ordered.update((k, v) for k, v in obj.items() if k not in ordered)
    return ordered


def _validate_config(config, *, file: str = "") -> dict:
    if config is None:
        return default_config()
    if not isinstance(config, dict):
        raise InvalidInput({"config": ["must be a KubeSchedulerConfiguration object"]})
    if _has_nul(json.dumps(config)):
        raise InvalidInput({"config": ["NUL characters are not allowed"]})
    config = dict(config)
    config.setdefault("apiVersion", API_VERSION)
    config.setdefault("kind", CONFIG_KIND)
    if config["kind"] != CONFIG_KIND:
        raise InvalidInput({"config": [f'kind: Invalid value: "{config["kind"]}": '
                                       f"must be {CONFIG_KIND}"]})
    try:
        parse_configuration(config, scheduler_registry(), file=file)
    except ConfigError as exc:
        raise InvalidInput({"config": exc.errors}) from exc
    return config


# --- clusters -----------------------------------------------------------------------------


def _read_files(files: Iterable[tuple[str, str]]) -> tuple[list[tuple[str, list]], list[str]]:
    files = list(files)
    if not files:
        raise InvalidInput({"files": ["at least one file is required"]})
    check_upload_size(sum(len(text.encode("utf-8")) for _, text in files))
    sources = []
    for name, text in files:
        if _has_nul(text):
            raise InvalidInput({"files": [f"{name}: NUL characters are not allowed"]})
        try:
            sources.append((name, parse_file(name, text)))
        except InputError as exc:
            raise InvalidInput({"files": [str(exc)]}) from exc
    return sources, [text for _, text in files]


def _objects_of(sources: list[tuple[str, list]]) -> tuple[list[tuple[str, dict]], dict | None]:
    """(kind, manifest) of every object to store, in document order, and the configuration."""
    out, config = [], None
    for _, docs in sources:
        for i, doc in enumerate(docs):
            for _, obj in _flatten(doc, f"document {i + 1}"):
                kind = obj.get("kind") or ""
                if kind == CONFIG_KIND:
                    config = obj
                elif kind in MODEL_BY_KIND or kind in STORED_EXTRA_KINDS:
                    out.append((kind, _normalized(obj, kind)))
    return out, config


def cluster_import(*, owner, name: str, files: Iterable[tuple[str, str]], description: str = "",
                   shared: bool = False,
                   cluster: Cluster | None = None) -> tuple[Cluster, list[str]]:
    """A new cluster from files of kubectl output (or, with `cluster`, that cluster's contents
    replaced); returns it and the loader's warnings (skipped kinds).

    All or nothing: the files are checked by the engine's loader first, and everything is
    written in one transaction.
    """
    sources, texts = _read_files(files)
    check_storage_quota(owner=owner, adding=sum(len(text) for text in texts))
    try:
        # The engine admits pods in place (priority, tolerations); what is stored is the input
        # as given, so that a PriorityClass edited later still applies to its pods.
        loaded = load_documents(copy.deepcopy(sources))
        parse_timelines(loaded)
    except InputError as exc:
        raise InvalidInput({"files": [str(exc)]}) from exc
    _check_counts(len(loaded.nodes), len(loaded.pods))
    objects, config = _objects_of(sources)
    if config is not None:
        try:
            parse_configuration(config, scheduler_registry(), file=loaded.config_file)
        except ConfigError as exc:
            raise InvalidInput({"files": [str(exc)]}) from exc
    if not description and cluster is None:
        description = next((d for d in map(fixture_description, texts) if d), "")
    try:
        stored = _store_import(owner=owner, name=name, description=description, shared=shared,
                               cluster=cluster, config=config, objects=objects)
        _store_timelines(stored, [doc for _, doc in loaded.timelines])
        return stored, loaded.warnings
    except IntegrityError as exc:
        # Names the loader told apart but the database does not (`name: 1` and `name: "1"`).
        raise InvalidInput({"files": [f"two objects of one kind share a name: {exc}"]}) from exc


def _store_import(*, owner, name, description, shared, cluster, config, objects) -> Cluster:
    with transaction.atomic():
        if cluster is None:
            cluster = _new_cluster(owner=owner, name=name, description=description,
                                   shared=shared)
            SchedulerProfile.objects.create(cluster=cluster, config=config or default_config())
        else:
            cluster = Cluster.objects.select_for_update().get(pk=cluster.pk)
            for model in OBJECT_MODELS:
                model.objects.filter(cluster=cluster).delete()
            if config is not None:
                SchedulerProfile.objects.update_or_create(cluster=cluster,
                                                          defaults={"config": config})
            cluster.save(update_fields=["updated"])
        _bulk_store(cluster, objects)
    return cluster


def _store_timelines(cluster: Cluster, documents: list[dict]) -> None:
    """Timeline documents of an import become the cluster's timelines (by name)."""
    for doc in documents:
        name = (doc.get("metadata") or {}).get("name") or "timeline"
        Timeline.objects.update_or_create(cluster=cluster, name=name, defaults={
            "steps": (doc.get("spec") or {}).get("steps") or []})


def _new_cluster(*, owner, name: str, description: str = "", shared: bool = False) -> Cluster:
    name = (name or "").strip()
    if not name:
        raise InvalidInput({"name": ["This field may not be blank."]})
    if Cluster.objects.filter(owner=owner, name=name).exists():
        raise InvalidInput({"name": [f'you already have a cluster named "{name}"']})
    check_cluster_quota(owner=owner)
    try:
        with transaction.atomic():
            return Cluster.objects.create(owner=owner, name=name, description=description,
                                          shared=shared)
    except IntegrityError as exc:
        raise InvalidInput({"name": [f'you already have a cluster named "{name}"']}) from exc


def cluster_create(*, owner, name: str, description: str = "", shared: bool = False) -> Cluster:
    """An empty cluster with the default profile."""
    with transaction.atomic():
        cluster = _new_cluster(owner=owner, name=name, description=description, shared=shared)
        SchedulerProfile.objects.create(cluster=cluster, config=default_config())
    return cluster


def cluster_update(*, cluster: Cluster, **fields) -> Cluster:
    """Name, description, shared."""
    name = fields.get("name")
    if name is not None:
        name = name.strip()
        if not name:
            raise InvalidInput({"name": ["This field may not be blank."]})
        taken = Cluster.objects.filter(owner=cluster.owner, name=name).exclude(pk=cluster.pk)
        if taken.exists():
            raise InvalidInput({"name": [f'you already have a cluster named "{name}"']})
        cluster.name = name
    for field in ("description", "shared"):
        if field in fields and fields[field] is not None:
            setattr(cluster, field, fields[field])
    cluster.save()
    return cluster


def _bulk_store(cluster: Cluster, objects: list[tuple[str, dict]]) -> None:
    by_model: dict[type[KubeObject], list[KubeObject]] = {m: [] for m in OBJECT_MODELS}
    classes = {m["metadata"]["name"]: m for k, m in objects if k == "PriorityClass"}
    for kind, manifest in objects:
        model = MODEL_BY_KIND.get(kind, ExtraObject)
        row = model(cluster=cluster, manifest=manifest)
        row.compute_derived(priority_classes=classes)
        problem = _out_of_range(row)
        if problem:
            raise InvalidInput({"files": [problem]})
        by_model[model].append(row)
    for model, rows in by_model.items():
        if rows:
            model.objects.bulk_create(rows, batch_size=BULK_BATCH)


def cluster_manifests(cluster: Cluster) -> Iterator[dict]:
    """Every object's manifest in export order: by kind (what pods refer to first), then as
    they were added, so pods keep their queue order."""
    for model in OBJECT_MODELS:
        rows = model.objects.filter(cluster=cluster).order_by("id")
        yield from rows.values_list("manifest", flat=True).iterator(chunk_size=BULK_BATCH)


def dump_yaml(doc) -> str:
    return yaml.dump(doc, Dumper=_YAML_DUMPER, sort_keys=False, default_flow_style=False,
                     allow_unicode=True, width=100)


def cluster_export_chunks(*, cluster: Cluster) -> Iterator[str]:
    """cluster_export as chunks, for streaming a large cluster."""
    if cluster.description:
        yield f"# description: {' '.join(cluster.description.split())}\n"
    profile = SchedulerProfile.objects.filter(cluster=cluster).first()
    config = profile.config if profile else default_config()
    yield dump_yaml(_top_level_ordered(config))
    for manifest in cluster_manifests(cluster):
        yield "---\n" + dump_yaml(_top_level_ordered(manifest))
    for timeline in cluster.timelines.all():
        yield "---\n" + dump_yaml(timeline.document())


def cluster_export(*, cluster: Cluster) -> str:
    """Multi-document YAML (the profile, then every object) that imports to the same cluster;
    exporting that import again gives the same bytes."""
    return "".join(cluster_export_chunks(cluster=cluster))


def cluster_clone(*, cluster: Cluster, owner, name: str = "", description: str | None = None,
                  shared: bool = False) -> Cluster:
    """A copy of the cluster (objects and profile) owned by `owner`."""
    if not name:
        name = _free_name(owner, f"{cluster.name} (copy)")
    with transaction.atomic():
        clone = _new_cluster(owner=owner, name=name, shared=shared,
                             description=cluster.description if description is None
                             else description)
        profile = SchedulerProfile.objects.filter(cluster=cluster).first()
        SchedulerProfile.objects.create(cluster=clone,
                                        config=profile.config if profile else default_config())
        for model in OBJECT_MODELS:
            rows = []
            for row in model.objects.filter(cluster=cluster).order_by("id").iterator(
                    chunk_size=BULK_BATCH):
                row.pk = None
                row.id = None
                row.cluster = clone
                rows.append(row)
            model.objects.bulk_create(rows, batch_size=BULK_BATCH)
        Timeline.objects.bulk_create(Timeline(cluster=clone, name=t.name, steps=t.steps)
                                     for t in cluster.timelines.all())
    return clone


def _free_name(owner, base: str) -> str:
    taken = set(Cluster.objects.filter(owner=owner, name__startswith=base)
                .values_list("name", flat=True))
    if base not in taken:
        return base
    n = 2
    while f"{base} {n}" in taken:
        n += 1
    return f"{base} {n}"


# --- profile ------------------------------------------------------------------------------


def profile_update(*, cluster: Cluster, config) -> SchedulerProfile:
    """Replace the cluster's KubeSchedulerConfiguration; InvalidInput carries kube-scheduler's
    validation messages (each starting with its field path)."""
    config = _validate_config(config)
    profile, _ = SchedulerProfile.objects.update_or_create(cluster=cluster,
                                                           defaults={"config": config})
    return profile


def profile_config_from_text(text: str) -> dict:
    try:
        docs = parse_file("config", text)
    except InputError as exc:
        raise InvalidInput({"text": [str(exc)]}) from exc
    if len(docs) != 1 or not isinstance(docs[0], dict):
        raise InvalidInput({"text": ["must hold exactly one KubeSchedulerConfiguration document"]})
    return docs[0]


# --- single objects -----------------------------------------------------------------------


def _label(kind: str, manifest: dict) -> str:
    meta = manifest.get("metadata") or {}
    model = MODEL_BY_KIND.get(kind)
    namespaced = model.NAMESPACED if model else kind not in CLUSTER_SCOPED_EXTRA_KINDS
    name = meta.get("name") or ""
    return f"{kind} {(meta.get('namespace') or 'default')}/{name}" if namespaced else \
        f"{kind} {name}"


def _check_identity(manifest: dict) -> None:
    """kind, metadata, name and namespace of a manifest given alone, before anything reads it."""
    if "kind" in manifest and not isinstance(manifest["kind"], str | None):
        raise InvalidInput({"manifest.kind": ["must be a string"]})
    meta = manifest.get("metadata")
    if meta is not None and not isinstance(meta, dict):
        raise InvalidInput({"manifest.metadata": ["must be a mapping"]})
    meta = meta or {}
    if not meta.get("name"):
        raise InvalidInput({"manifest.metadata.name": ["Required value"]})
    for field in ("name", "namespace"):
        if field in meta and not isinstance(meta[field], str | None):
            raise InvalidInput({f"manifest.metadata.{field}": ["must be a string"]})


def object_save(*, cluster: Cluster, model: type[KubeObject], manifest,
                instance: KubeObject | None = None) -> KubeObject:
    """Create (or, with `instance`, replace) one object; checked by the loader in the context
    it needs (the cluster's PriorityClasses for a Pod or a PriorityClass)."""
    if not isinstance(manifest, dict):
        raise InvalidInput({"manifest": ["must be a Kubernetes object (a mapping)"]})
    if _has_nul(json.dumps(manifest)):
        raise InvalidInput({"manifest": ["NUL characters are not allowed"]})
    _check_identity(manifest)
    kind = manifest.get("kind") or model.KIND
    if model is ExtraObject:
        if kind not in STORED_EXTRA_KINDS:
            allowed = ", ".join(f'"{k}"' for k in sorted(STORED_EXTRA_KINDS))
            raise InvalidInput({"manifest.kind": [
                f'Unsupported value: "{kind}": supported values: {allowed}']})
    elif kind != model.KIND:
        raise InvalidInput({"manifest.kind": [f'Invalid value: "{kind}": must be {model.KIND}']})
    manifest = _normalized(copy.deepcopy(manifest), kind)
    label = _label(kind, manifest)
    if instance is not None:
        was = _label(instance.get_kind(), instance.manifest)
        if label != was:
            raise InvalidInput({"manifest.metadata.name": [
                f"Invalid value: {label!r}: metadata.name and metadata.namespace are "
                f"immutable (was {was!r})"]})
    else:
        _check_room(cluster, model)
        check_storage_quota(owner=cluster.owner, adding=len(json.dumps(manifest)))
    meta = manifest["metadata"]
    duplicates = model.objects.filter(cluster=cluster, name=meta["name"])
    if model is ExtraObject:
        duplicates = duplicates.filter(kind=kind, namespace="" if kind in
                                       CLUSTER_SCOPED_EXTRA_KINDS else meta["namespace"])
    elif model.NAMESPACED:
        duplicates = duplicates.filter(namespace=meta["namespace"])
    if instance is not None:
        duplicates = duplicates.exclude(pk=instance.pk)
    if duplicates.exists():
        raise InvalidInput({"manifest.metadata.name": [f"{label} already exists in this cluster"]})
    context: list[dict] = []
    if model in (Pod, PriorityClass):
        context = [m for m in cluster.priority_class_manifests().values()
                   if not (instance and model is PriorityClass
                           and m["metadata"]["name"] == instance.name)]
    try:
        load_documents([("", copy.deepcopy(context)), ("", [copy.deepcopy(manifest)])])
    except ObjectInvalid as exc:
        raise InvalidInput(_problems_by_field(exc.problems)) from exc
    except InputError as exc:
        raise InvalidInput({_field_of(exc): [str(exc)]}) from exc
    row = instance or model(cluster=cluster)
    row.manifest = manifest
    row.compute_derived(**({"priority_classes": {m["metadata"]["name"]: m for m in context}}
                           if model is Pod else {}))
    problem = _out_of_range(row)
    if problem:
        raise InvalidInput({"manifest": [problem]})
    try:
        with transaction.atomic():
            row.save()
            Cluster.objects.filter(pk=cluster.pk).update(updated=timezone.now())
    except IntegrityError as exc:
        raise InvalidInput({"manifest.metadata.name": [
            f"{label} already exists in this cluster"]}) from exc
    return row


def _problems_by_field(problems: list[tuple[str, str]]) -> dict[str, list[str]]:
    """manifest.<field path> -> the API server's messages for it, every one of them."""
    errors: dict[str, list[str]] = {}
    for path, message in problems:
        errors.setdefault(f"manifest.{path}", []).append(message)
    return errors


def _field_of(exc: BaseException | None) -> str:
    """manifest.<the field an InputError or the one it was raised from names>."""
    while exc is not None:
        if getattr(exc, "field", ""):
            return f"manifest.{exc.field}"
        exc = exc.__cause__
    return "manifest"


def _check_room(cluster: Cluster, model: type[KubeObject]) -> None:
    if model is Node:
        _check_counts(Node.objects.filter(cluster=cluster).count() + 1, 0)
    elif model is Pod:
        _check_counts(0, Pod.objects.filter(cluster=cluster).count() + 1)


def object_delete(*, instance: KubeObject) -> None:
    cluster_id = instance.cluster_id
    with transaction.atomic():
        instance.delete()
        Cluster.objects.filter(pk=cluster_id).update(updated=timezone.now())


# --- runs ---------------------------------------------------------------------------------


def run_create(*, cluster: Cluster, seed: int, name: str = "", owner=None) -> Run:
    """A run over a snapshot of the cluster's objects and profile (what reset restores)."""
    # The cluster's timelines go with its objects (scheduler_core.timeline reads them).
    documents = list(cluster_manifests(cluster)) + [t.document() for t in cluster.timelines.all()]
    profile = SchedulerProfile.objects.filter(cluster=cluster).first()
    config = profile.config if profile else default_config()
    try:
        parse_timelines(load_documents([("cluster", copy.deepcopy(documents))]))
        parse_configuration(config, scheduler_registry())
    except InputError as exc:
        raise InvalidInput({"cluster": [str(exc)]}) from exc
    check_storage_quota(owner=owner or cluster.owner, adding=len(json.dumps(documents)))
    return Run.objects.create(cluster=cluster, owner=owner or cluster.owner, name=name,
                              seed=seed, config=config, documents=documents)


def run_bindings(run: Run) -> dict[str, str | None]:
    """Every pod pending at the start -> the node it was bound to, or None (the contract's
    `bindings`), from the run's documents and its Bound cycles."""
    bindings: dict[str, str | None] = {}
    for doc in run.documents:
        if doc.get("kind") != "Pod" or (doc.get("spec") or {}).get("nodeName"):
            continue
        meta = doc.get("metadata") or {}
        bindings[f"{meta.get('namespace') or 'default'}/{meta.get('name')}"] = None
    bound = run.cycles.filter(outcome="Bound").order_by("index").values_list("pod", "node")
    for pod, node in bound.iterator(chunk_size=BULK_BATCH):
        if pod in bindings:
            bindings[pod] = node
    return bindings


def run_export_json_chunks(*, run: Run) -> Iterator[str]:
    """The contract's JSON (as `simulate --output json` prints it), streamed cycle by cycle.

    The text equals json.dumps(result, indent=2) + "\\n" of the whole object.
    """
    head = {"schemaVersion": SCHEMA_VERSION, "bindings": run_bindings(run)}
    text = json.dumps(head, indent=2)
    yield text[:-2] + ",\n  \"cycles\": ["
    traces = run.cycles.order_by("index").values_list("legacy_trace", "packed")
    first = True
    for legacy, packed in traces.iterator(chunk_size=200):
        yield ("\n    " if first else ",\n    ") + stored_trace_text(legacy, packed, 4)
        first = False
    yield "]\n}\n" if first else "\n  ]\n}\n"


def run_export_annotated(*, run: Run) -> str:
    """The run's pods as a v1 List, each scheduled pod carrying kube-scheduler-simulator's
    result annotations from its last scheduling cycle."""
    last: dict[str, dict] = {}
    for pod, legacy, packed in run.cycles.order_by("index").values_list(
            "pod", "legacy_trace", "packed").iterator(chunk_size=200):
        last[pod] = (legacy, packed)
    bindings = run_bindings(run)
    items = []
    for doc in run.documents:
        if doc.get("kind") != "Pod":
            continue
        pod = copy.deepcopy(doc)
        meta = pod.setdefault("metadata", {})
        key = f"{meta.get('namespace') or 'default'}/{meta.get('name')}"
        if bindings.get(key):
            pod.setdefault("spec", {})["nodeName"] = bindings[key]
        if key in last:
            meta["annotations"] = {**(meta.get("annotations") or {}),
                                   **annotations.pod_annotations(stored_trace(*last[key]))}
        items.append(pod)
    return dump_yaml({"apiVersion": "v1", "kind": "List", "items": items,
                      "metadata": {"resourceVersion": ""}})


def cycle_records_from_trace(run: Run, cycles: list[dict]) -> list[CycleRecord]:
    """CycleRecords for contract cycles given as dicts (tests; kept as that JSON)."""
    return [CycleRecord(run=run, index=c["index"], time=c.get("time", 0.0), pod=c["pod"],
                        outcome=c.get("outcome") or "", node=c.get("node"),
                        message=c.get("message") or "", trace=c) for c in cycles]


def cycle_records_from_recorders(run: Run, recorders: list) -> list[CycleRecord]:
    """CycleRecords for the engine's recorded cycles (TraceRecorder), their columns packed
    as they are (what the run executor stores)."""
    records = []
    for rec in recorders:
        f = tracepack.fields(rec)
        records.append(CycleRecord(
            run=run, index=f["index"], time=f["time"], pod=f["pod"], outcome=f["outcome"] or "",
            node=f["node"], message=f["message"] or "", preempted=f["preempted"],
            packed=tracepack.pack(rec)))
    return records
