"""The run view's OpportunisticBatching note (the cycle's `batch`, v1.35+): TestBatchScenarios'
"three pod batch" (scheduler_core/tests/test_opportunistic_batching.py, from kube-scheduler's
test/integration/scheduler/batch/batch_test.go) run under v1.35 with the spread defaults
cleared, so that its pods are signed; the second pod goes to the previous ranking's next node,
filtered alone and not scored, and Filter says so."""

from __future__ import annotations

import pytest
import yaml
from playwright.sync_api import expect

from scheduler_core.tests.test_opportunistic_batching import (
    NO_SPREAD_DEFAULTS,
    SCENARIOS,
    scenario_node,
    scenario_pod,
)
from tests.browser.helpers import api_post, screenshot
from tests.browser.test_lesson_gpu import run_to_end
from tests.browser.test_storage_and_gang import show_cycle

pytestmark = pytest.mark.browser


def three_pod_batch() -> str:
    name, pods, nodes = SCENARIOS[2]
    assert name == "three pod batch"
    config = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
              "profiles": [{"schedulerName": "default-scheduler",
                            "pluginConfig": NO_SPREAD_DEFAULTS}]}
    docs = [scenario_node(n, max_pods, labels) for n, max_pods, labels in nodes]
    docs += [scenario_pod(p, affinity) for p, _, affinity, _, _, _ in pods]
    return yaml.safe_dump_all([*docs, config])


def test_a_batched_cycle_says_its_pod_took_the_previous_ranking_next_node(page):
    cluster = api_post(page, "/api/clusters/import/", {
        "name": "batch-browser", "files": [{"name": "batch.yaml", "text": three_pod_batch()}],
    })["cluster"]["id"]
    run = api_post(page, "/api/runs/", {"cluster": cluster, "release": "1.35", "seed": 1})
    page.goto(f"/runs/{run['id']}/")
    expect(page.locator("#conn")).to_have_text("live")
    bindings = run_to_end(page, run["id"])
    assert bindings == {f"default/tpb-batchp{i}": f"tpb-batchn{i}" for i in (1, 2, 3)}

    show_cycle(page, 1, "default/tpb-batchp2")
    page.click('#timeline button[data-point="filter"]')
    note = page.locator("#point-detail .batch-box")
    expect(note).to_have_text(
        "OpportunisticBatching: same signature as the previous pod, whose node tpb-batchn1 now "
        "rejects it (NodeResourcesFit: Too many pods); the previous ranking's next node "
        "tpb-batchn2 is tried alone: it passed, so the pod goes there without scoring.")
    screenshot(page, "run-batch-note.png", full_page=True)
    # The first pod was signed but had no ranking to take a hint from.
    show_cycle(page, 0, "default/tpb-batchp1")
    page.click('#timeline button[data-point="filter"]')
    expect(page.locator("#point-detail .batch-box")).to_have_text(
        "OpportunisticBatching: signed, no hint (no_state).")
