"""The profile editor: the YAML tab and the forms in sync both ways, kube-scheduler's
validation messages next to the fields they name, extenders."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import private_clone, screenshot

pytestmark = pytest.mark.browser

# The YAML tab is a CodeMirror editor: its text is the lines of its content element.
EDITOR = "#yaml .cm-content"

YAML = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 70
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: InterPodAffinity
    args:
      hardPodAffinityWeight: 500
"""


def test_yaml_and_forms_stay_in_sync_and_errors_sit_by_their_fields(page):
    cluster = private_clone(page, "spread-antiaffinity", "profile-browser")
    page.console_errors.allow(r"status of 400 .*/api/clusters/\d+/profile/")
    page.goto(f"/clusters/{cluster}/profile/")
    expect(page.locator('section[data-point="score"]')).to_be_visible()

    # YAML -> forms.
    page.click("#tab-yaml")
    expect(page.locator(EDITOR)).to_contain_text("kind: KubeSchedulerConfiguration")
    page.fill(EDITOR, YAML)
    expect(page.locator("#yaml-status")).to_contain_text("YAML parsed")
    page.click("#tab-general")
    expect(page.get_by_label("percentageOfNodesToScore", exact=True)).to_have_value("70")
    page.click("#tab-args")
    hard = page.get_by_label("InterPodAffinity hardPodAffinityWeight")
    expect(hard).to_have_value("500")
    # The engine's check runs as you edit: kube-scheduler's message is next to the field.
    message = ("profiles[0].pluginConfig[0].args.hardPodAffinityWeight: Invalid value: 500: "
               "not in valid range [0, 100]")
    expect(page.locator('[data-plugin="InterPodAffinity"] .field-error')).to_have_text(message)
    expect(hard).to_have_attribute("aria-invalid", "true")

    # Saving is refused with the same message, from the API's 400.
    page.click("#save")
    expect(page.locator("#save-status")).to_contain_text("Not saved")
    expect(page.locator("#errors")).to_contain_text(message)
    expect(page.locator('[data-plugin="InterPodAffinity"] .field-error').first).to_have_text(
        message)

    # Forms -> YAML: fix the value, the error goes, the YAML follows.
    hard.fill("10")
    hard.press("Tab")
    expect(page.locator('[data-plugin="InterPodAffinity"] .field-error')).to_have_count(0)
    page.click("#tab-yaml")
    expect(page.locator(EDITOR)).to_contain_text(re.compile(r"hardPodAffinityWeight: 10\n"),
                                                 use_inner_text=True)
    page.click("#save")
    expect(page.locator("#save-status")).to_contain_text("Saved")
    config = page.request.get(f"/api/clusters/{cluster}/profile/").json()["config"]
    assert config["percentageOfNodesToScore"] == 70

    # A broken YAML document is reported with its line and keeps the forms locked.
    page.fill(EDITOR, "profiles: [\n  - schedulerName: x\n")
    expect(page.locator("#yaml-status")).to_contain_text("YAML error")
    page.click("#tab-plugins")
    expect(page.locator("#panel-plugins")).to_be_hidden()
    page.fill(EDITOR, YAML.replace("500", "10"))
    expect(page.locator("#yaml-status")).to_contain_text("YAML parsed")


def test_weights_validate_inline_and_against_kube_scheduler(page):
    cluster = private_clone(page, "taints-affinity", "weights-browser")
    page.console_errors.allow(r"status of 400 .*/api/clusters/\d+/profile/")
    page.goto(f"/clusters/{cluster}/profile/")
    weight = page.locator('section[data-point="score"] input[data-default-of="TaintToleration"]')
    expect(weight).to_have_value("3")
    weight.fill("-1")
    expect(page.locator('section[data-point="score"] .field-error').first).to_have_text(
        "a weight must not be negative")
    weight.press("Tab")
    override = page.locator('section[data-point="score"] li[data-plugin="TaintToleration"] '
                            'input.weight')
    expect(override).to_have_value("-1")
    error = page.locator('section[data-point="score"] li[data-plugin="TaintToleration"] '
                         '+ .field-error')
    expect(error).to_contain_text('score plugin "TaintToleration" has a negative weight -1')
    page.click("#save")
    expect(page.locator("#save-status")).to_contain_text("Not saved")
    expect(page.locator("#errors")).to_contain_text("negative weight -1")
    override.fill("4")
    override.press("Tab")
    page.click("#save")
    expect(page.locator("#save-status")).to_contain_text("Saved")
    expect(page.locator('.effective[data-point="score"]')).to_contain_text("TaintToleration×4")

    # Reorder and remove at a point, toggle a default off.
    page.locator('section[data-point="filter"] select').select_option("NodeName")
    page.get_by_role("button", name="Add plugin at Filter").click()
    page.locator('section[data-point="filter"] select').select_option("NodePorts")
    page.get_by_role("button", name="Add plugin at Filter").click()
    page.get_by_role("button", name="Move NodePorts up at Filter").click()
    names = page.locator('section[data-point="filter"] li[data-plugin] .pname')
    expect(names).to_have_text(["NodePorts", "NodeName"])
    page.get_by_role("button", name="Remove NodeName from Filter").click()
    expect(names).to_have_text(["NodePorts"])
    page.get_by_label("Default plugin ImageLocality enabled at Score").uncheck()
    expect(page.locator('.effective[data-point="score"]')).not_to_contain_text("ImageLocality")

    # Extenders: a missing urlPrefix is kube-scheduler's "Required value" by the field.
    page.click("#tab-general")
    page.get_by_role("button", name="Add an extender").click()
    url = page.get_by_label("Extender 1 urlPrefix")
    url.fill("")
    url.press("Tab")
    expect(page.locator(".extender .field-error")).to_have_text(
        "extenders[0].urlPrefix: Required value")
    url.fill("http://127.0.0.1:9/scheduler")
    url.press("Tab")
    page.get_by_label("Extender 1 ignorable").check()
    page.get_by_label("Extender 1 nodeCacheCapable").check()
    expect(page.locator(".extender .field-error")).to_have_count(0)
    page.click("#save")
    expect(page.locator("#save-status")).to_contain_text("Saved")
    saved = page.request.get(f"/api/clusters/{cluster}/profile/").json()["config"]
    assert saved["extenders"][0] == {"urlPrefix": "http://127.0.0.1:9/scheduler",
                                     "filterVerb": "filter", "weight": 1, "ignorable": True,
                                     "nodeCacheCapable": True}


