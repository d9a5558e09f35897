"""A run's cycles as rows: CycleRecords from the engine's recorders (what the run executor
stores, columns packed) or from contract cycles given as dicts (tests)."""

from __future__ import annotations

from playground.runs.models import CycleRecord, Run
from scheduler_core import tracepack


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
