"""A whole workshop lesson on the GPU fixture, clicked through in the browser.

Open a run, walk its first cycle one extension point at a time, check the Filter matrix and
the Score table against the engine's trace from the API, run to the end, change the profile
(NodeResourcesFit to MostAllocated with a heavier weight), re-run with the same seed, and see
the placement change.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import full_page_screenshot, private_clone, screenshot

pytestmark = pytest.mark.browser

WALK = ["queueSort", "preEnqueue", "preFilter", "filter"]


def start_run(page, cluster: int, seed: int = 1) -> int:
    page.goto(f"/clusters/{cluster}/")
    page.fill("#start-form input[name=seed]", str(seed))
    page.click("#start-form button[type=submit]")
    page.wait_for_url(re.compile(r"/runs/\d+/$"))
    expect(page.locator("#conn")).to_have_text("live")
    expect(page.locator("#nodes-grid .node").first).to_be_visible()
    return int(page.url.rstrip("/").rsplit("/", 1)[1])


def pressed_point(page):
    return page.locator('#timeline button[aria-pressed="true"]')


def next_point(page) -> str:
    """Press n and wait until the walk has moved on; the point now shown."""
    before = pressed_point(page).get_attribute("data-point")
    page.keyboard.press("n")
    expect(pressed_point(page)).not_to_have_attribute("data-point", before or "")
    return pressed_point(page).get_attribute("data-point")


def run_to_end(page, run: int) -> dict:
    page.select_option("#speed", "0")
    page.locator("body").press("Space")
    expect(page.locator("#run-status")).to_have_text("finished", timeout=60_000)
    bindings = page.request.get(f"/api/runs/{run}/state/").json()["bindings"]
    # The header's counts follow with the run's last state, a moment after its status.
    expect(page.locator("#stat-bound")).to_have_text(str(sum(map(bool, bindings.values()))))
    return bindings


def test_gpu_lesson_walk_check_change_rerun(page):
    cluster = private_clone(page, "gpu-cluster", "gpu-lesson-browser")
    run = start_run(page, cluster)

    # n walks the first cycle point by point: the engine runs the cycle, the view reveals it.
    for point in WALK:
        page.keyboard.press("n")
        expect(pressed_point(page)).to_have_attribute("data-point", point)
    trace = page.request.get(f"/api/runs/{run}/cycles/0/").json()
    expect(page.locator("#cycle-title")).to_have_text("Cycle #0")
    expect(page.locator("#cycle-summary")).to_contain_text(trace["pod"])
    expect(page.locator("#cycle-summary")).to_contain_text("walking: Filter")

    # The Filter matrix: one row per node, its verdict and the rejecting plugin's reason.
    matrix = page.locator("table.matrix")
    expect(matrix).to_be_visible()
    for node, trail in trace["filter"].items():
        row = matrix.locator(f'tbody tr[data-node="{node}"]')
        last = trail[-1]
        if last["code"] == "Success":
            expect(row.locator("td").last).to_have_text("feasible")
            expect(page.locator(f'.node.feasible[data-name="{node}"]')).to_have_count(1)
        else:
            expect(row.locator("td").last).to_have_text(last["plugin"])
            expect(row.locator("td.cell.bad")).to_contain_text(last["reasons"][0])
            expect(page.locator(f'.node.filtered[data-name="{node}"]')).to_contain_text(
                last["plugin"])
    feasible = [n for n, t in trace["filter"].items() if t[-1]["code"] == "Success"]
    assert feasible and len(feasible) < len(trace["filter"])  # taints filter the GPU nodes

    # On to Score: the sortable table holds the trace's raw, normalized and weighted scores.
    walked = [next_point(page) for _ in range(2)]
    assert walked == ["preScore", "score"]  # PostFilter did not run: it is skipped
    page.check('input[name="score-mode"][value="all"]')
    table = page.locator("table.scores")
    plugins = list(trace["score"])
    assert plugins
    for node, total in trace["totalScore"].items():
        cells = table.locator(f'tbody tr[data-node="{node}"] td')
        expected = [str(trace["score"][p][node][k]) for p in plugins
                    for k in ("raw", "normalized", "weighted")] + [str(total)]
        expect(cells).to_have_text(expected)
    winner = table.locator("tbody tr.winner")
    expect(winner).to_have_attribute("data-node", trace["node"])
    best = trace["totalScore"][trace["node"]]
    ties = sum(1 for n, t in trace["totalScore"].items() if t == best and n != trace["node"])
    expect(table.locator("tbody tr.tie")).to_have_count(ties)
    # Sorting by node name puts the rows in name order.
    table.get_by_role("button", name="Sort by node").click()
    names = table.locator("tbody tr").evaluate_all("rows => rows.map(r => r.dataset.node)")
    assert names == sorted(trace["totalScore"])

    # Through Reserve ... PostBind to the end of the cycle: the outcome shows, the node is
    # marked selected and the pod sits on it.
    expected = ["normalizeScore"] + [p for p in ("reserve", "permit", "preBind", "bind",
                                                 "postBind") if trace[p]]
    walked = [next_point(page) for _ in expected]
    assert walked == expected
    page.keyboard.press("n")
    expect(page.locator("#cycle-summary .outcome")).to_have_text("Bound")
    selected = page.locator(f'.node.selected[data-name="{trace["node"]}"]')
    expect(selected).to_contain_text(trace["pod"].split("/")[1])

    # Clicking an extension point shows its plugins' statuses.
    page.click('#timeline button[data-point="bind"]')
    expect(page.locator("#point-detail")).to_contain_text("DefaultBinder")

    before = run_to_end(page, run)
    assert all(before.values())

    # The history slider goes back to a GPU pod's cycle without running anything.
    rows = page.request.get(f"/api/runs/{run}/history/").json()["cycles"]
    gpu_cycle = next(r[0] for r in rows if r[2].startswith("default/train"))
    page.locator("#history").fill(str(gpu_cycle))
    expect(page.locator("#cycle-title")).to_have_text(f"Cycle #{gpu_cycle}")
    expect(page.locator("#history-label")).to_contain_text("history")
    expect(page.locator("table.scores")).to_be_visible()
    # From the top: a full-page capture of a scrolled page draws the sticky run bar mid-page.
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, "run-view.png", full_page=True)

    # The profile editor: bin-pack with NodeResourcesFit (MostAllocated) and weigh it more.
    page.goto(f"/clusters/{cluster}/profile/")
    page.click("#tab-args")
    page.select_option('select[aria-label="NodeResourcesFit scoring strategy"]',
                       "MostAllocated")
    page.click("#tab-plugins")
    weight = page.locator('section[data-point="score"] input[data-default-of="NodeResourcesFit"]')
    weight.fill("5")
    weight.press("Tab")
    override = page.locator('section[data-point="score"] li[data-plugin="NodeResourcesFit"] '
                            'input.weight')
    expect(override).to_have_value("5")
    expect(page.locator('.effective[data-point="score"]')).to_contain_text("NodeResourcesFit×5")
    full_page_screenshot(page, "profile-editor.png")
    page.click("#save")
    expect(page.locator("#save-status")).to_contain_text("Saved")
    config = page.request.get(f"/api/clusters/{cluster}/profile/").json()["config"]
    profile = config["profiles"][0]
    assert {"name": "NodeResourcesFit", "weight": 5} in profile["plugins"]["score"]["enabled"]
    args = next(pc["args"] for pc in profile["pluginConfig"] if pc["name"] == "NodeResourcesFit")
    assert args["scoringStrategy"]["type"] == "MostAllocated"

    # Re-run with the same seed: pods land elsewhere (packed onto fewer nodes).
    rerun = start_run(page, cluster)
    after = run_to_end(page, rerun)
    moved = [p for p in before if before[p] != after[p]]
    assert moved
    assert len(set(after.values())) < len(set(before.values()))
    pod = moved[0]
    chip = page.locator(f'.node[data-name="{after[pod]}"] '
                        f'.chip:is([title="{pod}"], [title^="{pod}:"])')
    expect(chip).to_have_count(1)
