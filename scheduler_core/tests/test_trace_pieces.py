"""The text the trace keeps between cycles (tracecols.Tables): long runs read from a value's
rotation and per-node pieces kept per map are the text they stand for."""
import numpy as np
import pytest

from scheduler_core.tracecols import Tables, map_chunks

DEPTH = 4
KIND = ("total", DEPTH)


def named(count: int) -> Tables:
    tables = Tables()
    for i in range(count):
        tables.name_id(f"node-{i}")
    return tables


def wanted(tables: Tables, ids, keys) -> bytes:
    heads = tables.heads(DEPTH)
    return b"".join(heads[i] + f"{k},\n".encode() for i, k in zip(ids, keys))


def test_long_runs_read_from_a_rotation_are_the_joined_text_as_names_are_added():
    tables = named(100)
    pieces = []
    # The third pass has covered the names twice: its runs are slices of the rotation.
    for _ in range(3):
        for first, count in [(0, 70), (30, 70), (36, 64)]:
            pieces = tables.runs(KIND, str, [first], [7], [count], DEPTH)
            assert b"".join(pieces) == wanted(tables, range(first, first + count), [7] * count)
    assert isinstance(pieces[0], memoryview)
    # Names interned after the rotation was built: runs past its end are joined.
    for i in range(100, 160):
        tables.name_id(f"late-{i}")
    # ... until those runs have covered the names twice again: the rotation is built anew.
    for first, count in [(90, 64), (0, 64), (86, 64)] * 3:
        pieces = tables.runs(KIND, str, [first], [7], [count], DEPTH)
        assert b"".join(pieces) == wanted(tables, range(first, first + count), [7] * count)
    assert isinstance(pieces[0], memoryview)


def test_short_runs_are_joined_with_the_value_after_each_name():
    tables = named(10)
    pieces = tables.runs(KIND, str, [2, 7], [1, -3], [3, 2], DEPTH)
    assert b"".join(pieces) == wanted(tables, [2, 3, 4, 7, 8], [1, 1, 1, -3, -3])


@pytest.mark.parametrize("key_sets", [
    pytest.param([[1, 2, 3, 4], [1, 2, 3, 4], [1, 9, 3, 4], [4, 3, 2, 1]],
                 id="values kept, one changed, all changed"),
    pytest.param([5, [5, 6, 5, 6], 6], id="one value for every node, then mixed"),
])
def test_per_node_pieces_follow_the_values_they_were_rendered_for(key_sets):
    tables = named(12)
    ids = np.array([5, 2, 9, 1])
    for keys in key_sets:
        arg = keys if isinstance(keys, int) else np.array(keys)
        got = tables.nodes("plugin", KIND, str, ids, arg, DEPTH)
        listed = [keys] * len(ids) if isinstance(keys, int) else keys
        assert got == wanted(tables, ids.tolist(), listed)


def test_two_maps_of_one_kind_keep_their_pieces_apart():
    tables = named(8)
    ids = np.array([6, 1, 4, 3])
    first, second = np.array([1, 2, 3, 4]), np.array([9, 8, 7, 6])
    for _ in range(2):
        assert tables.nodes("A", KIND, str, ids, first, DEPTH) == wanted(tables, ids, first)
        assert tables.nodes("B", KIND, str, ids, second, DEPTH) == wanted(tables, ids, second)


def test_a_map_ends_without_a_comma_after_its_last_node():
    tables = named(300)
    ids = np.arange(10, 290)
    for keys in (np.full(len(ids), 3), 3, np.arange(len(ids)) % 2):
        for _ in range(3):
            text = b"".join(map_chunks(tables, KIND, str, ids, keys, DEPTH - 2))
            listed = np.broadcast_to(keys, ids.shape).tolist()
            body = wanted(tables, ids.tolist(), listed)
            assert text == b"{\n" + body[:-2] + b"\n" + b" " * (DEPTH - 2) + b"}"
