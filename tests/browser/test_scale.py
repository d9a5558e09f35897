"""The run view with the 500-node fixture: it opens on the map, every card is drawn when the
cards are asked for, a cycle is stepped promptly, and cards that did not change are left
alone."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import api_post, cluster_id

pytestmark = pytest.mark.browser


def test_500_nodes_stay_responsive(page):
    run = api_post(page, "/api/runs/", {"cluster": cluster_id(page, "scale-500"), "seed": 3})
    page.goto(f"/runs/{run['id']}/")
    expect(page.locator("#conn")).to_have_text("live")
    expect(page.locator("canvas.node-map")).to_have_attribute("data-drawn", "500", timeout=30_000)
    expect(page.locator("#nodes-grid")).to_be_hidden()
    page.get_by_role("button", name="Show nodes as cards").click()
    expect(page.locator("#nodes-grid .node")).to_have_count(500, timeout=30_000)
    expect(page.locator("#node-count")).to_have_text("500")

    started = time.monotonic()
    page.keyboard.press("c")
    expect(page.locator("#cycle-title")).to_have_text("Cycle #0", timeout=30_000)
    expect(page.locator("table.matrix, table.scores").first).to_be_visible(timeout=30_000)
    assert time.monotonic() - started < 15
    expect(page.locator("#nodes-grid .node.feasible, #nodes-grid .node.selected").first
           ).to_be_visible()

    # Nothing changed: no card is touched by later renders (state refreshes, re-renders).
    page.wait_for_timeout(1500)
    page.evaluate("""() => {
        window.__mutations = 0;
        new MutationObserver((records) => { window.__mutations += records.length; })
            .observe(document.getElementById('nodes-grid'),
                     {subtree: true, childList: true, attributes: true, characterData: true});
    }""")
    page.locator("#node-filter").fill("")  # a render with nothing new
    page.evaluate("window.dispatchEvent(new Event('resize'))")
    page.wait_for_timeout(1200)
    assert page.evaluate("window.__mutations") == 0

    # Filtering by name or label hides the other cards without redrawing them.
    page.locator("#node-filter").fill("node-0001")
    expect(page.locator("#nodes-grid .node:visible")).not_to_have_count(500)
    page.locator("#node-filter").fill("")
    expect(page.locator("#nodes-grid .node:visible")).to_have_count(500)
