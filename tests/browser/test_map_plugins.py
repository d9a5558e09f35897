"""The map of a large cluster coloured by the plugin that rejected each node: a legend with
the count per plugin (as the cycle's trace has them), and a node's reason readable after a
click, without hovering. Screenshot: the 500-node map coloured by plugin."""

from __future__ import annotations

import time
from collections import Counter

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import api_post, cluster_id, screenshot

pytestmark = pytest.mark.browser

# scale-500, seed 1: cycle #8 (api-001033) has NodeAffinity rejecting most of the nodes, and
# TaintToleration, NodeUnschedulable the few tainted and cordoned ones.
CYCLE = 8


def test_the_map_colours_nodes_by_their_rejecting_plugin(page):
    run = api_post(page, "/api/runs/", {"cluster": cluster_id(page, "scale-500"), "seed": 1})
    api_post(page, f"/api/runs/{run['id']}/step/", {"cycles": CYCLE + 1})
    deadline = time.monotonic() + 60
    while page.request.get(f"/api/runs/{run['id']}/").json()["cycle_count"] <= CYCLE:
        assert time.monotonic() < deadline, "the step did not finish"
        page.wait_for_timeout(200)
    trace = page.request.get(f"/api/runs/{run['id']}/cycles/{CYCLE}/").json()
    rejected = {node: trail[-1]["plugin"] for node, trail in trace["filter"].items()
                if trail[-1]["code"] != "Success"}
    counts = Counter(rejected.values())
    assert counts["NodeAffinity"] > 300 and len(counts) >= 3

    page.goto(f"/runs/{run['id']}/")
    expect(page.locator("#cycle-title")).to_have_text(f"Cycle #{CYCLE}", timeout=30_000)
    expect(page.locator("canvas.node-map")).to_have_attribute("data-drawn", "500", timeout=30_000)
    page.get_by_label("Colour nodes by").select_option("plugin")
    legend = page.locator(".map-legend")
    expect(legend).to_be_visible()
    for plugin, n in counts.items():
        expect(legend.locator(f"li[data-plugin={plugin}]")).to_have_text(f"{plugin} {n}")
    expect(legend.locator("li").first).to_contain_text("NodeAffinity")  # the most first
    feasible = len(trace["filter"]) - len(rejected)
    expect(legend).to_contain_text(f"feasible {feasible}")

    # A click on a rejected node's tile puts its reason under the map.
    node = next(n for n, p in sorted(rejected.items()) if p == "TaintToleration")
    centre = page.evaluate(
        "(name) => import('/static/js/run/main.js').then((m) => m.map.tileCentre(name))", node)
    page.mouse.click(centre["x"], centre["y"])
    detail = page.locator(".map-detail")
    expect(detail).to_be_visible()
    expect(detail).to_contain_text(f"{node}: TaintToleration: Unschedulable")
    expect(detail).to_contain_text("untolerated taint")
    page.mouse.move(0, 0)  # no tooltip: the reason stays
    expect(detail).to_contain_text("untolerated taint")
    page.locator("#nodes-map").scroll_into_view_if_needed()
    screenshot(page, "run-map-by-plugin.png", full_page=False)
