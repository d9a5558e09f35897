"""The run view at 500 and 5,000 nodes: stepping, history, "why pending?", the node map, and
every websocket frame under 64 KB. (Timings are printed by scripts/bench_run_view.py.)"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

from tests.browser.helpers import api_post, cluster_id, csrf, screenshot

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
KB64 = 64 * 1024
MAX_DOM = 15_000


def import_scale_cluster(pg, nodes: int, pods: int, *, name: str | None = None) -> int:
    """A generated cluster (scripts/make_scale_fixture.py), imported through the API.

    The browser tests share one server and user, so each caller names its own cluster."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import make_scale_fixture as fixture

    text = fixture.render(fixture.documents(nodes, pods), f"scale {nodes}")
    resp = pg.request.post("/api/clusters/import/", data=json.dumps({
        "name": name or f"scale-{nodes}-browser",
        "files": [{"name": f"scale-{nodes}.yaml", "text": text}],
    }), headers={"Content-Type": "application/json", "X-CSRFToken": csrf(pg),
                 "Referer": pg.url or "http://127.0.0.1/"}, timeout=180_000)
    assert resp.ok, resp.text()
    return resp.json()["cluster"]["id"]


def watch_frames(pg) -> list[tuple[int, str]]:
    """(bytes, start) of every websocket frame the page receives."""
    sizes: list[tuple[int, str]] = []
    pg.on("websocket", lambda ws: ws.on("framereceived", lambda payload: sizes.append((
        len(payload if isinstance(payload, bytes) else payload.encode()), str(payload[:80])))))
    return sizes


def step_cycles(pg, count: int, start: int = 0) -> None:
    for i in range(start, start + count):
        pg.keyboard.press("c")
        expect(pg.locator("#cycle-title")).to_have_text(f"Cycle #{i}", timeout=60_000)
        # The cycle shows before the server has stored its chunk and released the run; a
        # second `c` until then is refused as busy, so wait until the step has settled.
        expect(pg.locator("#run-msg")).not_to_contain_text("Scheduling", timeout=60_000)
        expect(pg.locator("#run-status")).to_have_text("paused", timeout=60_000)


def why_pending(pg) -> str:
    """Explain the head of the unschedulable queue, or of activeQ."""
    for _ in range(5):
        for queue in ("unschedulablePods", "activeQ"):
            item = pg.locator(f'.queue[data-queue="{queue}"] li[data-pod]').first
            if item.count():
                pod = item.get_attribute("data-pod")
                # By name: a state refresh may redraw the queue between reading and clicking,
                # even without that pod (it was placed since): then the queue is read again.
                try:
                    pg.locator(f'.queue li[data-pod="{pod}"]').first.click(timeout=3_000)
                except PlaywrightTimeoutError:
                    break
                return pod
    raise AssertionError("no pod in the queues")


@pytest.fixture(scope="module")
def large_cluster(browser, live_app):
    context = browser.new_context(base_url=live_app)
    pg = context.new_page()
    pg.goto("/api/auth/login/?next=/clusters/")
    pg.fill("input[name=username]", "demo")
    pg.fill("input[name=password]", "demo")
    pg.click("[type=submit]")
    pg.wait_for_url("**/clusters/")
    cid = import_scale_cluster(pg, 5000, 2000)
    context.close()
    return cid


