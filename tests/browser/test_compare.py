"""The compare view: one cluster, two weight sets, the same seed."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import cluster_id, full_page_screenshot

pytestmark = pytest.mark.browser


def test_compare_spread_and_bin_pack(page):
    cluster = cluster_id(page, "gpu-cluster")
    page.goto(f"/clusters/{cluster}/compare/")
    expect(page.get_by_label("Side A: NodeResourcesFit scoring strategy")).to_have_value(
        "LeastAllocated")
    expect(page.get_by_label("Side B: NodeResourcesFit scoring strategy")).to_have_value(
        "MostAllocated")
    page.get_by_label("Side B: weight of NodeResourcesFit").fill("5")
    page.get_by_role("button", name="Run the comparison").click()
    expect(page.locator("#compare-status")).to_contain_text("Done")
    moved = int(page.locator("#moved-count").inner_text())
    assert moved > 0
    expect(page.locator("table.data tr.moved")).to_have_count(moved)
    expect(page.locator(".util-node")).to_have_count(15)
    expect(page.locator(".util-node.changed").first).to_be_visible()
    page.get_by_label("Show every pod, not only the ones that moved").check()
    placement = page.get_by_role("table", name="Pod placement under A and B")
    expect(placement.locator("tbody tr")).to_have_count(20)
    full_page_screenshot(page, "compare.png")

    # A weight that is not a whole number is refused before anything runs.
    page.get_by_label("Side A: weight of TaintToleration").fill("-2")
    page.get_by_role("button", name="Run the comparison").click()
    expect(page.locator("#compare-status")).to_contain_text("whole numbers")
