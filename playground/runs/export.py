"""A run's exports: the contract's JSON (as `simulate --output json` prints it) and the pods
annotated as kube-scheduler-simulator annotates them."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator

from playground.clusters.services import BULK_BATCH, dump_yaml
from playground.models import Run, stored_trace, stored_trace_text
from scheduler_core import simulator_annotations as annotations
from scheduler_core.simulate import SCHEMA_VERSION


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
