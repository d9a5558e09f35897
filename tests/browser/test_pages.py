"""Clusters list and cluster page, themes and sizes, keyboard help, accessible names."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import api_post, cluster_id, screenshot

pytestmark = pytest.mark.browser

TWO_NODES = """\
apiVersion: v1
kind: Node
metadata: {name: small-1, labels: {zone: a}}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}
---
apiVersion: v1
kind: Node
metadata: {name: small-2, labels: {zone: b}}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}
---
apiVersion: v1
kind: Pod
metadata: {name: app, namespace: default}
spec:
  containers:
  - name: app
    image: busybox
    resources: {requests: {cpu: 500m}}
"""


def test_import_open_export_clone_delete(page):
    expect(page.locator(".cluster-card h3", has_text="gpu-cluster")).to_be_visible()
    page.fill("#import-form input[name=name]", "pasted-browser")
    page.fill("#import-form input[name=description]", "two small nodes")
    page.fill("#import-form textarea[name=text]", TWO_NODES)
    page.get_by_role("button", name="Import cluster").click()
    expect(page.locator("#import-status")).to_contain_text('Imported "pasted-browser"')

    # A bad document is refused with the loader's message.
    page.console_errors.allow(r"status of 400 .*/api/clusters/import/")
    page.fill("#import-form input[name=name]", "broken-browser")
    page.fill("#import-form textarea[name=text]", TWO_NODES.replace('cpu: 500m', 'cpu: 12x'))
    page.get_by_role("button", name="Import cluster").click()
    expect(page.locator("#import-status")).to_have_class(re.compile("error"))

    page.get_by_role("link", name="Open cluster pasted-browser").click()
    expect(page.locator("h1")).to_have_text("pasted-browser")
    expect(page.locator("#cluster-description")).to_have_text("two small nodes")
    expect(page.locator('#counts dd[data-kind="nodes"]')).to_have_text("2")
    expect(page.locator('#counts dd[data-kind="pods"]')).to_have_text("1")
    expect(page.locator("#nodes-table")).to_contain_text("small-2")

    with page.expect_download() as download:
        page.get_by_role("link", name="Export cluster as YAML").click()
    text = open(download.value.path()).read()
    assert "small-1" in text and "kind: Pod" in text

    page.get_by_role("button", name="Clone cluster").click()
    expect(page.locator("h1")).to_have_text("pasted-browser-copy")
    expect(page.locator('#counts dd[data-kind="objects"]')).to_have_text("0")
    expect(page.locator("#runs-list")).to_contain_text("No runs yet")
    page.once("dialog", lambda d: d.accept())
    page.get_by_role("button", name="Delete cluster").click()
    page.wait_for_url("**/clusters/")
    expect(page.locator(".cluster-card h3", has_text="pasted-browser-copy")).to_have_count(0)
    expect(page.locator(".cluster-card h3", has_text="pasted-browser")).to_have_count(1)


def test_theme_size_keys_and_accessible_names(page):
    run = api_post(page, "/api/runs/", {"cluster": cluster_id(page, "taints-affinity"),
                                        "seed": 1})
    page.goto(f"/runs/{run['id']}/")
    expect(page.locator("#conn")).to_have_text("live")
    help_text = page.locator("#keys-help")
    expect(help_text).to_be_visible()
    for key in ("n", "c", "space", "r"):
        expect(help_text.locator("kbd", has_text=re.compile(f"^{key}$"))).to_have_count(1)

    # Every control has an accessible name.
    unnamed = page.evaluate("""() => [...document.querySelectorAll(
        'button, input, select, textarea, a[href]')].filter((e) => {
            const label = e.getAttribute('aria-label') || e.textContent.trim() ||
                (e.labels && e.labels.length && e.labels[0].textContent.trim());
            return !label && e.offsetParent !== null;
        }).map((e) => e.outerHTML.slice(0, 80))""")
    assert unnamed == []

    # Dark theme and projector fonts, remembered across pages.
    page.get_by_role("button", name="Toggle dark theme").click()
    page.get_by_role("button", name="Toggle large fonts").click()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    expect(page.locator("html")).to_have_attribute("data-size", "large")
    page.keyboard.press("c")
    expect(page.locator("#cycle-title")).to_have_text("Cycle #0")
    page.keyboard.press("c")
    expect(page.locator("#cycle-title")).to_have_text("Cycle #1")
    size = page.evaluate("parseFloat(getComputedStyle(document.documentElement).fontSize)")
    assert size >= 20
    screenshot(page, "run-view-dark-large.png", full_page=True)
    page.reload()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    # r resets the run to the start, once confirmed.
    expect(page.locator("#conn")).to_have_text("live")
    page.once("dialog", lambda d: d.dismiss())
    page.keyboard.press("r")
    expect(page.locator("#stat-cycles")).to_have_text("2")
    page.once("dialog", lambda d: d.accept())
    page.keyboard.press("r")
    expect(page.locator("#stat-cycles")).to_have_text("0")
    expect(page.locator("#history-label")).to_have_text("no cycles yet")
    page.get_by_role("button", name="Toggle dark theme").click()
    page.get_by_role("button", name="Toggle large fonts").click()
    expect(page.locator("html")).to_have_attribute("data-theme", "light")