def test_yaml_editor_highlights_hints_and_marks_kube_scheduler_messages(page):
    cluster = private_clone(page, "spread-antiaffinity", "profile-codemirror")
    page.goto(f"/clusters/{cluster}/profile/")
    page.click("#tab-yaml")
    editor = page.locator(EDITOR)
    expect(editor).to_contain_text("kind: KubeSchedulerConfiguration")

    # kube-scheduler's message marks the line its field path names.
    page.fill(EDITOR, YAML)
    expect(page.locator("#yaml-status")).to_contain_text("YAML parsed")
    # Highlighting: keys and values are tokens of their own, not one plain text per line.
    page.wait_for_function("document.querySelectorAll('#yaml .cm-line span').length >= 8")
    marked = page.locator("#yaml .cm-lintRange-error")
    expect(marked).to_have_count(1)
    expect(marked).to_have_text("      hardPodAffinityWeight: 500")
    expect(page.locator("#yaml .cm-gutter-lint .cm-lint-marker-error")).to_have_count(1)
    page.locator("#yaml .cm-lint-marker-error").hover()
    expect(page.locator(".cm-tooltip-lint")).to_contain_text("not in valid range [0, 100]")
    screenshot(page, "profile-yaml-editor.png")

    # A YAML syntax error marks its line too.
    page.fill(EDITOR, "kind: KubeSchedulerConfiguration\nprofiles: [\n  - schedulerName: x\n")
    expect(page.locator("#yaml-status")).to_contain_text("YAML error")
    expect(page.locator("#yaml .cm-gutter-lint .cm-lint-marker-error")).to_have_count(1)

    # Schema hints: configuration keys, and plugin names from the plugins API after name:.
    page.fill(EDITOR, "kind: KubeSchedulerConfiguration\nprofiles:\n- plugins:\n    score:\n"
              "      enabled:\n      - name: NodeRes")
    editor.press("Control+End")
    editor.press("Control+Space")
    options = page.locator(".cm-tooltip-autocomplete li")
    expect(options.filter(has_text="NodeResourcesFit")).to_have_count(1)
    expect(options.filter(has_text="NodeResourcesBalancedAllocation")).to_have_count(1)
    editor.press("Escape")
    editor.press("Enter")
    editor.type("        wei")
    editor.press("Control+Space")
    expect(options.filter(has_text="weight")).to_have_count(1)


def test_a_field_of_the_wrong_type_gets_go_s_message_next_to_it(page):
    # kube-scheduler's decoder names the field without list indexes; the editor finds it.
    cluster = private_clone(page, "spread-antiaffinity", "profile-types")
    page.goto(f"/clusters/{cluster}/profile/")
    page.click("#tab-yaml")
    expect(page.locator(EDITOR)).to_contain_text("kind: KubeSchedulerConfiguration")
    page.fill(EDITOR, YAML.replace("hardPodAffinityWeight: 500", 'hardPodAffinityWeight: "5"'))
    expect(page.locator("#yaml-status")).to_contain_text("YAML parsed")
    message = ("decoding .profiles[0].pluginConfig[0]: decoding args for plugin InterPodAffinity: "
               "json: cannot unmarshal string into Go struct field "
               "InterPodAffinityArgs.hardPodAffinityWeight of type int32")
    page.click("#tab-args")
    expect(page.locator('[data-plugin="InterPodAffinity"] .field-error')).to_have_text(message)
    expect(page.get_by_label("InterPodAffinity hardPodAffinityWeight")).to_have_attribute(
        "aria-invalid", "true")
    screenshot(page, "profile-editor-type-error.png")
