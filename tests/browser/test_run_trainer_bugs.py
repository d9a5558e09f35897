"""What a trainer tripped over in the run view, one test each: stray "null"s, a
squeezed queue item, a long extender verdict, weight 0, keys lost to focused controls, pods
waiting on Permit, the time of a Permit timeout, the cycle counters, ImageLocality's ×1, the
favicon, and ReDoc's logo."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import cluster_id, private_clone
from tests.browser.test_lesson_gpu import start_run

pytestmark = pytest.mark.browser


def step(page, index: int) -> None:
    page.keyboard.press("c")
    expect(page.locator("#cycle-title")).to_have_text(f"Cycle #{index}", timeout=30_000)
    expect(page.locator("#run-msg")).not_to_contain_text("Scheduling one cycle")


def point(page, name: str) -> None:
    page.click(f'#timeline button[data-point="{name}"]')
    expect(page.locator('#timeline button[aria-pressed="true"]')).to_have_attribute(
        "data-point", name)


def test_no_null_under_the_tables_and_image_locality_shows_its_weight(page):
    start_run(page, cluster_id(page, "gpu-cluster"))
    step(page, 0)
    for name, table in (("filter", "table.matrix"), ("normalizeScore", "table.scores")):
        point(page, name)
        expect(page.locator(f"#point-detail {table}")).to_be_visible()
        expect(page.locator("#point-detail")).not_to_contain_text("null")
    # ImageLocality scored 0 everywhere (no images on the nodes): its weight still shows.
    header = page.locator("#point-detail table.scores th.group", has_text="ImageLocality")
    expect(header).to_contain_text("×1")


def test_queue_item_keeps_the_pod_name_and_the_whole_reason(page):
    start_run(page, cluster_id(page, "preemption-lesson"))
    step(page, 0)
    item = page.locator('.queue[data-queue="unschedulablePods"] li[data-pod]').first
    expect(item).to_be_visible()
    sizes = item.evaluate("""(li) => {
        const pod = li.querySelector('.pod'), reason = li.querySelector('.reason');
        return {pod: pod.getBoundingClientRect().width, podText: pod.scrollWidth,
                reasonClipped: reason ? reason.scrollWidth > reason.clientWidth + 1 : false,
                reasonHeight: reason ? reason.scrollHeight - reason.clientHeight : 0};
    }""")
    assert sizes["pod"] >= min(sizes["podText"], 48), sizes
    assert not sizes["reasonClipped"] and sizes["reasonHeight"] <= 1, sizes


def test_long_extender_verdict_leaves_the_node_name_in_the_card(page):
    start_run(page, cluster_id(page, "taints-affinity"))
    card = page.locator("#nodes-grid .node").first
    fits = card.evaluate("""(card) => {
        card.querySelector('.verdict').textContent =
            '✗ extender 127.0.0.1:8888/scheduler/a/very/long/path/filter';
        const name = card.querySelector('.name'), box = card.getBoundingClientRect();
        const r = name.getBoundingClientRect();
        return {inside: r.left >= box.left && r.right <= box.right + 0.5,
                whole: name.scrollWidth <= name.clientWidth + 1,
                header: card.querySelector('header').scrollWidth
                    <= card.querySelector('header').clientWidth + 1};
    }""")
    assert fits == {"inside": True, "whole": True, "header": True}


def test_weight_zero_is_explained_as_kube_scheduler_runs_it(page):
    cluster = private_clone(page, "taints-affinity", "weight-zero-browser")
    page.goto(f"/clusters/{cluster}/profile/")
    weight = page.get_by_label("Weight of ImageLocality").first
    weight.fill("0")
    weight.dispatch_event("change")
    note = page.locator(".weight-note").first
    expect(note).to_contain_text("0 runs as 1")
    weight.fill("2")
    expect(page.locator(".weight-note")).to_have_count(0)


def test_space_and_letter_keys_after_clicking_controls(page):
    start_run(page, cluster_id(page, "spread-antiaffinity"))
    page.click("#btn-cycle")
    expect(page.locator("#cycle-title")).to_have_text("Cycle #0")
    expect(page.locator("#run-msg")).not_to_contain_text("Scheduling one cycle")
    # Space runs (it does not press » Cycle again)...
    page.keyboard.press(" ")
    expect(page.locator("#btn-pause")).to_be_enabled()
    page.keyboard.press(" ")
    expect(page.locator("#btn-pause")).to_be_disabled()
    expect(page.locator("#run-msg")).to_have_text(re.compile("Paused|finished"))
    # ...and after choosing a speed, n and c still work.
    if page.locator("#run-status").inner_text() == "finished":
        page.keyboard.press("r")
        expect(page.locator("#stat-cycles")).to_have_text("0")
    page.select_option("#speed", "100")
    before = int(page.locator("#stat-cycles").inner_text())
    page.keyboard.press("c")
    expect(page.locator("#stat-cycles")).to_have_text(str(before + 1))
    page.select_option("#speed", "1000")
    page.keyboard.press("n")
    expect(page.locator("#cycle-summary")).to_contain_text("walking: QueueSort")


def test_permit_waiters_look_waiting_and_their_timeout_is_dated(page):
    cluster = private_clone(page, "gang-lesson", "gang-trainer-browser")
    start_run(page, cluster)
    step(page, 0)
    waiting = page.locator("#nodes-grid .chip.waiting")
    expect(waiting).to_have_count(1)
    expect(waiting).to_have_attribute("title", re.compile("waiting on Permit"))
    expect(page.locator("#nodes-grid .chip.new")).to_have_count(0)
    for i in (1, 2, 3, 4):
        step(page, i)
    expect(page.locator("#stat-time")).to_have_text("10s")
    page.locator("#history").fill("0")
    expect(page.locator("#cycle-title")).to_have_text("Cycle #0")
    expect(page.locator("#cycle-summary .outcome")).to_have_text("Rejected")
    expect(page.locator("#cycle-summary")).to_contain_text("at t=10s (popped at t=0s)")
    expect(page.locator("#point-detail .permit-end")).to_contain_text("Unreserve ran at t=10s")


def test_header_and_slider_count_cycles_alike(page):
    start_run(page, cluster_id(page, "taints-affinity"))
    for i in range(4):
        step(page, i)
    expect(page.locator("#stat-cycles")).to_have_text("4")
    expect(page.locator(".run-stats")).to_contain_text("cycles 4")
    expect(page.locator("#history-label")).to_contain_text("cycle #3 of #0–#3")


def test_favicon_and_no_cdn_on_the_api_docs(page):
    # The page's own policy refuses the CDN logo (that refusal is the console's only word).
    page.console_errors.allow("cdn.redoc.ly")
    missing, foreign = [], []
    page.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
    # Only requests that went out count: the CDN logo is refused by the page, never fetched.
    page.on("requestfinished", lambda r: foreign.append(r.url)
            if r.url.startswith("http") and "127.0.0.1" not in r.url else None)
    icon = page.request.get("/favicon.ico")
    assert icon.ok and "svg" in icon.headers["content-type"]
    page.goto("/clusters/")
    expect(page.locator('link[rel="icon"]')).to_have_count(1)
    page.goto("/api/redoc/")
    expect(page.locator("#redoc-container h1, redoc h1").first).to_be_visible(timeout=30_000)
    expect(page.locator('img[src*="cdn.redoc.ly"]')).to_have_count(0)
    page.goto("/admin/login/")
    page.wait_for_timeout(500)
    assert missing == [] and foreign == [], (missing, foreign)
