"""The import forms' options (issue 27): "Strict" sends fieldValidation=Strict and "Drop
removed plugins" sends dropRemovedPlugins=true. A kube-scheduler-simulator export
(tests/public_files/kube-scheduler-simulator/export-case1.json) is refused for naming plugins
removed in v1.32, then imported with them left out; a pod with a misspelt field is imported with
a warning, then refused with Strict."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import cluster_id, screenshot

pytestmark = pytest.mark.browser

EXPORT = Path(__file__).resolve().parents[1] / "public_files" / "kube-scheduler-simulator" / \
    "export-case1.json"
POD = """apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  nodeSelectr: {disktype: hdd}
  containers: [{name: c, image: nginx}]
"""
UNKNOWN = 'pasted.yaml: document 1: Pod default/web: unknown field "spec.nodeSelectr"'


def submit(page, name: str, *, files=(), text: str = "", strict=False, drop=False):
    form = page.locator("#import-form")
    form.get_by_label("Cluster name").fill(name)
    form.locator("input[name=files]").set_input_files(list(files))
    form.get_by_label("Paste YAML").fill(text)
    form.get_by_label("Strict field validation").set_checked(strict)
    form.get_by_label("Drop removed plugins").set_checked(drop)
    form.get_by_role("button", name="Import cluster").click()


def test_the_import_form_sends_strict_and_drop_removed_plugins(page):
    page.console_errors.allow(r"status of 400 .*/api/clusters/import/")
    status = page.locator("#import-status")
    form = page.locator("#import-form")
    expect(form.get_by_role("group", name="Options")).to_be_visible()

    submit(page, "kss-export", files=[EXPORT])
    expect(status).to_contain_text("EBSLimits was removed in kube-scheduler v1.32")
    expect(status).to_contain_text("AzureDiskLimits was removed in kube-scheduler v1.32")

    submit(page, "kss-export", files=[EXPORT], drop=True)
    expect(status).to_contain_text('Imported "kss-export".')
    for name in ("EBSLimits", "GCEPDLimits", "AzureDiskLimits"):
        expect(status).to_contain_text(f"{name} was removed in kube-scheduler v1.32, left out "
                                       "(dropRemovedPlugins)")
    expect(page.locator("#cluster-list")).to_contain_text("kss-export")
    screenshot(page.locator("#import-form").locator(".."), "import-options.png")
    profile = page.request.get(f"/api/clusters/{cluster_id(page, 'kss-export')}/profile/").json()
    enabled = {p["name"] for prof in profile["config"]["profiles"]
               for point in prof["plugins"].values() for p in (point or {}).get("enabled", [])}
    assert not enabled & {"EBSLimits", "GCEPDLimits", "AzureDiskLimits"}
    assert "NodeVolumeLimits" in enabled

    # The boxes were cleared with the form after the import.
    expect(form.get_by_label("Drop removed plugins")).not_to_be_checked()

    submit(page, "typo", text=POD)
    expect(status).to_contain_text(f"Warning: {UNKNOWN}")
    submit(page, "typo-strict", text=POD, strict=True)
    expect(status).to_contain_text("strict decoding error: unknown field \"spec.nodeSelectr\"")
    names = [c["name"] for c in page.request.get("/api/clusters/?page_size=200").json()["results"]]
    assert "typo" in names and "typo-strict" not in names


def test_the_replace_form_sends_them_too(page):
    page.console_errors.allow(r"status of 400 .*/api/clusters/\d+/import/")
    submit(page, "replace-target", text="apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n")
    expect(page.locator("#import-status")).to_contain_text('Imported "replace-target".')
    page.goto(f"/clusters/{cluster_id(page, 'replace-target')}/")
    page.on("dialog", lambda dialog: dialog.accept())     # "Replace every object...?"
    form, status = page.locator("#reimport-form"), page.locator("#cluster-status")
    form.locator("input[name=files]").set_input_files([EXPORT])
    form.get_by_role("button", name="Replace cluster objects").click()
    expect(status).to_contain_text("EBSLimits was removed in kube-scheduler v1.32")
    form.locator("input[name=files]").set_input_files([EXPORT])
    form.get_by_label("Drop removed plugins from the replacement").check()
    form.get_by_role("button", name="Replace cluster objects").click()
    expect(status).to_contain_text("Objects replaced.")
    expect(status).to_contain_text("GCEPDLimits was removed in kube-scheduler v1.32, left out "
                                   "(dropRemovedPlugins)")
