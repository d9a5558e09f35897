"""Writes of clusters: from files and back (import, export, clone), and their single objects.

The service functions take keyword arguments and raise a ServiceError subclass for input they
refuse (`InvalidInput` -> 400, `TooLarge` -> 413, `QuotaExceeded` -> 403). Validation is the
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
from django.utils import timezone

from playground.clusters.models import (
    CLUSTER_SCOPED_EXTRA_KINDS,
    DRA_KINDS,
    MODEL_BY_KIND,
    OBJECT_MODELS,
    Cluster,
    ExtraObject,
    KubeObject,
    Node,
    Pod,
    PriorityClass,
)
from playground.engine import default_config, scheduler_registry
from playground.errors import InvalidInput, TooLarge, has_nul
from playground.profiles.models import SchedulerProfile
from playground.quotas import check_cluster_quota, check_storage_quota, lock_owner
from playground.timelines.models import Timeline
from scheduler_core.config import parse_configuration
from scheduler_core.errors import ConfigError, InputError
from scheduler_core.field_validation import IGNORE, WARN, check_fields
from scheduler_core.loader import CONFIG_KIND, EXTRA_KINDS, _flatten, load_documents
from scheduler_core.object_validation import ObjectInvalid
from scheduler_core.safe_read import Duplicate, read_with_duplicates
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


# --- reading files ------------------------------------------------------------------------


def parse_file(name: str, text: str) -> list:
    """The documents of one file, read as the engine's loader reads them (within the safe
    reader's limits on size, depth and aliases)."""
    return read_with_duplicates(text, source=name)[0]


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
        if integer and not (field.primary_key or field.generated):  # the database's own
            value = getattr(row, field.attname)
            if value is not None and not INT64_MIN <= value <= INT64_MAX:
                return (f"{_label(row.get_kind(), row.manifest)}: {field.name} would be {value}, "
                        "out of range")
    return ""


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


# --- clusters -----------------------------------------------------------------------------


def _read_files(files: Iterable[tuple[str, str]]
                ) -> tuple[list[tuple[str, list]], dict[str, list[Duplicate]], list[str]]:
    """The files' documents, the keys each file repeats, and the texts."""
    files = list(files)
    if not files:
        raise InvalidInput({"files": ["at least one file is required"]})
    check_upload_size(sum(len(text.encode("utf-8")) for _, text in files))
    sources, duplicates = [], {}
    for name, text in files:
        if has_nul(text):
            raise InvalidInput({"files": [f"{name}: NUL characters are not allowed"]})
        try:
            docs, duplicates[name] = read_with_duplicates(text, source=name)
        except InputError as exc:
            raise InvalidInput({"files": [str(exc)]}) from exc
        sources.append((name, docs))
    return sources, duplicates, [text for _, text in files]


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
                    # Stored as the API server stores it: without the fields its type lacks
                    # (the loader has warned of them, or refused them in Strict mode).
                    check_fields(obj, [], mode=IGNORE)
                    out.append((kind, _normalized(obj, kind)))
    return out, config


def cluster_import(*, owner, name: str, files: Iterable[tuple[str, str]], description: str = "",
                   shared: bool = False, cluster: Cluster | None = None,
                   field_validation: str = WARN,
                   drop_removed_plugins: bool = False) -> tuple[Cluster, list[str]]:
    """A new cluster from files of kubectl output (or, with `cluster`, that cluster's contents
    replaced); returns it and the loader's warnings (skipped kinds, unknown and repeated
    fields: refused instead with field_validation Strict, as the API server's parameter).
    drop_removed_plugins: plugins kube-scheduler has removed (a kube-scheduler-simulator
    export names EBSLimits...) are left out of the stored profile, a warning each, instead of
    refused.

    All or nothing: the files are checked by the engine's loader first, and everything is
    written in one transaction.
    """
    sources, duplicates, texts = _read_files(files)
    check_storage_quota(owner=owner, adding=sum(len(text) for text in texts))
    try:
        # The engine admits pods in place (priority, tolerations); what is stored is the input
        # as given, so that a PriorityClass edited later still applies to its pods.
        # Checked for every supported release: a run picks its own and checks again.
        loaded = load_documents(copy.deepcopy(sources), field_validation=field_validation,
                                duplicates=duplicates, any_release=True)
        parse_timelines(loaded)
    except InputError as exc:
        raise InvalidInput({"files": [str(exc)]}) from exc
    _check_counts(len(loaded.nodes), len(loaded.pods))
    objects, config = _objects_of(sources)
    warnings = list(loaded.warnings)
    if config is not None:
        try:
            parsed = parse_configuration(config, scheduler_registry(), file=loaded.config_file,
                                         duplicates=loaded.config_duplicates,
                                         drop_removed=drop_removed_plugins,
                                         drop_option="dropRemovedPlugins")
        except ConfigError as exc:
            raise InvalidInput({"files": [str(exc)]}) from exc
        if parsed.warnings:
            config, warnings = parsed.raw, warnings + parsed.warnings
    if not description and cluster is None:
        description = next((d for d in map(fixture_description, texts) if d), "")
    try:
        stored = _store_import(owner=owner, name=name, description=description, shared=shared,
                               cluster=cluster, config=config, objects=objects,
                               adding=sum(len(text) for text in texts))
        _store_timelines(stored, [doc for _, doc in loaded.timelines])
        return stored, warnings
    except IntegrityError as exc:
        # Names the loader told apart but the database does not (`name: 1` and `name: "1"`).
        raise InvalidInput({"files": [f"two objects of one kind share a name: {exc}"]}) from exc


def _store_import(*, owner, name, description, shared, cluster, config, objects,
                  adding: int) -> Cluster:
    with transaction.atomic():
        lock_owner(owner)  # counted again under the lock: another import may have landed
        check_storage_quota(owner=owner, adding=adding)
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


# Lengths of a cluster's texts (the name as its column; a description is prose, not a file).
NAME_MAX = 200
DESCRIPTION_MAX = 10_000


def _check_lengths(**texts: str | None) -> None:
    limits = {"name": NAME_MAX, "description": DESCRIPTION_MAX}
    errors = {field: [f"Ensure this field has no more than {limits[field]:,} characters "
                      f"(it has {len(text):,})."]
              for field, text in texts.items() if text is not None and len(text) > limits[field]}
    if errors:
        raise InvalidInput(errors)


def _new_cluster(*, owner, name: str, description: str = "", shared: bool = False) -> Cluster:
    name = (name or "").strip()
    if not name:
        raise InvalidInput({"name": ["This field may not be blank."]})
    _check_lengths(name=name, description=description)
    try:
        with transaction.atomic():
            lock_owner(owner)  # the count and the create in one transaction, under the lock
            if Cluster.objects.filter(owner=owner, name=name).exists():
                raise InvalidInput({"name": [f'you already have a cluster named "{name}"']})
            check_cluster_quota(owner=owner)
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
    _check_lengths(name=name, description=fields.get("description"))
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
    if has_nul(json.dumps(manifest)):
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
        raise InvalidInput({_field_of(exc): [_one_object_message(exc)]}) from exc
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


def _one_object_message(exc: InputError) -> str:
    """The loader's message without its "document N" (the request holds one object)."""
    obj = re.sub(r"^document \d+: ", "", exc.obj)
    return str(InputError(exc.message, obj=obj, field=exc.field)) if exc.message else str(exc)


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
