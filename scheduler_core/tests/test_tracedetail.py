"""Preemption candidates kept as columns in a traced cycle: the same JSON, fewer bytes."""
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from scheduler_core.observe import TraceRecorder
from scheduler_core.testing import make_pod, pod_info
from scheduler_core.tracecols import Tables
from scheduler_core.tracedetail import CandidateColumns, compact_candidates
from scheduler_core.tracepack import pack, unpack

keys = st.text(st.characters(codec="utf-8"), max_size=12)
# Built in the Evaluator's key order, which the JSON shows.
candidates = st.lists(st.tuples(keys, st.lists(keys, max_size=4), st.integers(0, 2**40)).map(
    lambda t: {"node": t[0], "victims": t[1], "pdbViolations": t[2]}), max_size=20)


@settings(max_examples=60, deadline=None)
@given(plain=candidates)
def test_candidates_as_columns_give_back_the_same_list(plain):
    kept = compact_candidates(Tables(), plain)
    assert isinstance(kept, CandidateColumns) == bool(plain)
    assert (kept.to_json() if plain else kept) == plain


def test_candidates_of_another_shape_are_kept_as_they_are():
    for odd in ([{"node": "n1", "victims": ["a"]}],
                [{"victims": [], "node": "n1", "pdbViolations": 0}],
                [{"node": "n1", "victims": ["a"], "pdbViolations": True}]):
        assert compact_candidates(Tables(), odd) is odd


def preempting_cycle(count: int) -> tuple[TraceRecorder, dict]:
    rec = TraceRecorder(0, 0.0, pod_info(make_pod("p")), "default-scheduler")
    listed = [{"node": f"node-{i}", "victims": [f"default/v-{i}-{j}" for j in range(3)],
               "pdbViolations": i % 2} for i in range(count)]
    detail = {"potentialNodes": count, "offset": 0, "numCandidates": count,
              "candidates": listed, "rejected": {"node-x": "Unschedulable: no"},
              "decision": {"node": "node-0"}}
    rec.preemption("node-0", ["default/v-0-0"], json.loads(json.dumps(detail)))
    expected = {"nominatedNode": "node-0", "victims": ["default/v-0-0"], **detail}
    return rec, expected


def test_a_preempting_cycle_shows_its_candidates_as_json_and_keeps_them_small():
    rec, expected = preempting_cycle(500)
    assert rec.data["preemption"] == expected
    assert json.loads(rec.pretty(0))["preemption"] == expected
    plain = len(json.dumps(expected, separators=(",", ":")))
    assert rec.nbytes() < plain / 4


def test_a_preempting_cycle_round_trips_through_a_pack():
    rec, _ = preempting_cycle(50)
    back = unpack(pack(rec))
    assert back.data == rec.data
    assert back.pretty(4) == rec.pretty(4)
