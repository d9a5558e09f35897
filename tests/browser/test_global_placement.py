"""The run view's global placement: the solver's answer beside the scheduler's, on the
locally-optimal lesson (batch left pending behind web-1, bound by the global placement)."""

from __future__ import annotations

import re

import pytest
import yaml
from playwright.sync_api import expect

from tests.browser.helpers import api_post, cluster_id, screenshot
from tests.browser.test_lesson_gpu import run_to_end, start_run

pytestmark = pytest.mark.browser


def test_the_global_placement_shows_the_pod_the_scheduler_left_pending(page):
    run = start_run(page, cluster_id(page, "locally-optimal"))
    run_to_end(page, run)
    panel = page.locator("#global-placement")
    panel.scroll_into_view_if_needed()
    panel.locator("#global-solve").click()
    expect(panel.locator("#global-sched-bound")).to_have_text("2", timeout=30_000)
    expect(panel.locator("#global-opt-bound")).to_have_text("3")
    expect(panel.locator(".verdicts")).to_contain_text("Global placement (OPTIMAL)")
    # web-1 scores alike on either small node: which one is the solver's tie.
    expect(panel.locator("#global-gained li")).to_have_text(re.compile(
        r"default/batch fits large, which cycle 0 gave to default/web-1 \(globally on "
        r"small-[12]\)\."))
    gained = panel.locator("#global-table tr.gained")
    expect(gained).to_have_count(1)
    expect(gained.locator("td")).to_have_text(["default/batch", "pending", "large"])
    expect(panel.locator("#global-unmodelled")).to_contain_text("VolumeBinding")
    screenshot(panel, "run-global-placement.png")


def node(name: str, zone: str) -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {
        "kubernetes.io/hostname": name, "topology.kubernetes.io/zone": zone}},
        "status": {"allocatable": {"cpu": "1", "memory": "8Gi", "pods": "110"}}}


def pod(name: str, **spec) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"app": "a"}},
            "spec": {"containers": [{"name": "c", "image": "pause", "resources": {
                "requests": {"cpu": "1"}}}], **spec}}


AFFINITY = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    {"labelSelector": {"matchLabels": {"app": "a"}}, "topologyKey": "kubernetes.io/hostname"}]}}


def test_a_pod_whose_affinity_a_later_pod_broke_is_named_beside_the_global_placement(page):
    text = yaml.safe_dump_all([node("n0", "z0"), node("n1", "z1"),
                               pod("first", affinity=AFFINITY), pod("later")])
    cluster = api_post(page, "/api/clusters/import/", {
        "name": "broken-affinity", "files": [{"name": "broken.yaml", "text": text}],
    })["cluster"]["id"]
    run = start_run(page, cluster)
    run_to_end(page, run)
    panel = page.locator("#global-placement")
    panel.scroll_into_view_if_needed()
    panel.locator("#global-solve").click()
    expect(panel.locator("#global-sched-bound")).to_have_text("2", timeout=30_000)
    expect(panel.locator("#global-opt-bound")).to_have_text("1")
    # The two nodes score alike: which one first takes is the run's tie-break.
    expect(panel.locator("#global-violations li")).to_have_text([re.compile(
        r"^default/first on n[01]: InterPodAffinity: node\(s\) didn't match pod affinity "
        r"rules$")])
