"""NodePool, table-driven: one case a line, ids that read as sentences."""
import pytest

from scheduler_core.errors import ConfigError
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.handle import FakeHandle
from scheduler_core.framework.interfaces import NodeScore
from scheduler_core.framework.snapshot import Snapshot
from scheduler_core.framework.status import Code
from scheduler_core.testing import make_node, make_pod, pod_info

from .plugin_template import (
    REASON_NOT_IN_POOL,
    default_args,
    new,
    validate_args,
)

POOL = "example.com/pool"


def node(name, pool=None, pods=0):
    labels = {POOL: pool} if pool else {}
    manifest = make_node(name, labels=labels)
    placed = [pod_info(make_pod(f"{name}-p{i}", node_name=name)) for i in range(pods)]
    return manifest, placed


def plugin(**args):
    return new(args, FakeHandle())


@pytest.mark.parametrize("pod_pool,node_pool,want_code,want_reasons", [
    pytest.param(None, None, Code.SUCCESS, [], id="pod without a pool fits a node without one"),
    pytest.param(None, "gpu", Code.SUCCESS, [], id="pod without a pool fits any pool"),
    pytest.param("gpu", "gpu", Code.SUCCESS, [], id="pod fits a node of its own pool"),
    pytest.param("gpu", "cpu", Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [REASON_NOT_IN_POOL],
                 id="pod is rejected by a node of another pool"),
    pytest.param("gpu", None, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [REASON_NOT_IN_POOL],
                 id="pod is rejected by a node in no pool"),
])
def test_filter(pod_pool, node_pool, want_code, want_reasons):
    pod = pod_info(make_pod("p", labels={POOL: pod_pool} if pod_pool else {}))
    manifest, _ = node("n", node_pool)
    ni = Snapshot.from_objects([manifest]).get("n")
    status = plugin().filter(CycleState(), pod, ni)
    code = Code.SUCCESS if status is None else status.code
    assert (code, [] if status is None else status.reasons) == (want_code, want_reasons)


def test_filter_reads_the_configured_label():
    pod = pod_info(make_pod("p", labels={"team": "ml"}))
    ni = Snapshot.from_objects([make_node("n", labels={"team": "web"})]).get("n")
    assert plugin(labelKey="team").filter(CycleState(), pod, ni).reasons == [REASON_NOT_IN_POOL]


@pytest.mark.parametrize("pods_per_node,want", [
    pytest.param([0, 0], [100, 100], id="empty nodes score the same"),
    pytest.param([0, 2, 4], [100, 50, 0], id="fewer pods score higher"),
    pytest.param([3, 1], [0, 67], id="scores scale against the busiest node"),
])
def test_score(pods_per_node, want):
    objects = [node(f"n{i}", pods=n) for i, n in enumerate(pods_per_node)]
    snapshot = Snapshot.from_objects([m for m, _ in objects], [p for _, ps in objects for p in ps])
    pl, pod, state = plugin(), pod_info(make_pod("p")), CycleState()
    scores = [NodeScore(ni.name, pl.score(state, pod, ni)[0]) for ni in snapshot.list()]
    assert pl.score_extensions().normalize_score(state, pod, scores) is None
    assert [s.score for s in scores] == want


@pytest.mark.parametrize("args,want", [
    pytest.param({}, [], id="the default label key is valid"),
    pytest.param({"labelKey": "team"}, [], id="a custom label key is valid"),
    pytest.param({"labelKey": ""}, ["args.labelKey: Required value"],
                 id="an empty label key is required"),
    pytest.param({"labelKey": "my pool"},
                 ['args.labelKey: Invalid value: "my pool": must be a label key (no whitespace)'],
                 id="a label key with a space is invalid"),
])
def test_validate_args(args, want):
    assert validate_args(default_args(args), "args") == want


def test_new_rejects_invalid_args():
    with pytest.raises(ConfigError, match="labelKey: Required value"):
        plugin(labelKey="")
