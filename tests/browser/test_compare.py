"""The compare view: two saved profiles or two runs of one cluster, at workshop size and at
500 and 5,000 nodes."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import (
    api_post,
    cluster_id,
    csrf,
    full_page_screenshot,
    private_clone,
)
from tests.browser.test_scale_large import import_scale_cluster

pytestmark = pytest.mark.browser


def run_compare(page, timeout=30_000) -> int:
    page.get_by_role("button", name="Run the comparison").click()
    expect(page.locator("#compare-status")).to_contain_text("Done", timeout=timeout)
    return int(page.locator("#moved-count").inner_text())


def test_compare_spread_and_bin_pack(page):
    cluster = cluster_id(page, "gpu-cluster")
    page.goto(f"/clusters/{cluster}/compare/")
    expect(page.get_by_label("Side A: NodeResourcesFit scoring strategy")).to_have_value(
        "LeastAllocated")
    expect(page.get_by_label("Side B: NodeResourcesFit scoring strategy")).to_have_value(
        "MostAllocated")
    expect(page.get_by_label("Name of side B")).to_have_value("this profile · bin-pack")
    page.get_by_label("Side B: weight of NodeResourcesFit").fill("5")
    moved = run_compare(page)
    assert moved > 0
    expect(page.locator("table.data tr.moved")).to_have_count(moved)
    expect(page.locator(".util-node")).to_have_count(15)
    expect(page.locator(".util-node.changed").first).to_be_visible()
    differences = page.get_by_label("What differs between A and B")
    expect(differences).to_contain_text("weight of NodeResourcesFit: 1 · 5")
    expect(differences).to_contain_text('"type":"MostAllocated"')
    page.get_by_label("Show every pod, not only the ones that moved").check()
    placement = page.get_by_role("table", name="Pod placement under A and B")
    expect(placement.locator("tbody tr")).to_have_count(20)
    full_page_screenshot(page, "compare.png")

    # Weight 0 runs as 1, as kube-scheduler's framework runs it: the side says so.
    page.get_by_label("Side A: weight of ImageLocality").fill("0")
    shown = page.get_by_label("Side A").locator(".weight-note:visible")
    expect(shown).to_have_text("0 runs as 1: disable the plugin to leave it out")
    page.get_by_label("Side A: weight of ImageLocality").fill("1")
    expect(shown).to_have_count(0)

    # A weight that is not a whole number is refused before anything runs.
    page.get_by_label("Side A: weight of TaintToleration").fill("-2")
    page.get_by_role("button", name="Run the comparison").click()
    expect(page.locator("#compare-status")).to_contain_text("whole numbers")


def test_the_side_label_follows_the_strategy(page):
    """Issue 21: the label kept saying "bin-pack" after the strategy changed."""
    page.goto(f"/clusters/{cluster_id(page, 'gpu-cluster')}/compare/")
    name = page.get_by_label("Name of side B")
    expect(name).to_have_value("this profile · bin-pack")
    page.get_by_label("Side B: NodeResourcesFit scoring strategy").select_option("LeastAllocated")
    expect(name).to_have_value("this profile · spread")
    page.get_by_label("Side B: NodeResourcesFit scoring strategy").select_option(
        "RequestedToCapacityRatio")
    expect(name).to_have_value("this profile · capacity ratio")
    run_compare(page)
    expect(page.get_by_label("What differs between A and B")).to_contain_text(
        "B · this profile · capacity ratio")
    # A name the user typed stays theirs.
    name.fill("my packing")
    page.get_by_label("Side B: NodeResourcesFit scoring strategy").select_option("MostAllocated")
    expect(name).to_have_value("my packing")


def test_two_saved_profiles_whatever_differs(page):
    """Side B starts from another cluster's saved profile: plugins off, other arguments."""
    other = private_clone(page, "gpu-cluster", "compare-other-profile")
    fit = {"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "MostAllocated"}}}
    resp = page.request.put(f"/api/clusters/{other}/profile/", data={"config": {
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler", "pluginConfig": [fit], "plugins": {
            "score": {"disabled": [{"name": "ImageLocality"}]}}}]},
    }, headers={"X-CSRFToken": csrf(page), "Referer": page.url or "http://127.0.0.1/"})
    assert resp.ok, resp.text()
    page.goto(f"/clusters/{cluster_id(page, 'gpu-cluster')}/compare/")
    page.get_by_label("Side B: saved profile to start from").select_option(str(other))
    expect(page.get_by_label("Name of side B")).to_have_value("compare-other-profile · bin-pack")
    expect(page.get_by_label("Side B: weight of ImageLocality")).to_have_count(0)
    assert run_compare(page) > 0
    differences = page.get_by_label("What differs between A and B")
    expect(differences).to_contain_text("score: ImageLocality only in A")
    expect(differences).to_contain_text("args of NodeResourcesFit")


def test_two_runs_of_one_cluster_diffed(page):
    cluster = private_clone(page, "gpu-cluster", "compare-runs-browser")
    finished = api_post(page, "/api/runs/", {"cluster": cluster, "seed": 1, "name": "to the end"})
    page.goto(f"/runs/{finished['id']}/")
    page.select_option("#speed", "0")
    page.locator("body").press("Space")
    expect(page.locator("#run-status")).to_have_text("finished", timeout=60_000)
    fresh = api_post(page, "/api/runs/", {"cluster": cluster, "seed": 1, "name": "not started"})
    page.goto(f"/clusters/{cluster}/")
    profile = page.locator("#runs-list tbody tr").first.locator("td").nth(1)
    expect(profile).to_have_text(re.compile(r"^default-scheduler · [0-9a-f]{8}$"))
    page.goto(f"/clusters/{cluster}/compare/")
    page.get_by_label("Run A").select_option(str(finished["id"]))
    page.get_by_label("Run B").select_option(str(fresh["id"]))
    page.get_by_role("button", name="Diff the two runs").click()
    expect(page.locator("#runs-status")).to_contain_text("Done")
    assert int(page.locator("#moved-count").inner_text()) == 20
    expect(page.get_by_label("What differs between A and B")).to_contain_text(
        "A · to the end against B · not started")


def test_compare_at_500_nodes(page):
    page.goto(f"/clusters/{cluster_id(page, 'scale-500')}/compare/")
    expect(page.get_by_label("Name of side B")).to_have_value("this profile · bin-pack")
    assert run_compare(page, timeout=120_000) > 0
    expect(page.locator("#nodes-used")).to_have_text(re.compile(r"^\d+ · \d+$"))
    expect(page.locator("#cards-note")).to_contain_text("of 500 nodes")
    assert page.locator(".util-node").count() <= 200


def test_compare_at_5000_nodes(page):
    cluster = import_scale_cluster(page, 5000, 300, name="scale-5000-compare")
    page.goto(f"/clusters/{cluster}/compare/")
    expect(page.get_by_label("Name of side B")).to_have_value("this profile · bin-pack")
    assert run_compare(page, timeout=300_000) > 0
    expect(page.locator("#cards-note")).to_contain_text("of 5000 nodes")
    assert page.locator(".util-node").count() <= 200
    assert page.evaluate("document.getElementsByTagName('*').length") < 15_000
