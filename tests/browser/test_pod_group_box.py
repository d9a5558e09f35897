"""The run view's pod group box (the cycle's `podGroup`, v1.36+ with GenericWorkload): each
member's Filter shows the group scheduled together, its members, the group's verdict and the
calls that decided it; v1.37's GangScheduling PlacementFeasible calls
(scheduler_core/examples/gang-workload.yaml), v1.36's Permit verdicts in the group's attempt."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import api_post, screenshot
from tests.browser.test_storage_and_gang import show_cycle, step_cycles

pytestmark = pytest.mark.browser

EXAMPLE = Path(__file__).resolve().parents[2] / "scheduler_core" / "examples" / "gang-workload.yaml"

PAIR_V136 = EXAMPLE.with_name("gang-pair-v136.yaml").read_text()


def start_gang_run(page, name: str, text: str, release: str, gates: str) -> int:
    cluster = api_post(page, "/api/clusters/import/", {
        "name": name, "files": [{"name": f"{name}.yaml", "text": text}]})["cluster"]["id"]
    run = api_post(page, "/api/runs/", {"cluster": cluster, "release": release, "seed": 1,
                                        "feature_gates": gates})["id"]
    page.goto(f"/runs/{run}/")
    expect(page.locator("#conn")).to_have_text("live")
    return run


def group_box(page):
    page.click('#timeline button[data-point="filter"]')
    return page.locator("#point-detail .pod-group-box")


def test_v137_member_cycles_show_the_group_its_verdict_and_placement_feasible_calls(page):
    start_gang_run(page, "gang-v137", EXAMPLE.read_text(), "1.37", "GenericWorkload=true")
    # One step is one pod group scheduling cycle: trainers-0..2, then big-0..2.
    step_cycles(page, 1)
    expect(page.locator("#stat-cycles")).to_have_text("3")
    step_cycles(page, 1)
    expect(page.locator("#stat-cycles")).to_have_text("6")

    show_cycle(page, 4, "default/big-1")
    box = group_box(page)
    expect(box.locator(".pod-group-head")).to_have_text(
        "Pod group default/big (scheduled together from cycle #3: default/big-0, "
        "default/big-1, default/big-2): Unschedulable \u2014 minCount (3) cannot be "
        "satisfied: 2 scheduled, 0 remaining")
    calls = box.locator("li")
    expect(calls).to_have_text([
        "PlacementFeasible GangScheduling: Wait (minCount (3) is not yet satisfied: "
        f"{done} scheduled, {3 - done} remaining)" for done in range(3)] + [
        "PlacementFeasible GangScheduling: Unschedulable (minCount (3) cannot be satisfied: "
        "2 scheduled, 0 remaining)"])
    screenshot(page, "run-pod-group-v137.png", full_page=True)

    show_cycle(page, 2, "default/trainers-2")
    box = group_box(page)
    expect(box.locator(".pod-group-head")).to_have_text(
        "Pod group default/trainers (scheduled together from cycle #0: default/trainers-0, "
        "default/trainers-1, default/trainers-2): Success.")
    expect(box.locator("li").last).to_have_text(
        "PlacementFeasible GangScheduling: Success (3 scheduled, 0 remaining)")


def test_v136_member_cycles_show_the_permit_verdicts_of_the_group_attempt(page):
    start_gang_run(page, "gang-v136", PAIR_V136, "1.36", "GenericWorkload=true,GangScheduling=true")
    step_cycles(page, 1)
    expect(page.locator("#stat-cycles")).to_have_text("2")
    # The step ends with pair-0, allowed at Permit by pair-1, bound as well.
    expect(page.locator("#stat-bound")).to_have_text("2")
    expect(page.locator("#stat-pending")).to_have_text("0")
    expect(page.locator('[data-queue="activeQ"] [data-count]')).to_have_text("0")
    show_cycle(page, 1, "default/pair-1")
    box = group_box(page)
    expect(box.locator(".pod-group-head")).to_have_text(
        "Pod group default/pair (scheduled together from cycle #0: default/pair-0, "
        "default/pair-1): Success.")
    expect(box.locator("li")).to_have_text([
        'Permit in the group\'s attempt, default/pair-0 on node-1: Wait (one or more plugins '
        'asked to wait and no plugin rejected pod "pair-0")',
        "Permit in the group's attempt, default/pair-1 on node-1: Success"])
    screenshot(page, "run-pod-group-v136.png", full_page=True)
