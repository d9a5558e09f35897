"""The lesson beside an ordinary run: the notes of docs/LESSONS.md, node cards with the labels
that matter, taints and local volumes, and pods that expand to their constraints."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import cluster_id, screenshot
from tests.browser.test_lesson_gpu import start_run

pytestmark = pytest.mark.browser


def test_the_run_view_shows_the_lesson_beside_the_run(page):
    start_run(page, cluster_id(page, "taints-affinity"))

    notes = page.locator("#lesson-notes")
    expect(notes.locator("h3").first).to_contain_text("taints-affinity")
    expect(notes).to_contain_text("What it teaches")

    # Node cards: the zone and the taints; not the hostname every node has.
    card = page.locator('#nodes-grid .node[data-name="node-c"]')
    expect(card.locator(".tags .tag.zone")).to_have_text("zone zone-b")
    expect(card.locator(".tags .tag.taint")).to_have_text("maintenance=soon:PreferNoSchedule")
    expect(card.locator(".tags")).not_to_contain_text("kubernetes.io/hostname")
    expect(page.locator('#nodes-grid .node[data-name="gpu-1"] .tags .tag.taint')).to_have_text(
        "dedicated=gpu:NoSchedule")

    # A pod expands to its requests and constraints.
    trainer = page.locator('#lesson-pods details[data-pod="default/trainer"]')
    expect(trainer.locator("pre")).to_be_hidden()
    trainer.locator("summary").click()
    expect(trainer.locator("pre")).to_contain_text("tolerations:")
    expect(trainer.locator("pre")).to_contain_text("value: gpu")
    page.locator("#lesson-panel").evaluate("(panel) => { panel.scrollTop = 0; }")
    page.locator("#run-view").scroll_into_view_if_needed()
    screenshot(page, "run-lesson.png")
    nowhere = page.locator('#lesson-pods details[data-pod="default/nowhere"]')
    nowhere.locator("summary").click()
    expect(nowhere.locator("pre")).to_contain_text("requiredDuringSchedulingIgnoredDuringExecution")
    expect(nowhere.locator("pre")).to_contain_text("zone-c")

    # A pod picked in the queues opens its entry.
    queued = page.locator('#queues li[data-pod="default/likes-b"]')
    queued.click()
    expect(page.locator('#lesson-pods details[data-pod="default/likes-b"]')).to_have_attribute(
        "open", "")
