"""Prediction mode for a learner alone, in the run view: the Predict toggle, a prediction at
Score, then at Filter, each stepped and answered right or wrong with the plugin that decided,
the score for the lesson kept across a reload. Screenshot: the learner's prediction mode."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import cluster_id, screenshot
from tests.browser.test_lesson_gpu import start_run
from tests.browser.test_storage_and_gang import step_cycles

pytestmark = pytest.mark.browser


def predict(page, *names: str) -> None:
    form = page.locator("#predict-form")
    for name in names:
        form.locator("label", has_text=name).locator("input[name=predict-answer]").check()
    form.locator("button[type=submit]").click()


def test_a_learner_predicts_each_cycle_and_keeps_a_score(page):
    start_run(page, cluster_id(page, "taints-affinity"))
    step_cycles(page, 3)
    expect(page.locator("#predict-box")).to_be_hidden()
    page.click("#btn-predict")
    expect(page.locator("#predict-box h3")).to_have_text("Predict cycle #3")
    expect(page.locator("#predict-score")).to_contain_text("0 of 0 right")

    # Cycle #3 is likes-b: node-b wins by NodeAffinity's preference (692 against 480).
    predict(page, "node-a")
    verdict = page.locator("#predict-verdict")
    expect(verdict).to_contain_text("Wrong")
    expect(verdict).to_contain_text("Answer: node-b (you said node-a)")
    expect(verdict).to_contain_text("Decided by NodeAffinity: node-b 692 against node-a 480")
    expect(page.locator("#stat-cycles")).to_have_text("4")
    expect(page.locator("#predict-box h3")).to_have_text("Predict cycle #4")

    # Cycle #4 at Filter: the nodes that survive (checked against the run's own trace).
    page.locator("#predict-form input[name=predict-point][value=Filter]").check()
    expect(page.locator("#predict-form")).to_contain_text("Which nodes survive Filter?")
    predict(page, "node-a", "node-b", "node-c")
    expect(verdict).to_contain_text("cycle #4, Filter")
    expect(page.locator("#predict-score")).to_contain_text("of 2 right")
    expect(page.locator("#stat-pending")).not_to_have_text("–")
    page.wait_for_timeout(600)  # the run view's state follows the step a moment later
    screenshot(page, "run-predict-mode.png")

    # The score is the account's: a reload keeps the mode on and the score.
    score = page.locator("#predict-score").inner_text()
    page.reload()
    expect(page.locator("#predict-score")).to_have_text(score)
