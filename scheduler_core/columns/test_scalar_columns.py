"""Scalar-resource columns: built from the rows holding the resource, kept up to date as rows
change, and at most MAX_SCALARS of them kept."""
import numpy as np

from scheduler_core.columns.store import MAX_SCALARS, columns_of
from scheduler_core.framework.snapshot import Snapshot
from scheduler_core.framework.types import NodeInfo
from scheduler_core.testing import make_node, pod_info


def snapshot_of(count: int) -> Snapshot:
    """Node i has one foo.com/bar-i, as scheduler_perf's node-with-extended-resource."""
    return Snapshot([NodeInfo(make_node(f"n{i}", allocatable={f"foo.com/bar-{i}": "1"}))
                     for i in range(count)])


def test_a_column_holds_each_nodes_own_amount_and_zero_elsewhere():
    cols = columns_of(snapshot_of(5))
    alloc, used = cols.scalar("foo.com/bar-3")
    assert alloc.tolist() == [0, 0, 0, 1, 0] and used.tolist() == [0] * 5
    assert cols.scalar("example.com/none")[0].tolist() == [0] * 5


def test_a_resource_a_node_gains_after_the_index_was_built_is_counted():
    snapshot = snapshot_of(3)
    cols = columns_of(snapshot)
    cols.scalar("foo.com/bar-0")   # builds the index of names to rows
    old = snapshot.list()[1]
    fresh = NodeInfo(make_node("n1", allocatable={"foo.com/bar-1": "1", "foo.com/new": "2"}))
    fresh.add_pod(pod_info({"metadata": {"name": "p", "namespace": "default"}, "spec": {
        "containers": [{"name": "c", "resources": {"requests": {"foo.com/new": "1"}}}]}}))
    snapshot.node_info_list[1] = fresh
    cols.update_row(1, fresh, old)
    alloc, used = cols.scalar("foo.com/new")
    assert alloc.tolist() == [0, 2, 0] and used.tolist() == [0, 1, 0]


def test_only_the_most_recently_read_columns_are_kept():
    cols = columns_of(snapshot_of(MAX_SCALARS + 4))
    first = cols.scalar("foo.com/bar-0")
    for i in range(1, MAX_SCALARS + 4):
        cols.scalar(f"foo.com/bar-{i}")
        cols.scalar("foo.com/bar-0")   # read again: stays
    assert len(cols._scalars) == MAX_SCALARS
    assert cols.scalar("foo.com/bar-0") is first
    rebuilt = cols.scalar("foo.com/bar-1")   # evicted, built again the same
    assert np.array_equal(rebuilt[0], np.eye(MAX_SCALARS + 4, dtype=np.int64)[1])
