"""A run's cycles as rows: CycleRecords from the engine's recorders (what the run executor
stores, columns packed) or from contract cycles given as dicts (tests)."""

from __future__ import annotations

from django.db import connection
from django.db.models.constants import OnConflict

from playground.runs.models import CycleRecord, Run
from scheduler_core import tracepack

# What store_cycles writes, in this order (the others: the id, the database's `size`, and
# `trace`, left NULL for a packed cycle).
_COLUMNS = ("run", "index", "time", "pod", "outcome", "node", "message", "preempted", "packed")


def cycle_records_from_trace(run: Run, cycles: list[dict]) -> list[CycleRecord]:
    """CycleRecords for contract cycles given as dicts (tests; kept as that JSON)."""
    return [CycleRecord(run=run, index=c["index"], time=c.get("time", 0.0), pod=c["pod"],
                        outcome=c.get("outcome") or "", node=c.get("node"),
                        message=c.get("message") or "", trace=c) for c in cycles]


def store_cycles(run_id: int, recorders: list) -> None:
    """The engine's recorded cycles (TraceRecorder) as CycleRecords, their columns packed as
    they are; a cycle already stored (same run and index) is left as it is.

    One statement run for all the rows (executemany) with plain values: bulk_create made a
    model instance per row and prepared each of its fields, several times the cost of the
    insert itself in embedded mode."""
    rows = []
    for rec in recorders:
        f = tracepack.fields(rec)
        rows.append((run_id, f["index"], f["time"], f["pod"], f["outcome"] or "", f["node"],
                     f["message"] or "", f["preempted"], tracepack.pack(rec)))
    if rows:
        with connection.cursor() as cursor:
            cursor.executemany(_insert_sql(), rows)


def _insert_sql() -> str:
    """INSERT of _COLUMNS that skips a row whose (run, index) is stored, in the connection's
    dialect (Django's own words for bulk_create(ignore_conflicts=True))."""
    ops = connection.ops
    fields = [CycleRecord._meta.get_field(name) for name in _COLUMNS]
    columns = ", ".join(ops.quote_name(f.column) for f in fields)
    values = ", ".join(["%s"] * len(fields))
    suffix = ops.on_conflict_suffix_sql(fields, OnConflict.IGNORE, None, None)
    return (f"{ops.insert_statement(on_conflict=OnConflict.IGNORE)} "
            f"{ops.quote_name(CycleRecord._meta.db_table)} ({columns}) VALUES ({values}) "
            f"{suffix}").rstrip()