def test_5000_nodes_map_stepping_history_and_why(page, large_cluster):
    sizes = watch_frames(page)
    run = api_post(page, "/api/runs/", {"cluster": large_cluster, "seed": 1})
    page.goto(f"/runs/{run['id']}/")
    expect(page.locator("#conn")).to_have_text("live", timeout=30_000)
    expect(page.locator("#node-count")).to_have_text("5000", timeout=30_000)
    # Large clusters open on the map: one canvas with a tile per node, grouped by zone.
    expect(page.locator("#nodes-map")).to_be_visible()
    expect(page.locator("#nodes-grid")).to_be_hidden()
    expect(page.locator("canvas.node-map")).to_have_attribute("data-drawn", "5000")
    expect(page.locator(".map-summary")).to_contain_text("5000 nodes")

    step_cycles(page, 3)
    expect(page.locator("table.matrix, table.scores").first).to_be_visible(timeout=30_000)
    expect(page.locator("#cycle-summary")).not_to_contain_text("No cycle has run yet")
    expect(page.locator("#stat-cycles")).to_have_text("3")
    expect(page.locator('.queue[data-queue="activeQ"] [data-count]')).not_to_have_text("0")
    expect(page.locator(".map-summary")).to_contain_text("feasible")
    assert page.evaluate("document.getElementsByTagName('*').length") <= MAX_DOM

    # The Filter matrix: a window of rows, the feasible ones first.
    page.locator('#timeline button[data-point="filter"]').click()
    matrix = page.locator("table.matrix")
    expect(matrix).to_be_visible()
    assert matrix.locator("tbody tr[data-node]").count() < 100
    expect(matrix.locator("tbody tr[data-node] td").last.first).to_be_visible()

    # Walking the next cycle point by point.
    page.keyboard.press("n")
    expect(page.locator("#cycle-title")).to_have_text("Cycle #3", timeout=60_000)
    expect(page.locator("#cycle-summary")).to_contain_text("walking: QueueSort")
    page.keyboard.press("n")
    page.keyboard.press("n")
    page.keyboard.press("n")
    expect(page.locator("#cycle-summary")).to_contain_text("walking: Filter")

    # History: back one cycle, the map shows where the pods were then.
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#cycle-title")).to_have_text("Cycle #2")
    expect(page.locator("#history-label")).to_contain_text("history")
    page.keyboard.press("l")
    expect(page.locator("#history-label")).to_contain_text("latest")

    # Hover a tile: its detail; click: the node opens in the cycle panel.
    page.locator("canvas.node-map").scroll_into_view_if_needed()
    box = page.locator("canvas.node-map").bounding_box()
    page.mouse.move(box["x"] + 5, box["y"] + 23)
    expect(page.locator(".map-tip")).to_be_visible()
    expect(page.locator(".map-tip")).to_contain_text("node-")
    node = page.locator(".map-tip").get_attribute("data-node")
    page.mouse.click(box["x"] + 5, box["y"] + 23)
    expect(page.locator("#node-focus")).to_contain_text(f"Node {node} in cycle")
    page.keyboard.press("Escape")
    page.mouse.move(0, 0)
    page.evaluate("window.scrollTo(0, 0)")
    # The header and the queues count the four cycles run (the fourth walked to Filter).
    expect(page.locator("#stat-bound")).to_have_text("4")
    expect(page.locator('.queue[data-queue="activeQ"] [data-count]')).to_have_text("996")
    screenshot(page, "run-view-5000-map.png", full_page=False)

    pod = why_pending(page)
    why = page.locator("#why-result")
    expect(why).to_contain_text(pod, timeout=30_000)
    expect(why.locator("p.status.error")).to_have_count(0)
    assert page.evaluate("document.getElementsByTagName('*').length") <= MAX_DOM

    assert sizes and max(sizes)[0] <= KB64, f"largest frame: {max(sizes)}"


def test_500_nodes_stepping_history_and_why(page):
    run = api_post(page, "/api/runs/", {"cluster": cluster_id(page, "scale-500"), "seed": 5})
    sizes = watch_frames(page)
    page.goto(f"/runs/{run['id']}/")
    expect(page.locator("#conn")).to_have_text("live", timeout=30_000)
    # Over 200 nodes the view opens on the map; the cards are a click away.
    expect(page.locator("canvas.node-map")).to_have_attribute("data-drawn", "500", timeout=30_000)
    page.get_by_role("button", name="Show nodes as cards").click()
    expect(page.locator("#nodes-grid .node")).to_have_count(500, timeout=30_000)
    step_cycles(page, 4)
    expect(page.locator("#history-label")).to_have_text(re.compile(r"^cycle #3 of #0–#3 .*latest$"))
    # The cards are laid out by verdict: the first on screen is the winner, not "not evaluated".
    expect(page.locator("#nodes-grid .node.selected")).to_have_count(1, timeout=30_000)
    first = page.evaluate("""() => {
        const cards = [...document.querySelectorAll('#nodes-grid .node')];
        const pos = (c) => { const r = c.getBoundingClientRect(); return [r.top, r.left]; };
        cards.sort((a, b) => pos(a)[0] - pos(b)[0] || pos(a)[1] - pos(b)[1]);
        return cards[0].className;
    }""")
    assert "selected" in first, first
    page.locator("#history").fill("1")
    expect(page.locator("#cycle-title")).to_have_text("Cycle #1")
    expect(page.locator("#history-label")).to_contain_text("history")
    # c in history moves to the next recorded cycle, not the engine.
    page.keyboard.press("c")
    expect(page.locator("#cycle-title")).to_have_text("Cycle #2")
    expect(page.locator("#stat-cycles")).to_have_text("4")
    page.keyboard.press("l")
    pod = why_pending(page)
    expect(page.locator("#why-result")).to_contain_text(pod, timeout=30_000)
    # And back to the map.
    page.get_by_role("button", name="Show nodes as a map").click()
    expect(page.locator("canvas.node-map")).to_have_attribute("data-drawn", "500")
    screenshot(page, "run-view-500-map.png", full_page=False)
    page.get_by_role("button", name="Show nodes as cards").click()
    expect(page.locator("#nodes-grid")).to_be_visible()
    assert max(sizes)[0] <= KB64, f"largest frame: {max(sizes)}"
