"""Hide until reveal on the projector, for a question of each kind: the asked cycle shows
walked up to the question's point (the pod, and what came before the point) and no further,
while the nodes, the cycle panel and the lesson stay on screen; the counts, the queues and the
panels drawn from after the cycle are hidden. After the reveal the cycle shows whole.
Screenshots (with --screenshots): the presenter view at 1280x720 with each kind of question
open."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import CHROMIUM, DEMO_PASSWORD, DEMO_USER, browser, live_app  # noqa: F401
from tests.browser.helpers import api_post, cluster_id, screenshot

pytestmark = pytest.mark.browser

# point -> (lesson, asked cycle, the point the projector stops at, what the cycle's outcome
# would show: text that must not be on the projector until the reveal).
CASES = {
    # Cycle #3 of taints-affinity: likes-b goes to node-b (692 against node-a's 480).
    "Filter": ("taints-affinity", 3, "PreFilter", ("692", "480", "→ node-b", "✓ feasible")),
    "Score": ("taints-affinity", 3, "PreScore", ("692", "480", "→ node-b", "★")),
    # Cycle #0 of the preemption lesson: urgent fits nowhere and evicts batch-1 and batch-2
    # from node-1.
    "PostFilter": ("preemption-lesson", 0, "Filter", ("⚑ nominated", "preemption: 0/3")),
}


def sign_in(pg):
    pg.goto("/login/")
    pg.fill("input[name=username]", DEMO_USER)
    pg.fill("input[name=password]", DEMO_PASSWORD)
    pg.click("button[type=submit]")
    pg.wait_for_url(lambda url: "/login/" not in url)


def workshop_on(pg, lesson: str) -> str:
    """A workshop presenting `lesson`; its code."""
    code = api_post(pg, "/api/workshops/", {"title": f"hide {lesson}",
                                            "lessons": [cluster_id(pg, lesson)]})["code"]
    api_post(pg, f"/api/workshops/{code}/present/", {"lesson": 0})
    return code


@pytest.mark.parametrize("point", list(CASES))
def test_the_projector_hides_what_the_question_asks_and_shows_the_rest(browser, live_app,  # noqa: F811
                                                                        point):
    lesson, asked, shown_up_to, outcome = CASES[point]
    context = browser.new_context(viewport={"width": 1280, "height": 720}, base_url=live_app)
    context.set_default_timeout(20_000)
    pg = context.new_page()
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    sign_in(pg)
    code = workshop_on(pg, lesson)
    pg.goto(f"/workshops/{code}/present/")
    expect(pg.locator("#stat-cycles")).to_have_text("0")
    for step in range(1, asked + 1):
        pg.click("#btn-cycle")
        expect(pg.locator("#stat-cycles")).to_have_text(str(step))
    pg.select_option("#presenter-point", point)
    pg.click("#presenter-ask")
    expect(pg.locator("#presenter-tally")).to_contain_text("0 predictions")
    pg.click("#btn-cycle")
    expect(pg.locator("#stat-cycles")).to_have_text(str(asked + 1))

    # The asked cycle, walked up to the last point the room may see, and no further.
    expect(pg.locator("#conceal-note")).to_contain_text(f"Cycle {asked}, {point}")
    expect(pg.locator("#cycle-title")).to_have_text(f"Cycle #{asked}")
    expect(pg.locator("#cycle-summary")).to_contain_text(f"walking: {shown_up_to}")
    expect(pg.locator("#cycle-summary .outcome")).to_have_count(0)
    asked_point = {"Filter": "filter", "Score": "score", "PostFilter": "postFilter"}[point]
    expect(pg.locator(f"#timeline button[data-point={asked_point}]")).to_have_class(
        "point future")
    # The rest of the view stays: the nodes and the lesson.
    expect(pg.locator(".nodes-panel")).to_be_visible()
    expect(pg.locator(".cycle-panel")).to_be_visible()
    expect(pg.locator("#lesson-panel")).to_be_visible()
    # What the cycle's outcome would give away does not show.
    expect(pg.locator(".queues")).to_be_hidden()
    expect(pg.locator("#stat-bound")).to_be_hidden()
    expect(pg.locator(".chip.victim")).to_have_count(0)
    expect(pg.locator(".chip.new")).to_have_count(0)
    if point == "Filter":
        expect(pg.locator("#timeline button[data-point=filter]")).to_have_class("point future")
    else:
        # Filter's verdicts are what the room reasons from at Score and PostFilter.
        pg.locator("#timeline button[data-point=filter]").click()
        expect(pg.locator("table.matrix")).to_be_visible()
        expect(pg.locator("table.scores")).to_have_count(0)
    shown = pg.evaluate("document.body.innerText")
    for text in outcome:
        assert text not in shown, text
    pg.evaluate("window.scrollTo(0, 0)")
    screenshot(pg, f"workshop-presenter-hidden-{point.lower()}.png")

    question = pg.request.get(f"/api/workshops/{code}/").json()["open_question"]
    api_post(pg, f"/api/workshops/{code}/questions/{question['id']}/reveal/")
    expect(pg.locator("#conceal-note")).to_be_hidden()
    expect(pg.locator("#cycle-title")).to_have_text(f"Cycle #{asked}")
    expect(pg.locator("#cycle-summary .outcome")).to_be_visible()
    expect(pg.locator(".queues")).to_be_visible()
    if point == "PostFilter":
        expect(pg.locator(".chip.victim")).not_to_have_count(0)
    else:
        expect(pg.locator("#cycle-summary")).to_contain_text("→ node-b")
    assert not errors, errors
    context.close()
