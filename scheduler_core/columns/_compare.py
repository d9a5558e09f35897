"""Test support: a plugin's vectorized Filter against its per-node Filter.

Shared by the equivalence tests beside it, so that each compares a Verdict with the per-node
statuses the same way (a passing node passes, a rejected one has the same code and reasons).
"""
from __future__ import annotations

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import PreFilterPlugin


def assert_verdict_rows(plugin, verdict, node_infos, wants) -> None:
    """Row `i` of `verdict` is `wants[i]`, the per-node Filter's status on `node_infos[i]`:
    the row passes where that status is a success, else it has its code and reasons."""
    for row, (ni, want) in enumerate(zip(node_infos, wants, strict=True)):
        if want is None or want.is_success():
            assert verdict.kinds[row] == 0, (plugin.name(), ni.name)
        else:
            assert verdict.kinds[row] != 0, (plugin.name(), ni.name, "passes", want.reasons)
            got = verdict.status(row, plugin.name())
            assert (got.code, got.reasons) == (want.code, want.reasons), (plugin.name(), ni.name)


def check_filter_vector(plugin, pod, cols, node_infos, may_decline=False):
    """Runs `plugin`'s PreFilter for `pod` on a fresh CycleState; where the framework then runs
    its Filter (PreFilter neither skipped nor rejected, as RunPreFilterPlugins stops the cycle
    otherwise), asserts that filter_vector gives each node the per-node Filter's code and
    reasons. filter_vector may answer None (the per-node Filter speaks) only with
    `may_decline`. Returns (state, PreFilter's status, verdict or None where none was made)."""
    state, status = CycleState(), None
    if isinstance(plugin, PreFilterPlugin):
        _, status = plugin.pre_filter(state, pod, node_infos)
    if status is not None and not status.is_success():
        return state, status, None
    verdict = plugin.filter_vector(state, pod, cols)
    if verdict is None:
        assert may_decline, (plugin.name(), "filter_vector declined", pod.name)
        return state, status, None
    assert_verdict_rows(plugin, verdict, node_infos,
                        [plugin.filter(state, pod, ni) for ni in node_infos])
    return state, status, verdict
