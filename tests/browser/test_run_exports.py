"""The run page's export links: the trace JSON and kube-scheduler-simulator's export of the
cluster where the run stands (issue 27)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import cluster_id

pytestmark = pytest.mark.browser


def test_the_run_page_offers_the_simulators_export_of_the_finished_run(page):
    cluster = cluster_id(page, "taints-affinity")
    page.goto(f"/clusters/{cluster}/")
    page.get_by_role("button", name="Start a run").click()
    page.wait_for_url(re.compile(r"/runs/\d+/"))
    run = int(re.search(r"/runs/(\d+)/", page.url).group(1))
    page.get_by_role("button", name="Run", exact=True).click()
    expect(page.locator("#run-status")).to_have_text("finished", timeout=30_000)
    exports = page.get_by_role("navigation", name="Export the run")
    link = exports.get_by_role("link", name="kube-scheduler-simulator export")
    expect(link).to_have_attribute("href", f"/api/runs/{run}/export/?format=simulator")
    expect(exports.get_by_role("link", name="Trace JSON")).to_have_attribute(
        "download", f"run-{run}.json")
    body = page.request.get(link.get_attribute("href")).json()
    pods = {p["metadata"]["name"]: p for p in body["pods"]}
    assert pods["likes-b"]["spec"]["nodeName"] == "node-b"
    assert "kube-scheduler-simulator.sigs.k8s.io/result-history" in \
        pods["likes-b"]["metadata"]["annotations"]
