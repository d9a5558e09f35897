"""The sweep page: a grid of scoring strategies and weights over the locally-optimal lesson's
cluster, run variant by variant on the embedded task threads, the results sorted and charted,
and two variants opened in compare."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import cluster_id, csrf, private_clone, screenshot

pytestmark = pytest.mark.browser

GRID = "strategies: [LeastAllocated, MostAllocated]\nweights: {NodeResourcesFit: [1, 5]}\n"


def test_a_sweep_runs_every_variant_then_two_open_in_compare(page):
    cluster = cluster_id(page, "locally-optimal")
    page.goto(f"/clusters/{cluster}/")
    page.get_by_role("link", name="Sweep configurations").click()
    expect(page.locator("#sweep-grid")).to_contain_text("strategies:")
    page.fill("#sweep-grid", GRID)
    page.get_by_role("button", name="Start the sweep").click()
    expect(page.locator("#sweep-counts")).to_contain_text("4 of 4 variants ended · 4 done",
                                                          timeout=60_000)
    expect(page.locator("#sweep-status")).to_contain_text("done.")
    expect(page.get_by_role("button", name="Cancel the sweep")).to_be_disabled()
    rows = page.locator("#sweep-table tbody tr")
    expect(rows).to_have_count(4)
    expect(rows.first.locator("td").nth(2)).to_have_text(
        "NodeResourcesFit=1, strategy=LeastAllocated")
    # Sorted by placement score, highest first: the weight-5 variants lead.
    page.locator("#sweep-table button[data-sort=placementScore]").click()
    page.locator("#sweep-table button[data-sort=placementScore]").click()
    expect(page.locator("#sweep-table th[aria-sort=descending]")).to_contain_text(
        "placement score")
    expect(rows.first.locator("td").nth(2)).to_contain_text("NodeResourcesFit=5")
    scores = [int(t) for t in rows.locator("td:nth-child(11)").all_inner_texts()]
    assert scores == sorted(scores, reverse=True), scores
    expect(page.locator("#sweep-chart svg rect.col")).to_have_count(4)
    expect(page.locator("#sweep-chart svg rect.best")).to_have_count(1)
    page.select_option("#sweep-measure", "pending")
    expect(page.locator("#sweep-chart")).to_contain_text("Best pending (lowest)")
    compare = page.get_by_role("button", name="Open the two picked variants in compare")
    expect(compare).to_be_disabled()
    page.get_by_label("Pick variant 0 to compare").check()
    page.get_by_label("Pick variant 3 to compare").check()
    expect(compare).to_be_enabled()
    screenshot(page, "whatif-sweep.png", full_page=True)
    compare.click()
    page.wait_for_url(f"**/clusters/{cluster}/compare/?sweep=*")
    expect(page.get_by_label("Name of side A")).to_have_value(
        "variant 0 · NodeResourcesFit=1, strategy=LeastAllocated")
    expect(page.get_by_label("Name of side B")).to_have_value(
        "variant 3 · NodeResourcesFit=5, strategy=MostAllocated")
    expect(page.get_by_label("Side B: NodeResourcesFit scoring strategy")).to_have_value(
        "MostAllocated")
    expect(page.locator("#moved-count")).to_be_visible(timeout=30_000)
    expect(page.locator("#compare-status")).to_contain_text("Done")


def test_a_feature_gates_axis_shows_each_variant_gates_and_warnings_and_compare_takes_them(
        page):
    """A GA gate set to its value is accepted with kube-scheduler's warning (featuregate's
    Set), shown on that variant only; compare's sides get each variant's gates."""
    cluster = cluster_id(page, "locally-optimal")
    page.goto(f"/clusters/{cluster}/sweep/")
    page.fill("#sweep-grid", 'featureGates: ["", "DRAPrioritizedList=true"]\n')
    page.get_by_role("button", name="Start the sweep").click()
    expect(page.locator("#sweep-counts")).to_contain_text("2 of 2 variants ended · 2 done",
                                                          timeout=60_000)
    rows = page.locator("#sweep-table tbody tr")
    expect(rows.nth(0).locator("td").nth(2)).to_have_text("featureGates=defaults")
    expect(rows.nth(1).locator("td").nth(2)).to_have_text(
        "featureGates=DRAPrioritizedList=true")
    expect(rows.nth(0).locator("details.variant-warnings")).to_have_count(0)
    warned = rows.nth(1).locator("details.variant-warnings")
    warned.locator("summary").click()
    expect(warned).to_contain_text("Setting GA feature gate DRAPrioritizedList=true")
    page.get_by_label("Pick variant 0 to compare").check()
    page.get_by_label("Pick variant 1 to compare").check()
    page.get_by_role("button", name="Open the two picked variants in compare").click()
    page.wait_for_url(f"**/clusters/{cluster}/compare/?sweep=*")
    expect(page.get_by_label("Feature gates of side B")).to_have_value("DRAPrioritizedList=true")
    expect(page.get_by_label("Feature gates of side A")).to_have_value("")
    expect(page.locator("#compare-status")).to_contain_text("Done", timeout=30_000)


def test_a_grid_over_the_limit_is_refused_naming_the_limit(page):
    page.console_errors.allow("status of 400")   # the refusal the page shows
    page.goto(f"/clusters/{cluster_id(page, 'locally-optimal')}/sweep/")
    page.fill("#sweep-grid", "percentageOfNodesToScore: [" + ", ".join(map(str, range(101)))
              + "]\nreleases: ['1.34', '1.35', '1.36', '1.37', '1.37', '1.36']\n")
    page.get_by_role("button", name="Start the sweep").click()
    expect(page.locator("#sweep-status")).to_contain_text(
        "grid: 606 variants is more than the limit PLAYGROUND_SWEEP_MAX_VARIANTS of 500")


def test_a_running_sweep_is_cancelled_and_its_variants_not_started_are_skipped(page):
    page.goto(f"/clusters/{cluster_id(page, 'locally-optimal')}/sweep/")
    # 400 variants of a small cluster: long enough on the task threads to be cancelled midway.
    page.fill("#sweep-grid", "percentageOfNodesToScore: [" + ", ".join(map(str, range(100)))
              + "]\nreleases: ['1.34', '1.35', '1.36', '1.37']\n")
    page.get_by_role("button", name="Start the sweep").click()
    expect(page.locator("#sweep-counts")).to_contain_text("of 400 variants ended",
                                                          timeout=30_000)
    page.get_by_role("button", name="Cancel the sweep").click()
    expect(page.locator("#sweep-status")).to_contain_text("cancelled.", timeout=30_000)
    expect(page.get_by_role("button", name="Cancel the sweep")).to_be_disabled()
    skipped = page.locator("#sweep-table tbody tr[data-status=skipped]")
    expect(skipped.first).to_be_visible()
    assert 0 < skipped.count() < 400
    expect(page.locator("#sweep-table tbody tr[data-status=done]").first).to_be_visible()


TWO_PROFILES = {"apiVersion": "kubescheduler.config.k8s.io/v1",
                "kind": "KubeSchedulerConfiguration",
                "profiles": [{"schedulerName": "default-scheduler"},
                             {"schedulerName": "batch-scheduler"}]}


def test_compare_shows_every_profile_a_variant_ran(page):
    cluster = private_clone(page, "locally-optimal", "two-profiles-sweep")
    resp = page.request.put(f"/api/clusters/{cluster}/profile/", data={"config": TWO_PROFILES},
                            headers={"X-CSRFToken": csrf(page), "Referer": page.url or
                                     "http://127.0.0.1/"})
    assert resp.ok, resp.text()
    page.goto(f"/clusters/{cluster}/sweep/")
    page.fill("#sweep-grid", "weights: {NodeResourcesFit: [1, 5]}\n")
    page.get_by_role("button", name="Start the sweep").click()
    expect(page.locator("#sweep-counts")).to_contain_text("2 of 2 variants ended · 2 done",
                                                          timeout=60_000)
    page.get_by_label("Pick variant 0 to compare").check()
    page.get_by_label("Pick variant 1 to compare").check()
    page.get_by_role("button", name="Open the two picked variants in compare").click()
    page.wait_for_url(f"**/clusters/{cluster}/compare/?sweep=*")
    # Both profiles of each side, each with the variant's weight (the sweep sets it in both).
    for side, weight in (("A", "1"), ("B", "5")):
        for profile in ("default-scheduler", "batch-scheduler"):
            expect(page.get_by_label(f"Side {side}: weight of NodeResourcesFit in {profile}")
                   ).to_have_value(weight)
    expect(page.locator("#differences li")).to_have_text([
        "default-scheduler: weight of NodeResourcesFit: 1 · 5",
        "batch-scheduler: weight of NodeResourcesFit: 1 · 5"], timeout=30_000)
