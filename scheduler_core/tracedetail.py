"""Preemption's candidates in a traced cycle, kept as integer columns.

A preemption cycle at 5,000 nodes lists hundreds of candidates, each a node, its victims' keys
and its PDB violations: as JSON that is most of what the cycle holds. The recorder keeps them as
name ids (interned in the trace's Tables, with the node names) and small integer arrays instead,
and gives back the very list it was handed wherever the cycle is shown as JSON: `expand` is the
`default` of those json.dumps calls.
"""
from __future__ import annotations

import json
from itertools import accumulate

from .tracecols import Tables, column_bytes, int_column

_FIELDS = ("node", "victims", "pdbViolations")


class CandidateColumns:
    """[{"node", "victims", "pdbViolations"}, ...] as columns."""

    __slots__ = ("ends", "nodes", "tables", "victims", "violations")

    def __init__(self, tables: Tables, candidates: list[dict]):
        name_id = tables.name_id
        self.tables = tables
        self.nodes = int_column([name_id(c["node"]) for c in candidates])
        self.victims = int_column([name_id(key) for c in candidates for key in c["victims"]])
        self.ends = int_column(list(accumulate(len(c["victims"]) for c in candidates)))
        self.violations = int_column([c["pdbViolations"] for c in candidates])

    def to_json(self) -> list[dict]:
        names = self.tables.names
        out, start = [], 0
        for node, end, violations in zip(self.nodes, self.ends, self.violations):
            out.append({"node": names[node],
                        "victims": [names[v] for v in self.victims[start:end]],
                        "pdbViolations": violations})
            start = end
        return out

    def nbytes(self) -> int:
        return sum(map(column_bytes, (self.nodes, self.victims, self.ends, self.violations)))


def _plain(candidate) -> bool:
    """A candidate exactly as the Evaluator writes it (anything else is kept as it is)."""
    return (isinstance(candidate, dict) and tuple(candidate) == _FIELDS
            and isinstance(candidate["node"], str)
            and type(candidate["pdbViolations"]) is int
            and isinstance(candidate["victims"], list)
            and all(isinstance(key, str) for key in candidate["victims"]))


def compact_candidates(tables: Tables, candidates):
    """The candidates as columns when they have the Evaluator's shape, else unchanged."""
    if isinstance(candidates, list) and candidates and all(map(_plain, candidates)):
        return CandidateColumns(tables, candidates)
    return candidates


def expand(value):
    """json.dumps' default: a compact value as the JSON it stands for."""
    if isinstance(value, CandidateColumns):
        return value.to_json()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def expanded(entry):
    """A cycle's preemption entry with its candidates as the plain list."""
    if isinstance(entry, dict) and isinstance(entry.get("candidates"), CandidateColumns):
        return {**entry, "candidates": entry["candidates"].to_json()}
    return entry


def compact_size(data) -> int:
    """The length of `data` as compact JSON, a compact value counted by its columns."""
    extra = []

    def stub(value):
        if not isinstance(value, CandidateColumns):
            return expand(value)
        extra.append(value.nbytes())
        return None

    return len(json.dumps(data, separators=(",", ":"), default=stub)) + sum(extra)
