"""The cluster page's node and pod forms and its YAML editor (issue 21's editing)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import private_clone

pytestmark = pytest.mark.browser


def stored(page, cluster: int, kind: str, name: str) -> dict:
    rows = page.request.get(f"/api/clusters/{cluster}/{kind}/?search={name}").json()
    rows = rows["results"] if isinstance(rows, dict) else rows
    return next(r["manifest"] for r in rows if r["name"] == name)


def test_add_and_edit_a_node_and_a_pod(page):
    cluster = private_clone(page, "gpu-cluster", "forms-browser")
    page.console_errors.allow(r"status of 400 .*/api/clusters/\d+/nodes/")
    page.goto(f"/clusters/{cluster}/")
    expect(page.locator('dd[data-kind="nodes"]')).to_have_text("15")

    page.get_by_label("Node name", exact=True).fill("form-node")
    page.get_by_label("Node labels").fill("topology.kubernetes.io/zone=z9, gpu=true")
    page.get_by_label("Node taints").fill("gpu=true:NoSchedule")
    page.get_by_label("Node allocatable cpu").fill("4")
    page.get_by_label("Node allocatable memory").fill("8Gi")
    page.get_by_label("Node allocatable pods").fill("20")
    page.get_by_role("button", name="Save node").click()
    expect(page.locator("#node-form-status")).to_have_text("Saved node form-node.")
    expect(page.locator('dd[data-kind="nodes"]')).to_have_text("16")
    row = page.locator("#nodes-table tr", has_text="form-node")
    expect(row).to_contain_text("gpu=true:NoSchedule")
    node = stored(page, cluster, "nodes", "form-node")
    assert node["metadata"]["labels"] == {"topology.kubernetes.io/zone": "z9", "gpu": "true"}
    assert node["status"]["allocatable"] == {"cpu": "4", "memory": "8Gi", "pods": "20"}

    # Edit: the row's ✎ loads it; what the form does not show stays.
    page.get_by_role("button", name="Edit node form-node").click()
    expect(page.locator("#node-form-title")).to_have_text("Edit node form-node")
    expect(page.get_by_label("Node allocatable cpu")).to_have_value("4")
    page.get_by_label("Node allocatable cpu").fill("8")
    page.get_by_role("button", name="Save node").click()
    expect(page.locator("#node-form-status")).to_have_text("Saved node form-node.")
    node = stored(page, cluster, "nodes", "form-node")
    assert node["status"]["allocatable"]["cpu"] == "8"
    assert node["metadata"]["labels"]["gpu"] == "true"
    expect(page.locator('dd[data-kind="nodes"]')).to_have_text("16")

    # Bad input gets a message naming the field: in the page, or from the loader.
    page.get_by_label("Node taints").fill("gpu=true:Never")
    page.get_by_role("button", name="Save node").click()
    expect(page.locator("#node-form-status")).to_contain_text('taints: "gpu=true:Never"')
    page.get_by_label("Node taints").fill("")
    page.get_by_label("Node allocatable cpu").fill("lots")
    page.get_by_role("button", name="Save node").click()
    expect(page.locator("#node-form-status")).to_contain_text("status.allocatable.cpu")
    assert stored(page, cluster, "nodes", "form-node")["status"]["allocatable"]["cpu"] == "8"

    # A pod, placed by nothing yet: pending, with its requests on its first container.
    page.get_by_label("Pod name", exact=True).fill("form-pod")
    page.get_by_label("Pod cpu request").fill("250m")
    page.get_by_label("Pod memory request").fill("512Mi")
    page.get_by_label("Pod node selector").fill("gpu=true")
    page.get_by_role("button", name="Save pod").click()
    expect(page.locator("#pod-form-status")).to_have_text("Saved pod form-pod.")
    expect(page.locator("#pods-table tr", has_text="default/form-pod")).to_contain_text("pending")
    pod = stored(page, cluster, "pods", "form-pod")
    assert pod["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "250m",
                                                                     "memory": "512Mi"}
    assert pod["spec"]["nodeSelector"] == {"gpu": "true"}
    page.get_by_role("button", name="Edit pod form-pod").click()
    page.get_by_label("Pod priority").fill("100")
    page.get_by_role("button", name="Save pod").click()
    expect(page.locator("#pod-form-status")).to_have_text("Saved pod form-pod.")
    assert stored(page, cluster, "pods", "form-pod")["spec"]["priority"] == 100


def test_cluster_yaml_editor_hints_and_marks_the_loader_message(page):
    cluster = private_clone(page, "gpu-cluster", "cluster-editor-browser")
    page.console_errors.allow(r"status of 400 .*/api/clusters/\d+/import/")
    page.goto(f"/clusters/{cluster}/")
    expect(page.locator('dd[data-kind="nodes"]')).to_have_text("15")
    editor = page.locator("#reimport-editor .cm-content")
    editor.fill("apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\nspec:\n  tai")
    editor.press("Control+End")
    editor.press("Control+Space")
    expect(page.locator(".cm-tooltip-autocomplete li", has_text="taints")).to_have_count(1)
    editor.press("Escape")

    editor.fill("apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n---\napiVersion: v1\n"
                "kind: Node\nmetadata:\n  name: n2\nstatus:\n  allocatable:\n    cpu: lots\n")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Replace cluster objects").click()
    expect(page.locator("#cluster-status")).to_contain_text("document 2: Node n2")
    marked = page.locator("#reimport-editor .cm-lintRange-error")
    expect(marked).to_have_count(1)
    expect(marked).to_have_text("    cpu: lots")
    # Nothing stored is lost.
    expect(page.locator('dd[data-kind="nodes"]')).to_have_text("15")


def test_reimport_warns_of_unknown_fields_and_marks_their_lines(page):
    cluster = private_clone(page, "gpu-cluster", "cluster-warnings-browser")
    page.goto(f"/clusters/{cluster}/")
    expect(page.locator('dd[data-kind="nodes"]')).to_have_text("15")
    editor = page.locator("#reimport-editor .cm-content")
    editor.fill("apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\nstatus:\n  allocatable:\n"
                "    cpu: '4'\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n"
                "  nodeSelectr: {disktype: hdd}\n  containers:\n  - name: c\n    image: nginx\n")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Replace cluster objects").click()
    expect(page.locator("#cluster-status")).to_contain_text(
        'Warning: pasted.yaml: document 2: Pod default/web: unknown field "spec.nodeSelectr"')
    marked = page.locator("#reimport-editor .cm-lintRange-warning")
    expect(marked).to_have_count(1)
    expect(marked).to_have_text("  nodeSelectr: {disktype: hdd}")
    expect(page.locator('dd[data-kind="nodes"]')).to_have_text("1")
