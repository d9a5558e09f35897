"""The preemption lesson in the run view: the nominated node and the victims while they
terminate, "why is this pod pending?", and the link to the preemptor's next cycle."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import private_clone, screenshot
from tests.browser.test_lesson_gpu import start_run

pytestmark = pytest.mark.browser


def test_preemption_shows_nomination_victims_and_next_cycle(page):
    cluster = private_clone(page, "preemption-lesson", "preemption-browser")
    run = start_run(page, cluster)

    page.keyboard.press("c")
    expect(page.locator("#cycle-title")).to_have_text("Cycle #0")
    trace = page.request.get(f"/api/runs/{run}/cycles/0/").json()
    nominated = trace["preemption"]["nominatedNode"]
    victims = trace["preemption"]["victims"]
    assert trace["outcome"] == "Unschedulable" and victims

    # The nominated node is marked; its victims are struck through with a countdown.
    card = page.locator(f'.node[data-name="{nominated}"]')
    expect(card).to_have_class(re.compile(r"\bnominated\b"))
    expect(card).to_contain_text("nominated")
    chips = card.locator(".chip.victim")
    expect(chips).to_have_count(len(victims))
    expect(chips.first).to_contain_text(re.compile(r"\d+(\.\d+)?s"))
    # The cycle panel opens on PostFilter: DefaultPreemption's verdict and the victims.
    expect(page.locator('#timeline button[aria-pressed="true"]')).to_have_attribute(
        "data-point", "postFilter")
    box = page.locator(".preempt-box")
    for victim in victims:
        expect(box).to_contain_text(victim)
    # The candidates DefaultPreemption found, their victims and PDB violations, and why the
    # nominated node won over the runner-up.
    candidates = trace["preemption"]["candidates"]
    decision = trace["preemption"]["decision"]
    rows = box.locator("table.candidates tbody tr")
    expect(rows).to_have_count(len(candidates))
    for c in candidates:
        row = box.locator(f'table.candidates tbody tr[data-node="{c["node"]}"]')
        for victim in c["victims"]:
            expect(row).to_contain_text(victim)
        expect(row.locator("td.num").first).to_have_text(str(c["pdbViolations"]))
    expect(box.locator("tr.winner")).to_have_attribute("data-node", nominated)
    expect(box.locator(".decision")).to_have_text(
        f"Why {nominated} won over {decision['runnerUp']}: {decision['criterion']} "
        f"({decision['values'][nominated]} vs {decision['values'][decision['runnerUp']]}).")
    expect(page.locator('.queue[data-queue="unschedulablePods"]')).to_contain_text(trace["pod"])

    # Why is it pending? The FitError and, per node, the first plugin that rejected it.
    page.locator(f'.queue li[data-pod="{trace["pod"]}"]').click()
    why = page.locator("#why-result")
    expect(why.locator(".fit")).to_contain_text("nodes are available")
    for node, trail in trace["filter"].items():
        expect(why.locator(f'tr[data-node="{node}"]')).to_contain_text(trail[-1]["plugin"])
    screenshot(page, "preemption.png", full_page=True)

    # Once the victims are gone the preemptor is retried and bound to its nominated node.
    for _ in range(5):
        page.keyboard.press("c")
        page.wait_for_timeout(300)
        rows = page.request.get(f"/api/runs/{run}/history/").json()["cycles"]
        retry = [r for r in rows if r[2] == trace["pod"] and r[0] > 0]
        if retry:
            break
    assert retry and retry[0][3] == "Bound" and retry[0][4] == nominated
    expect(card.locator(".chip.victim")).to_have_count(0)

    # Back in history, cycle 0 links to the preemptor's next cycle.
    page.locator("#history").fill("0")
    expect(page.locator("#cycle-title")).to_have_text("Cycle #0")
    page.get_by_role("button", name=f"Preemptor's next cycle {retry[0][0]}").click()
    expect(page.locator("#cycle-title")).to_have_text(f"Cycle #{retry[0][0]}")
    expect(page.locator("#cycle-summary .outcome")).to_have_text("Bound")
