"""A cluster that lives, in the browser: a node added to a paused run lets a pending pod in,
the charts over virtual time, the history marks, and the cluster page's timeline editor."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import api_post, cluster_id, screenshot
from tests.browser.test_lesson_gpu import run_to_end, start_run
from tests.browser.test_storage_and_gang import step_cycles

pytestmark = pytest.mark.browser

SMALL = """apiVersion: v1
kind: Node
metadata: {name: small, labels: {kubernetes.io/hostname: small}}
status: {allocatable: {cpu: "1", memory: 2Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: first}
spec: {containers: [{name: c, image: nginx, resources: {requests: {cpu: "1"}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: second}
spec: {containers: [{name: c, image: nginx, resources: {requests: {cpu: "1"}}}]}
"""


def unstick_run_bar(page) -> None:
    """For panel screenshots: the sticky run bar would cover the top of the panel."""
    page.add_style_tag(content=".run-bar { position: static !important; }")


def test_a_node_added_to_a_paused_run_schedules_the_pending_pod(page):
    cluster = api_post(page, "/api/clusters/import/", {
        "name": "grow-browser", "files": [{"name": "small.yaml", "text": SMALL}]})["cluster"]["id"]
    run = start_run(page, cluster)
    step_cycles(page, 2)   # first binds; second fits nowhere
    state = page.request.get(f"/api/runs/{run}/state/").json()
    assert state["bindings"] == {"default/first": "small", "default/second": None}
    expect(page.locator("#run-status")).to_have_text("paused")

    form = page.locator('form[data-action="add-node"]')
    form.locator("input[name=name]").fill("extra")
    form.locator("input[name=cpu]").fill("2")
    form.locator("button[type=submit]").click()
    expect(page.locator("#life-status")).to_contain_text("Recorded as a timeline step: Create")
    actions = page.request.get(f"/api/runs/{run}/").json()
    assert actions["status"] == "paused"

    # The engine has the node at once: the grid shows it, and shows it after a reload.
    expect(page.locator("#node-count")).to_have_text("2")
    expect(page.locator("#nodes-grid [data-name=extra]")).to_be_visible()
    page.reload()
    expect(page.locator("#node-count")).to_have_text("2")
    expect(page.locator("#nodes-grid [data-name=extra]")).to_be_visible()

    page.locator("#run-life").scroll_into_view_if_needed()
    expect(page.locator("#charts figure")).to_have_count(5)
    # The charts follow the step by themselves (the run stopped, the panel is in view).
    with page.expect_request(lambda r: f"/api/runs/{run}/timeline/" in r.url, timeout=10_000):
        step_cycles(page, 1)
    state = page.request.get(f"/api/runs/{run}/state/").json()
    assert state["bindings"]["default/second"] == "extra"
    expect(page.locator("#stat-bound")).to_have_text("2")
    expect(page.locator("#charts-stale")).to_be_hidden()
    expect(page.locator("#history-marks .history-mark.step")).to_have_count(1)
    moves = page.locator("table.moves tbody tr")
    expect(moves.first).to_contain_text("default/second")
    expect(moves.first).to_contain_text("NodeAdd")
    unstick_run_bar(page)
    screenshot(page.locator("#run-life"), "run-add-node.png")


def test_the_node_failure_lesson_timeline_and_charts(page):
    cluster = cluster_id(page, "node-failure-lesson")
    page.goto(f"/clusters/{cluster}/")
    card = page.locator('#timeline-list [data-timeline="node-b-fails"]')
    expect(card).to_be_visible()
    expect(card.locator("li")).to_have_count(3)
    expect(card.locator("li").first).to_have_text("60s NodeNotReady node-b")
    page.click("#timeline-new")
    page.fill("#timeline-form input[name=name]", "bad")
    page.fill("#timeline-form textarea[name=text]", "- at: -5\n  action: Cordon\n  node: node-a\n")
    page.console_errors.allow("400")
    page.click("#timeline-form button[type=submit]")
    expect(page.locator("#timeline-status")).to_contain_text(
        "field spec.steps[0].at: Invalid value: -5")
    screenshot(page.locator("#timelines"), "cluster-timelines.png")

    run = start_run(page, cluster)
    bindings = run_to_end(page, run)
    web = [node for pod, node in bindings.items() if "/web-" in pod]
    assert sorted(web) == ["node-a"] * 3 + ["node-c"] * 3
    page.click("#charts-refresh")
    expect(page.locator("#charts figure")).to_have_count(5)
    expect(page.locator("#history-marks .history-mark.step")).to_have_count(3)
    expect(page.locator("#history-marks .history-mark.pod")).to_have_count(5)
    unstick_run_bar(page)
    screenshot(page.locator("#run-life"), "run-charts.png")
    screenshot(page.locator("#history-box"), "run-history-marks.png")
