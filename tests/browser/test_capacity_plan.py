"""The capacity-planning page: a template node planned on the locally-optimal lesson's cluster,
the search's trials listed as they end, then the answer and the count of more copies."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import cluster_id, screenshot

pytestmark = pytest.mark.browser


def test_a_plan_lists_its_trials_then_the_nodes_to_add(page):
    cluster = cluster_id(page, "locally-optimal")
    page.goto(f"/clusters/{cluster}/")
    page.get_by_role("link", name="Plan the capacity").click()
    expect(page.locator("#plan-template")).to_contain_text("name: extra")
    page.get_by_role("button", name="Plan the capacity").click()
    expect(page.locator("#plan-answer")).to_have_text("1", timeout=60_000)
    # The nodes have room for the pending pods' requests (the first guess is 0), but not in
    # one piece: the run with no copy comes first.
    expect(page.locator("#plan-progress li").first).to_have_text(
        "start: 0 node(s) added → 2 bound, 1 pending")
    expect(page.locator("#plan-progress li").nth(1)).to_have_text(
        "grow: 1 node(s) added → 3 bound, 0 pending")
    expect(page.locator("#plan-warnings")).to_have_count(0)
    expect(page.locator("#plan-result")).to_contain_text("(extra-1 … extra-1)")
    rows = page.locator("#plan-capacity tbody tr")
    expect(rows).to_have_count(2)     # web-1 and web-2 are one shape, batch another
    expect(rows.first.locator("td").nth(0)).to_have_text("default/web-1")
    expect(rows.first.locator("td").nth(1)).to_have_text("2")
    expect(page.locator("#plan-status")).to_have_text("done")
    screenshot(page, "whatif-capacity-plan.png", full_page=True)


def test_a_template_that_is_not_a_node_is_refused_naming_the_field(page):
    page.console_errors.allow("status of 400")   # the refusal the page shows
    page.goto(f"/clusters/{cluster_id(page, 'locally-optimal')}/plan/")
    page.fill("#plan-template", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n")
    page.get_by_role("button", name="Plan the capacity").click()
    expect(page.locator("#plan-status")).to_contain_text(
        "template: field kind: a node template is exactly one Node document, found 1 Pod")


def test_what_the_release_does_not_honour_in_the_template_is_listed_with_the_answer(page):
    page.goto(f"/clusters/{cluster_id(page, 'locally-optimal')}/plan/")
    template = page.locator("#plan-template").input_value()
    page.fill("#plan-template", template + "spec:\n  unschedulabel: true\n")
    page.get_by_role("button", name="Plan the capacity").click()
    expect(page.locator("#plan-answer")).to_have_text("1", timeout=60_000)
    expect(page.locator("#plan-warnings li")).to_have_text(
        ['template: document 1: Node extra: unknown field "spec.unschedulabel"'])
