"""The storage and gang lessons in the run view: VolumeBinding's decisions at Reserve, PreBind
and Unreserve, pods waiting on Permit with their countdown, the timeout that rejects them and
the Unreserve that releases the group, and a group that fits binding whole."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import private_clone, screenshot
from tests.browser.test_lesson_gpu import run_to_end, start_run

pytestmark = pytest.mark.browser

TIMEOUT = "rejected due to timeout after waiting 10s at plugin Coscheduling"


def step_cycles(page, count: int) -> None:
    """Press c `count` times, each time waiting for the new cycle."""
    for _ in range(count):
        before = page.locator("#stat-cycles").inner_text()
        page.keyboard.press("c")
        expect(page.locator("#stat-cycles")).not_to_have_text(before)
        expect(page.locator("#run-msg")).not_to_contain_text("Scheduling one cycle")


def show_cycle(page, index: int, pod: str) -> None:
    page.locator("#history").fill(str(index))
    expect(page.locator("#cycle-title")).to_have_text(f"Cycle #{index}")
    expect(page.locator("#cycle-summary")).to_contain_text(pod)


def click_point(page, point: str):
    page.click(f'#timeline button[data-point="{point}"]')
    expect(page.locator('#timeline button[aria-pressed="true"]')).to_have_attribute(
        "data-point", point)
    return page.locator(f'#point-detail .volume-decisions[data-point="{point}"]')


def waiting_queue(page):
    return page.locator('.queue[data-queue="waitingOnPermit"]')


def test_storage_lesson_volume_decisions_and_the_unreserve_revert(page):
    cluster = private_clone(page, "storage-lesson", "storage-browser")
    run = start_run(page, cluster)
    step_cycles(page, 5)  # db-0, logs-0, cache-big, cache-small, scratch-0
    rows = page.request.get(f"/api/runs/{run}/history/").json()["cycles"]
    assert [r[2] for r in rows] == ["default/db-0", "default/logs-0", "default/cache-big",
                                    "default/cache-small", "default/scratch-0"]

    # cache-big: a WaitForFirstConsumer claim. Reserve assumes local-a2 in memory...
    show_cycle(page, 2, "default/cache-big")
    reserve = click_point(page, "reserve")
    assumed = reserve.locator('li[data-kind="assumed"]')
    expect(assumed).to_have_count(1)
    expect(assumed).to_contain_text("PV local-a2 for claim default/cache-big-data")
    expect(assumed).to_contain_text("memory")
    # ...and PreBind writes it.
    prebind = click_point(page, "preBind")
    bound = prebind.locator('li[data-kind="bound"]')
    expect(bound).to_have_count(1)
    expect(bound).to_contain_text("claim default/cache-big-data bound to PV local-a2")
    expect(prebind.locator('li[data-kind="assumed"]')).to_contain_text("local-a2")
    screenshot(page, "storage-lesson.png", full_page=True)

    # scratch-0: a claim of a provisioned class; PreBind asks for a new volume on node-c1.
    show_cycle(page, 4, "default/scratch-0")
    prebind = click_point(page, "preBind")
    provisioned = prebind.locator('li[data-kind="provisioned"]')
    expect(provisioned).to_contain_text("claim default/scratch → new PV pvc-")
    expect(provisioned).to_contain_text("on node-c1 by csi.example.com")
    # db-0's claim was bound already: nothing to assume.
    show_cycle(page, 0, "default/db-0")
    expect(click_point(page, "reserve")).to_contain_text("Nothing to assume")

    # The revert lesson: member-a's Reserve assumes local-1, Permit waits for member-b...
    cluster = private_clone(page, "storage-revert-lesson", "storage-revert-browser")
    run = start_run(page, cluster)
    step_cycles(page, 1)
    expect(waiting_queue(page).locator('li[data-pod="default/member-a"]')).to_contain_text(
        re.compile(r"Coscheduling 10s"))
    expect(page.locator("#cycle-summary .outcome")).to_have_text("waiting on Permit")
    expect(page.locator('#timeline button[aria-pressed="true"]')).to_have_attribute(
        "data-point", "permit")
    expect(click_point(page, "reserve").locator('li[data-kind="assumed"]')).to_contain_text(
        "PV local-1 for claim default/data-a")
    # ...which cannot come: local-1 is assumed, so member-b sees no volume anywhere.
    step_cycles(page, 1)
    expect(page.locator("#cycle-summary")).to_contain_text("default/member-b")
    expect(page.locator("#cycle-message")).to_contain_text(
        "2 node(s) didn't find available persistent volumes to bind")
    # The next cycle comes after the timeout (t=10s) and the flush (t=330s).
    step_cycles(page, 1)
    expect(page.locator("#stat-time")).to_have_text("330s")
    show_cycle(page, 0, "default/member-a")
    expect(page.locator("#cycle-summary .outcome")).to_have_text("Rejected")
    expect(page.locator("#cycle-message")).to_contain_text(TIMEOUT)
    unreserve = click_point(page, "unreserve")
    reverted = unreserve.locator('li[data-kind="reverted"]')
    expect(reverted).to_have_count(1)
    expect(reverted).to_contain_text("PV local-1 released by claim default/data-a: "
                                     "Available again")
    # Coscheduling and DynamicResources (in v1.34's default profile) unreserve too.
    expect(page.locator("#point-detail ul.statuses > li")).to_have_count(3)
    trace = page.request.get(f"/api/runs/{run}/cycles/0/").json()
    assert trace["unreserve"][-1]["detail"]["reverted"] == [
        {"kind": "PersistentVolume", "name": "local-1", "claim": "default/data-a"}]
    # And cycle 2 assumes it again: it was free.
    show_cycle(page, 2, "default/member-a")
    expect(click_point(page, "reserve").locator('li[data-kind="assumed"]')).to_contain_text(
        "local-1")


def test_gang_lesson_waits_times_out_and_releases_then_the_fitting_group_binds(page):
    cluster = private_clone(page, "gang-lesson", "gang-browser")
    run = start_run(page, cluster)

    # Three workers reach Permit and wait there, each with a 10s countdown.
    step_cycles(page, 3)
    waiting = waiting_queue(page)
    expect(waiting.locator("[data-count]")).to_have_text("3")
    for worker in ("worker-0", "worker-1", "worker-2"):
        expect(waiting.locator(f'li[data-pod="default/{worker}"]')).to_contain_text(
            "waiting: Coscheduling 10s")
    expect(page.locator('#timeline button[data-point="permit"]')).to_have_class(
        re.compile(r"\bwaited\b"))
    expect(page.locator("#point-detail")).to_contain_text("timeout 10s")

    # worker-3 fits nowhere; the next cycle comes at t=10s, after the timeouts.
    step_cycles(page, 1)
    expect(page.locator("#cycle-summary .outcome")).to_have_text("Unschedulable")
    step_cycles(page, 1)
    expect(page.locator("#stat-time")).to_have_text("10s")
    rows = page.request.get(f"/api/runs/{run}/history/").json()["cycles"]
    assert [r[3] for r in rows[:4]] == ["Rejected", "Rejected", "Rejected", "Unschedulable"]
    # The group was released: none of the first three waits any more (worker-3 does now).
    for worker in ("worker-0", "worker-1", "worker-2"):
        expect(waiting.locator(f'li[data-pod="default/{worker}"]')).to_have_count(0)
    expect(waiting.locator('li[data-pod="default/worker-3"]')).to_have_count(1)

    # Cycle 0 now ends Rejected by the timeout, and Unreserve ran for it.
    show_cycle(page, 0, "default/worker-0")
    expect(page.locator("#cycle-summary .outcome")).to_have_text("Rejected")
    expect(page.locator("#cycle-message")).to_contain_text(TIMEOUT)
    expect(page.locator('#timeline button[aria-pressed="true"]')).to_have_attribute(
        "data-point", "permit")
    expect(page.locator("#point-detail .permit-end")).to_contain_text(
        f"Rejected when the wait ended: 0/1 nodes are available: 1 {TIMEOUT}.")
    unreserve = page.locator('#timeline button[data-point="unreserve"]')
    expect(unreserve).to_be_visible()
    unreserve.click()
    statuses = page.locator("#point-detail ul.statuses > li")
    # Unreserve runs in reverse Reserve order; DynamicResources is in v1.34's default profile.
    expect(statuses).to_have_count(3)
    expect(statuses.nth(0)).to_contain_text("Coscheduling")
    expect(statuses.nth(1)).to_contain_text("DynamicResources")
    expect(statuses.nth(2)).to_contain_text("VolumeBinding")
    expect(page.locator("#point-detail .volume-decisions")).to_contain_text(
        "Nothing to revert")
    screenshot(page, "gang-lesson.png", full_page=True)

    # With a fourth node the group fits: all four bind, at t=0s.
    cluster = private_clone(page, "gang-lesson-fits", "gang-fits-browser")
    run = start_run(page, cluster)
    bindings = run_to_end(page, run)
    assert sorted(bindings) == [f"default/worker-{i}" for i in range(4)]
    assert all(bindings.values()) and len(set(bindings.values())) == 4
    expect(page.locator("#stat-bound")).to_have_text("4")
    expect(page.locator("#stat-pending")).to_have_text("0")
    for pod, node in bindings.items():
        expect(page.locator(f'.node[data-name="{node}"] .chip[title^="{pod}"]')).to_have_count(1)
    rows = page.request.get(f"/api/runs/{run}/history/").json()["cycles"]
    assert [(r[3], r[1]) for r in rows] == [("Bound", 0.0)] * 4
    expect(waiting.locator("[data-count]")).to_have_text("0")
