"""PrioritySort, ported from priority_sort_test.go."""
from types import SimpleNamespace

import pytest

from scheduler_core.plugins.queuesort import new
from scheduler_core.testing import make_pod, pod_info

LOW, HIGH = 10, 100
T1, T2 = 1000.0, 1001.0


def queued(priority, timestamp=0.0, seq=0):
    return SimpleNamespace(pod=pod_info(make_pod("p", priority=priority)), timestamp=timestamp,
                           seq=seq)


@pytest.mark.parametrize("p1,p2,want", [
    pytest.param(queued(LOW), queued(HIGH), False, id="p1.priority less than p2.priority"),
    pytest.param(queued(HIGH), queued(LOW), True, id="p1.priority greater than p2.priority"),
    pytest.param(queued(HIGH, T1), queued(HIGH, T2), True,
                 id="equal priority. p1 is added to schedulingQ earlier than p2"),
    pytest.param(queued(HIGH, T2), queued(HIGH, T1), False,
                 id="equal priority. p2 is added to schedulingQ earlier than p1"),
    pytest.param(queued(LOW, T1), queued(HIGH, T2), False,
                 id="priority wins over an earlier timestamp"),
    pytest.param(queued(HIGH, T1, seq=1), queued(HIGH, T1, seq=2), True,
                 id="equal priority and timestamp. p1 arrived first"),
    pytest.param(queued(HIGH, T1, seq=2), queued(HIGH, T1, seq=1), False,
                 id="equal priority and timestamp. p2 arrived first"),
    pytest.param(queued(-5), queued(0), False, id="negative priorities sort below zero"),
])
def test_less(p1, p2, want):
    assert new({}, None).less(p1, p2) is want
