"""A workshop in Chromium: one trainer and three attendees, each in their own context.

Everyone joins; the attendees follow the trainer, who asks a question at Score; three
predictions arrive and the tally shows three; after the reveal each attendee sees right or
wrong; a detached attendee steps their own run without affecting the others; resetting one
sandbox leaves the others untouched. While the question is open, the projector hides the
outcome, the presenter's run is not found to an attendee and their sandbox waits for the
reveal; lessons come in the order ticked, the presenter view of a new workshop offers to
present lesson 1, the header names who is signed in. Screenshots: the presenter view at
1280x720 with the question open (the outcome hidden) and revealed, an attendee's view before
and after the reveal.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import CHROMIUM, DEMO_PASSWORD, DEMO_USER, browser, live_app  # noqa: F401
from tests.browser.helpers import screenshot

pytestmark = pytest.mark.browser

# Cycle #3 of the taints-affinity lesson (seed 1): likes-b goes to node-b (692 against node-a's
# 480), NodeAffinity's preference for zone-b making the difference.
ASKED = 3
PICKS = {"Ana": "node-b", "Ben": "node-b", "Cleo": "node-a"}


def new_page(browser, live_app):  # noqa: F811
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=live_app)
    context.set_default_timeout(20_000)
    return watched(context.new_page())


def watched(pg):
    """The page, keeping its script errors."""
    pg.errors = []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    return pg


def sign_in(pg):
    pg.goto("/workshops/")
    pg.wait_for_url("**/login/**")
    expect(pg.get_by_role("heading", name="Sign in")).to_be_visible()
    pg.fill("input[name=username]", DEMO_USER)
    pg.fill("input[name=password]", DEMO_PASSWORD)
    pg.click("button[type=submit]")
    pg.wait_for_url("**/workshops/")


def create_workshop(pg) -> str:
    """Two lessons, ticked in the order they are to be presented (not the list's)."""
    for lesson in ("taints-affinity", "spread-antiaffinity"):
        pg.locator("#lesson-choices label", has_text=lesson).first.locator("input").check()
    expect(pg.locator("#lesson-choices label", has_text="spread-antiaffinity").first.locator(
        ".lesson-order")).to_have_text("2")
    pg.fill("#create-form input[name=title]", "Filter and Score, live")
    pg.click("#create-form button[type=submit]")
    pg.wait_for_url("**/workshops/*/")
    return pg.locator("#join-code").inner_text().strip()


def join(pg, code: str, name: str):
    pg.goto("/join/")
    pg.fill("input[name=code]", code.lower())
    pg.fill("input[name=display_name]", name)
    pg.click("button[type=submit]")
    pg.wait_for_url(f"**/workshops/{code}/")
    expect(pg.locator("#me")).to_have_text(name)
    expect(pg.locator("#conn")).to_have_text("live")


def test_a_trainer_and_three_attendees(browser, live_app):  # noqa: F811
    trainer = new_page(browser, live_app)
    sign_in(trainer)
    code = create_workshop(trainer)
    expect(trainer.locator("#lessons li").nth(0)).to_contain_text("1. taints-affinity")
    expect(trainer.locator("#lessons li").nth(1)).to_contain_text("2. spread-antiaffinity")
    # Nothing presented yet: every lesson says Present, and the presenter view offers lesson 1.
    expect(trainer.locator("#lessons button", has_text="Present again")).to_have_count(0)
    trainer.click("#present-link")
    expect(trainer.get_by_role("heading", name="Nothing is on the projector yet")).to_be_visible()
    trainer.click("#present-first")
    expect(trainer.locator("#run-view")).to_be_visible()
    trainer.goto(f"/workshops/{code}/")
    expect(trainer.locator("#lessons li.current")).to_contain_text("run #")
    expect(trainer.locator("#lessons li.current button")).to_have_text("Present again")
    expect(trainer.locator("#lessons li").nth(1).locator("button")).to_have_text("Present")
    expect(trainer.locator("#signed-in-as")).to_have_text(DEMO_USER)

    attendees = {}
    for name in PICKS:
        pg = new_page(browser, live_app)
        join(pg, code, name)
        expect(pg.locator("#stat-cycles")).to_have_text("0")
        # The header names the attendee, offers to sign out, and no API docs or admin.
        expect(pg.locator("#signed-in-as")).to_have_text(name)
        expect(pg.locator(".site-nav a", has_text="API docs")).to_have_count(0)
        expect(pg.locator(".site-nav a", has_text="Admin")).to_have_count(0)
        attendees[name] = pg
    trainer.reload()
    expect(trainer.locator("#att-count")).to_have_text("3")

    # The presenter walks three cycles, asks at Score about the next one, then steps it.
    presenter = watched(trainer.context.new_page())
    presenter.set_viewport_size({"width": 1280, "height": 720})
    presenter.goto(f"/workshops/{code}/present/")
    for step in range(1, ASKED + 1):
        presenter.click("#btn-cycle")
        for pg in attendees.values():
            expect(pg.locator("#stat-cycles")).to_have_text(str(step))
    expect(attendees["Ana"].locator("#stat-bound")).to_have_text("2")
    # The projector keeps the display buttons and the saved font size (not forced large).
    expect(presenter.locator(".presenter-bar .pref-btn")).to_have_count(2)
    assert presenter.evaluate("getComputedStyle(document.documentElement).fontSize") == "16px"
    presenter.select_option("#presenter-point", "Score")
    presenter.click("#presenter-ask")
    expect(presenter.locator("#presenter-tally")).to_contain_text("0 predictions")
    # Asking lets go of the focus and waits for the reveal: Space cannot ask twice.
    expect(presenter.locator("#presenter-ask")).to_be_disabled()
    assert presenter.evaluate("document.activeElement.id") != "presenter-ask"
    expect(presenter.locator("#presenter-msg")).to_be_hidden()
    presenter.click("#btn-cycle")
    for pg in attendees.values():
        expect(pg.locator("#stat-cycles")).to_have_text(str(ASKED + 1))
        expect(pg.locator("#stat-hidden")).to_be_visible()
        expect(pg.locator("#cycles li").first).to_contain_text("hidden until the reveal")
        expect(pg.locator("#stat-bound")).to_have_text("?")
        # Filter's verdicts of the asked cycle show; its scores and outcome do not.
        expect(pg.locator("#cycle-detail")).to_contain_text("Score: hidden until the reveal")
        expect(pg.locator("#cycle-detail .verdicts")).to_contain_text("node-b")

    # While the question is open nothing the room can reach shows the outcome: the presenter's
    # run is not found to them, and their own sandbox waits for the reveal.
    presenter_run = trainer.request.get(f"/api/workshops/{code}/").json()["presenter_run"]
    ben = attendees["Ben"]
    assert ben.goto(f"/runs/{presenter_run}/").status == 404
    assert ben.request.get(f"/api/runs/{presenter_run}/cycles/{ASKED}/").status == 404
    ben.goto(f"/workshops/{code}/")
    expect(ben.locator("#conn")).to_have_text("live")
    ben.click("#btn-detach")
    expect(ben.locator("#notices")).to_contain_text(f"a question on cycle {ASKED} is open")
    expect(ben.locator("#mode")).to_have_text("following the presenter")
    expect(ben.locator("#predict-form")).to_be_visible()

    for name, pg in attendees.items():
        pg.locator("#predict-form label", has_text=PICKS[name]).locator("input").check()
        pg.click("#predict-form button[type=submit]")
        expect(pg.locator("#predict-status")).to_contain_text("Prediction sent")
    expect(trainer.locator("#tally-count")).to_have_text("3")
    expect(presenter.locator("#presenter-tally .tally-count")).to_have_text("3")
    screenshot(attendees["Cleo"], "workshop-attendee-before-reveal.png")
    # The projector hides the asked cycle until the reveal: no winner, no totals, no counts.
    expect(presenter.locator("#conceal-note")).to_contain_text(f"Cycle {ASKED}, Score")
    shown = presenter.evaluate("document.body.innerText")
    for outcome in ("692", "480", "Bound", "→ node-b", "winner", "bound 3"):
        assert outcome not in shown, outcome
    presenter.evaluate("window.scrollTo(0, 0)")
    screenshot(presenter, "workshop-presenter-question-open.png")

    trainer.click("#btn-reveal")
    expect(trainer.locator("#past-questions li")).to_have_count(1)   # the reveal is stored
    expect(presenter.locator("#conceal-note")).to_be_hidden()
    presenter.locator("#timeline li", has_text=re.compile(r"^\s*Score\s*$")).click()
    expect(presenter.locator("#point-detail")).to_contain_text("NodeAffinity")
    presenter.evaluate("window.scrollTo(0, 0)")
    screenshot(presenter, "workshop-presenter-revealed.png")
    # Every column of the Score table shows, the total included, in each of its modes.
    for mode in ("all", "weighted", "raw"):
        presenter.check(f"input[name=score-mode][value={mode}]")
        wrap = presenter.locator(".score-wrap")
        assert wrap.evaluate("w => w.scrollWidth <= w.clientWidth"), mode
        expect(presenter.locator("table.scores thead")).to_contain_text("total")
    # Presenter mode fits the projector: no horizontal scroll anywhere on the page.
    assert presenter.evaluate("document.documentElement.scrollWidth") <= 1280

    answer = trainer.request.get(f"/api/workshops/{code}/questions/").json()[-1]["answer"]
    for name, pg in attendees.items():
        right = [PICKS[name]] == answer["answer"]
        expect(pg.locator("#verdict")).to_have_text("Right!" if right else "Wrong")
        expect(pg.locator("#question")).to_contain_text(answer["plugin"] or "Decided by")
        expect(pg.locator("#stat-hidden")).to_be_hidden()
        expect(pg.locator("#cycle-detail")).to_contain_text("Score (weighted)")
    # Score heads wrap between the words of a plugin's name, never inside one.
    head = attendees["Cleo"].locator("#cycle-detail .score-mini th[title=NodeAffinity]")
    assert head.evaluate("th => th.innerHTML") == "Node<wbr>Affinity"
    assert answer["answer"] == ["node-b"] and answer["plugin"] == "NodeAffinity"
    screenshot(attendees["Cleo"], "workshop-attendee-after-reveal.png")

    # Ana detaches and steps her own run from the same point; the presenter's run and the
    # other attendees stay where they were.
    at = ASKED + 1
    ana = attendees["Ana"]
    ana.click("#btn-detach")
    expect(ana.locator("#mode")).to_contain_text("detached")
    expect(ana.locator("#stat-cycles")).to_have_text(str(at))
    ana.click("#btn-step")
    expect(ana.locator("#stat-cycles")).to_have_text(str(at + 1), timeout=30_000)
    ana.click("#btn-step")
    expect(ana.locator("#stat-cycles")).to_have_text(str(at + 2), timeout=30_000)
    workshop = trainer.request.get(f"/api/workshops/{code}/").json()
    presented = trainer.request.get(f"/api/runs/{workshop['presenter_run']}/").json()
    assert presented["cycle_count"] == at
    for name in ("Ben", "Cleo"):
        expect(attendees[name].locator("#stat-cycles")).to_have_text(str(at))

    # Resetting Ben's sandbox leaves Ana's (and her run) and Cleo's untouched.
    trainer.reload()
    trainer.once("dialog", lambda d: d.accept())
    trainer.locator("#sandboxes tr[data-attendee=Ben] button", has_text="Reset").first.click()
    expect(trainer.locator("#sandbox-status")).to_contain_text("Ben's sandbox is back")
    expect(attendees["Ben"].locator("#notices")).to_contain_text("reset your sandbox")
    boxes = {s["display_name"]: s for s in
             trainer.request.get(f"/api/workshops/{code}/sandboxes/").json() if s["lesson"] == 0}
    assert boxes["Ben"]["reset_count"] == 1
    assert boxes["Ana"]["reset_count"] == 0 and boxes["Ana"]["run"]["cycle_count"] == at + 2
    assert boxes["Cleo"]["reset_count"] == 0
    # Only Ana's detach made a private copy; the trainer's read-only view says so.
    assert boxes["Ana"]["copied"] and not boxes["Cleo"]["copied"]
    cleo_view = trainer.context.new_page()
    cleo_view.goto(boxes["Cleo"]["view_path"])
    expect(cleo_view.locator("#sandbox-run")).to_contain_text("Not copied yet")
    expect(cleo_view.locator("#nodes .ws-node")).to_have_count(5)
    cleo_view.close()
    expect(ana.locator("#stat-cycles")).to_have_text(str(at + 2), timeout=30_000)
    ana.click("#btn-attach")
    expect(ana.locator("#mode")).to_have_text("following the presenter")
    expect(ana.locator("#stat-cycles")).to_have_text(str(at))

    for pg in [trainer, presenter, *attendees.values()]:
        assert pg.errors == [], pg.errors
