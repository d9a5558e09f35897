"""The extender lesson in the run view: the extender's verdicts beside the Filter plugins, its
scores beside the Score plugins, and each HTTP exchange (what was sent and received, latency).

The sample extender runs in the test process on a free loopback port; the lesson is imported
with its urlPrefix pointed there (the playground's server calls it, as kube-scheduler would).
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest
from playwright.sync_api import expect

from scheduler_core.extenders.sample import ExtenderServer, Rules
from tests.browser.helpers import api_post
from tests.browser.test_lesson_gpu import start_run

pytestmark = pytest.mark.browser

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "extender-lesson.yaml"
APPROVED, FAST = "extender.example.com/approved", "extender.example.com/fast"


@pytest.fixture
def sample_extender():
    server = ExtenderServer(Rules(require_label=APPROVED, prefer_label=FAST), port=0, quiet=True)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


def test_extender_verdicts_scores_and_calls(page, sample_extender):
    text = FIXTURE.read_text().replace("http://127.0.0.1:8888", sample_extender.url)
    cluster = api_post(page, "/api/clusters/import/", {
        "name": "extender-browser", "files": [{"name": "extender-lesson.yaml", "text": text}],
    })["cluster"]["id"]
    run = start_run(page, cluster)
    page.keyboard.press("c")
    expect(page.locator("#cycle-title")).to_have_text("Cycle #0")
    expect(page.locator("#cycle-summary .outcome")).to_have_text("Bound")
    trace = page.request.get(f"/api/runs/{run}/cycles/0/").json()
    plugin = f"extender:{sample_extender.url}/scheduler"
    assert trace["node"] == "node-2"

    # Filter: the extender is a column of the matrix, and has its own box below.
    page.click('#timeline button[data-point="filter"]')
    matrix = page.locator("table.matrix")
    expect(matrix.locator(f'th[title="{plugin}"]')).to_have_count(1)
    expect(matrix.locator('tbody tr[data-node="node-3"] td').last).to_contain_text("extender")
    box = page.locator(f'.extenders-box .ext-result[data-plugin="{plugin}"]')
    expect(box).to_contain_text("2 passed, 2 failed")
    expect(box).to_contain_text(f"node-3Unschedulablenode(s) didn't have label {APPROVED}")
    call = box.locator(".extender-call")
    expect(call).to_contain_text("filter")
    expect(call.locator(".latency")).to_have_text(re.compile(r"^\d+(\.\d+)? ms$"))
    expect(call).to_contain_text("pod default/web-1, 4 nodes (Nodes)")
    expect(call).to_contain_text("2 passed, 2 failed, 0 failed and unresolvable")

    # Score: the extender's scores (10 for the fast node-2, x5) and its prioritize call.
    page.click('#timeline button[data-point="normalizeScore"]')
    scores = page.locator(f'.extenders-box .ext-result[data-plugin="{plugin}"]')
    expect(scores).to_contain_text("×5")
    expect(scores).to_contain_text("node-2 10 → 500")
    expect(scores.locator(".extender-call")).to_contain_text("prioritize")
    expect(scores.locator(".extender-call")).to_contain_text("2 host priorities")
