"""The run view at 1440 px: the Filter matrix's verdict and the Score table's total stay in view
whatever the number of plugins (the rest of a wide table scrolls under them), and plugin
names in the Score head wrap between their words, never inside one."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import cluster_id
from tests.browser.test_lesson_gpu import start_run
from tests.browser.test_storage_and_gang import step_cycles

pytestmark = pytest.mark.browser


def inside(page, cell: str, wrap: str) -> bool:
    """Whether the element `cell` lies within the visible box of `wrap`."""
    return page.evaluate("""([cell, wrap]) => {
        const c = document.querySelector(cell).getBoundingClientRect();
        const w = document.querySelector(wrap).getBoundingClientRect();
        return c.width > 0 && c.left >= w.left - 1 && c.right <= w.right + 1;
    }""", [cell, wrap])


def test_the_total_and_the_verdict_stay_in_view_at_1440(page):
    assert page.viewport_size["width"] == 1440
    start_run(page, cluster_id(page, "gpu-cluster"))
    step_cycles(page, 2)
    page.locator("#timeline li", has_text=re.compile(r"^\s*Filter\s*$")).click()
    expect(page.locator("table.matrix")).to_be_visible()
    assert inside(page, "table.matrix thead tr > :last-child", ".matrix-wrap")
    page.locator("#timeline li", has_text=re.compile(r"^\s*Score\s*$")).click()
    for mode in ("raw", "weighted", "all"):
        page.check(f"input[name=score-mode][value={mode}]")
        expect(page.locator("table.scores thead")).to_contain_text("total")
        assert inside(page, "table.scores thead tr:last-child > :last-child", ".score-wrap"), mode
        assert inside(page, "table.scores tbody tr:first-child > :last-child", ".score-wrap"), mode
    # NodeResourcesBalancedAllocation wraps at its words: <wbr> between them, none inside.
    page.check("input[name=score-mode][value=raw]")
    head = page.locator("table.scores thead th", has_text="Allocation").first
    assert head.evaluate("th => th.querySelector('.sort').innerHTML").startswith(
        "Node<wbr>Resources<wbr>Balanced<wbr>Allocation")


def test_the_sticky_run_bar_leaves_the_page_room(page):
    """Scrolled, what stays over the page is the title (with the run's export links) and one
    row of controls and history (the keys' help scrolls away): under 140 px at 1440 px, where
    the whole bar was about 210."""
    start_run(page, cluster_id(page, "taints-affinity"))
    step_cycles(page, 1)
    page.mouse.wheel(0, 1500)
    page.wait_for_function("window.scrollY > 500")
    bottom = page.evaluate("document.querySelector('.run-bar').getBoundingClientRect().bottom")
    assert bottom <= 140, bottom
    expect(page.locator("#btn-cycle")).to_be_in_viewport()
    expect(page.locator("#history")).to_be_in_viewport()
