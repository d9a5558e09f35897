"""The kube-scheduler release picker (issue 26): a run started under v1.35 says so on its
page and in the runs table; compare puts one cluster under v1.34 and v1.37 side by side; the
profile editor checks against the chosen release."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import api_post, cluster_id, private_clone

pytestmark = pytest.mark.browser


def test_a_run_started_under_an_older_release_follows_it(page):
    cluster = cluster_id(page, "taints-affinity")
    page.goto(f"/clusters/{cluster}/")
    release = page.get_by_label("kube-scheduler release")
    expect(release).to_have_value("1.37")
    release.select_option("1.35")
    page.get_by_role("button", name="Start a run").click()
    page.wait_for_url(re.compile(r"/runs/\d+/"))
    expect(page.locator("#stat-release")).to_have_text("v1.35")
    run = int(re.search(r"/runs/(\d+)/", page.url).group(1))
    assert page.request.get(f"/api/runs/{run}/").json()["release"] == "1.35"
    page.goto(f"/clusters/{cluster}/")
    expect(page.locator("tr", has_text=f"run {run}")).to_contain_text("v1.35")


def test_compare_one_cluster_under_two_releases(page):
    cluster = cluster_id(page, "taints-affinity")
    page.goto(f"/clusters/{cluster}/compare/")
    page.get_by_label("kube-scheduler release of side A").select_option("1.34")
    page.get_by_label("kube-scheduler release of side B").select_option("1.37")
    page.get_by_role("button", name="Run the comparison").click()
    expect(page.locator("#compare-status")).to_contain_text("Done", timeout=30_000)
    expect(page.locator("#differences")).to_contain_text("kube-scheduler release: v1.34 · v1.37")


def test_the_profile_editor_checks_against_the_chosen_release(page):
    cluster = cluster_id(page, "taints-affinity")
    page.goto(f"/clusters/{cluster}/profile/")

    def asks_for_v1_34(request) -> bool:
        return (request.url.endswith("/api/profiles/check/")
                and (request.post_data_json or {}).get("release") == "1.34")

    with page.expect_request(asks_for_v1_34):
        page.get_by_label("kube-scheduler release to check against").select_option("1.34")


def test_the_run_page_lists_what_the_release_does_not_honour(page):
    cluster = private_clone(page, "taints-affinity", "release-warnings-browser")
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "declaring"},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                       "declaredFeatures": ["GuaranteedQoSPodCPUResize"]}}
    api_post(page, f"/api/clusters/{cluster}/nodes/", {"manifest": node})
    run = api_post(page, "/api/runs/", {"cluster": cluster, "release": "1.34"})
    page.goto(f"/runs/{run['id']}/")
    warnings = page.locator("#run-warnings")
    expect(warnings).to_be_visible()
    expect(page.locator("#run-warnings-count")).to_have_text("1")
    warnings.locator("summary").click()
    expect(page.locator("#run-warnings-list")).to_contain_text(
        "Node declaring: field status.declaredFeatures: node declared features are not in "
        "kube-scheduler v1.34")


def test_a_run_started_with_feature_gates_shows_them_beside_its_release(page):
    cluster = cluster_id(page, "taints-affinity")
    page.goto(f"/clusters/{cluster}/")
    page.get_by_label("kube-scheduler release").select_option("1.36")
    page.get_by_label("Feature gates").fill("GenericWorkload=true,GangScheduling=true")
    page.get_by_role("button", name="Start a run").click()
    page.wait_for_url(re.compile(r"/runs/\d+/"))
    expect(page.locator("#stat-release")).to_have_text("v1.36")
    expect(page.locator("#stat-gates")).to_have_text("GenericWorkload=true,GangScheduling=true")
    run = int(re.search(r"/runs/(\d+)/", page.url).group(1))
    assert page.request.get(f"/api/runs/{run}/").json()["feature_gates"] == {
        "GenericWorkload": True, "GangScheduling": True}
    page.goto(f"/clusters/{cluster}/")
    expect(page.locator("tr", has_text=f"run {run}")).to_contain_text(
        "v1.36 + GenericWorkload=true,GangScheduling=true")


def test_a_gate_the_release_refuses_is_named_on_the_form(page):
    page.console_errors.allow(r"status of 400 .*/api/runs/")   # the refusal the form shows
    cluster = cluster_id(page, "taints-affinity")
    page.goto(f"/clusters/{cluster}/")
    page.get_by_label("kube-scheduler release").select_option("1.35")
    gates = page.get_by_label("Feature gates")
    gates.fill("GangScheduling=true")
    page.get_by_role("button", name="Start a run").click()
    expect(page.locator("#cluster-status")).to_have_text(
        "feature_gates: GangScheduling is enabled, but depends on features that are "
        "disabled: [GenericWorkload]")
    expect(gates).to_have_class(re.compile(r"\binvalid\b"))
    assert re.search(r"/clusters/\d+/$", page.url)


def test_compare_puts_one_side_under_other_feature_gates(page):
    cluster = cluster_id(page, "taints-affinity")
    page.goto(f"/clusters/{cluster}/compare/")
    page.get_by_label("kube-scheduler release of side A").select_option("1.36")
    page.get_by_label("kube-scheduler release of side B").select_option("1.36")
    page.get_by_label("Feature gates of side B").fill("GenericWorkload=true,GangScheduling=true")
    page.get_by_role("button", name="Run the comparison").click()
    expect(page.locator("#compare-status")).to_contain_text("Done", timeout=30_000)
    expect(page.locator("#differences")).to_contain_text(
        "feature gates: defaults · GenericWorkload=true,GangScheduling=true")


def test_the_profile_editor_checks_against_the_gates_typed(page):
    cluster = cluster_id(page, "taints-affinity")
    page.goto(f"/clusters/{cluster}/profile/")

    def asks_with_the_gates(request) -> bool:
        return (request.url.endswith("/api/profiles/check/")
                and (request.post_data_json or {}).get("feature_gates") == "GenericWorkload=true")

    with page.expect_request(asks_with_the_gates):
        page.get_by_label("Feature gates to check against").fill("GenericWorkload=true")
