"""A workshop's kube-scheduler release and feature gates in Chromium: the trainer picks them on
the create form (a gate kube-scheduler refuses is shown by field and the input marked), the
trainer's and the attendee's pages show them, and the attendee's sandbox run follows them."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import CHROMIUM, browser, live_app  # noqa: F401
from tests.browser.helpers import screenshot
from tests.workshops.test_browser_workshop import join, new_page, sign_in

pytestmark = pytest.mark.browser

GATES = "GenericWorkload=true,GangScheduling=true"


def test_the_trainer_sets_the_release_and_gates_and_the_sandbox_run_follows_them(
        browser, live_app):  # noqa: F811
    trainer = new_page(browser, live_app)
    trainer.console_errors = []
    sign_in(trainer)
    trainer.locator("#lesson-choices label", has_text="taints-affinity").first.locator(
        "input").check()
    trainer.fill("#create-form input[name=title]", "Gangs under v1.36")
    trainer.select_option("#workshop-release", "1.36")
    # GangScheduling alone: v1.36 refuses it, as its dependency GenericWorkload is off.
    trainer.get_by_label("Feature gates of the workshop's runs").fill("GangScheduling=true")
    trainer.click("#create-form button[type=submit]")
    expect(trainer.locator("#create-status")).to_contain_text(
        "feature_gates: GangScheduling is enabled, but depends on features that are disabled: "
        "[GenericWorkload]")
    expect(trainer.locator("#workshop-gates")).to_have_class("invalid")
    screenshot(trainer.locator("#create-panel"), "workshop-create-gates.png")
    trainer.get_by_label("Feature gates of the workshop's runs").fill(GATES)
    trainer.click("#create-form button[type=submit]")
    trainer.wait_for_url("**/workshops/*/")
    code = trainer.locator("#join-code").inner_text().strip()
    expect(trainer.locator("#ws-release")).to_have_text(f"kube-scheduler v1.36 · gates {GATES}")
    trainer.click("#present-link")
    trainer.click("#present-first")
    expect(trainer.locator("#run-view")).to_be_visible()

    ana = new_page(browser, live_app)
    join(ana, code, "Ana")
    expect(ana.locator("#ws-release")).to_have_text(f"kube-scheduler v1.36 · gates {GATES}")
    ana.click("#btn-detach")
    expect(ana.locator("#mode")).to_have_text("detached: your own run")
    [sandbox] = ana.request.get(f"/api/workshops/{code}/sandboxes/").json()
    run = ana.request.get(f"/api/runs/{sandbox['run']['id']}/").json()
    assert (run["release"], run["feature_gates"]) == (
        "1.36", {"GenericWorkload": True, "GangScheduling": True})
    trainer.goto("/workshops/")
    expect(trainer.locator(f"#workshop-list article[data-code={code}]")).to_contain_text(
        f"v1.36 · gates {GATES}")
    for pg in (trainer, ana):
        assert not pg.errors, pg.errors
        pg.context.close()
