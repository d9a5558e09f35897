"""NodeToStatus given as rows (the columns path) reads as the same map listed node by node."""
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from scheduler_core.framework.diagnosis import NodeToStatus
from scheduler_core.framework.status import Code, Status

STATUSES = [Status(Code.UNSCHEDULABLE, "Insufficient cpu", plugin="NodeResourcesFit"),
            Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "untolerated", plugin="TaintToleration")]


@given(size=st.integers(1, 20), data=st.data())
def test_one_node_read_from_the_rows_has_the_status_it_has_once_listed(size, data):
    names = [f"n{i}" for i in range(size)]
    rows = np.array(data.draw(st.lists(st.integers(0, size - 1), unique=True)), np.int64)
    ids = np.array([data.draw(st.integers(0, 1)) for _ in rows], np.int64)
    asked = data.draw(st.sampled_from(names + ["", "elsewhere"]))
    by_rows = NodeToStatus()
    by_rows.set_rows(names, names, rows, ids, STATUSES, {n: i for i, n in enumerate(names)})
    listed = dict(zip((names[r] for r in rows.tolist()), (STATUSES[i] for i in ids.tolist())))
    assert by_rows.get(asked) is listed.get(asked, by_rows.absent)
    assert by_rows._rows is not None   # reading one node listed none of them
