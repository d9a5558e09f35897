"""A run's exports: the contract's JSON (as `simulate --output json` prints it), and the
cluster as kube-scheduler-simulator exports it (`simulate --output simulator`): its
/api/v1/export JSON, or its pods alone as a v1 List (`annotated`)."""

from __future__ import annotations

import json
from collections.abc import Iterator

from playground.clusters.services import BULK_BATCH, dump_yaml
from playground.runs.models import Run, stored_trace, stored_trace_text
from playground.runs.sessions import new_session
from scheduler_core.simulate import SCHEMA_VERSION
from scheduler_core.simulator_snap import export_resources


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
    # The warnings of the run's input and profile, as the engine gives them when it builds
    # the run's scheduler (those plugins emit while cycles run are not replayed here).
    warnings = new_session(run).scheduler.warnings.to_list()
    head = {"schemaVersion": SCHEMA_VERSION, "release": run.release}
    if run.feature_gates:   # as simulate writes them: the --feature-gates of the run
        head["featureGates"] = run.gates_flag
    head.update(warnings=warnings, bindings=run_bindings(run))
    text = json.dumps(head, indent=2)
    yield text[:-2] + ",\n  \"cycles\": ["
    traces = run.cycles.order_by("index").values_list("legacy_trace", "packed")
    first = True
    for legacy, packed in traces.iterator(chunk_size=200):
        yield ("\n    " if first else ",\n    ") + stored_trace_text(legacy, packed, 4)
        first = False
    yield "]\n}\n" if first else "\n  ]\n}\n"


def run_export_simulator(*, run: Run) -> dict:
    """The cluster where the run stands, as the simulator exports it: the run replayed to its
    cycle (every pod the controllers and the timeline made is there), each pod annotated
    from its stored cycles."""
    session = new_session(run)
    session.replay(run.cycle_count)
    if run.status == Run.FINISHED and not session.finished:
        session.advance(1)   # the events after the last cycle (a victim's deletion...)
    cycles = [stored_trace(legacy, packed) for legacy, packed in
              run.cycles.order_by("index").values_list("legacy_trace", "packed")
              .iterator(chunk_size=200)]
    return export_resources(session.scheduler, cycles)


def run_export_simulator_json(*, run: Run) -> str:
    return json.dumps(run_export_simulator(run=run), indent=2) + "\n"


def run_export_annotated(*, run: Run) -> str:
    """The run's pods as a v1 List (YAML), as run_export_simulator has them."""
    pods = run_export_simulator(run=run)["pods"]
    items = [{"apiVersion": "v1", "kind": "Pod", **pod} for pod in pods]
    return dump_yaml({"apiVersion": "v1", "kind": "List", "items": items,
                      "metadata": {"resourceVersion": ""}})
