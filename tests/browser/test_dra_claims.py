"""The GPU lesson done with DynamicResources in the run view: the claims a cycle allocated at
Reserve (devices as driver/pool/device, the node they pin the claim to), the reservation PreBind
wrote, admin access marked, and the claim pod that no node can serve."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import private_clone, screenshot
from tests.browser.test_lesson_gpu import run_to_end, start_run
from tests.browser.test_storage_and_gang import show_cycle

pytestmark = pytest.mark.browser


def claims_at(page, point: str):
    page.click(f'#timeline button[data-point="{point}"]')
    expect(page.locator('#timeline button[aria-pressed="true"]')).to_have_attribute(
        "data-point", point)
    return page.locator(f'#point-detail .claim-decisions[data-point="{point}"]')


def test_gpu_dra_lesson_shows_allocations_reservations_and_admin_access(page):
    cluster = private_clone(page, "gpu-dra-lesson", "gpu-dra-browser")
    run = start_run(page, cluster)
    bindings = run_to_end(page, run)
    assert bindings["default/train-1"] == "gpu-node-2"
    assert bindings["default/train-wide"] is None

    # train-1: Reserve allocates two GPUs of one PCIe root from its template's claim...
    show_cycle(page, 3, "default/train-1")
    reserve = claims_at(page, "reserve")
    line = reserve.locator("li")
    expect(line).to_have_count(1)
    expect(line).to_contain_text("Reserve allocated (in flight)")
    expect(line).to_contain_text("claim default/train-1-gpus-")
    expect(line.locator(".chip")).to_have_text(["gpu.example.com/gpu-node-2/gpu-0",
                                                "gpu.example.com/gpu-node-2/gpu-1"])
    expect(line).to_contain_text("only on metadata.name In gpu-node-2")
    screenshot(page, "dra-reserve.png", full_page=True)
    # ...and PreBind writes it with the pod in reservedFor.
    expect(claims_at(page, "preBind").locator("li")).to_contain_text(
        "PreBind wrote allocation, reserved for default/train-1")

    # infer-b shares infer-a's claim: nothing to allocate, only the reservation.
    show_cycle(page, 6, "default/infer-b")
    expect(claims_at(page, "preBind").locator("li")).to_have_text(
        "reserved for default/infer-b claim default/shared-a100")

    # The monitor's admin access takes every GPU of its node without using them up.
    show_cycle(page, 7, "gpu-monitoring/gpu-monitor")
    expect(claims_at(page, "reserve").locator(".badge")).to_have_count(4)

    # train-wide: no node can satisfy the constraint.
    show_cycle(page, 8, "default/train-wide")
    expect(page.locator("#cycle-message")).to_contain_text("5 cannot allocate all claims")


def test_dra_releases_lesson_shows_taints_counters_and_the_extended_resource_claim(page):
    cluster = private_clone(page, "dra-releases-lesson", "dra-releases-browser")
    run = start_run(page, cluster)
    bindings = run_to_end(page, run)
    assert bindings["default/ext"] == "a100-node" and bindings["default/half"] is None

    # whole: the H100 consumes all of its counter set's memory, which leaves no half.
    show_cycle(page, 0, "default/whole")
    device = claims_at(page, "reserve").locator('[data-device="gpu.example.com/h100-node/gpu-0"]')
    expect(device.locator('[data-fact="counter"]')).to_have_text(
        " consumes memory 80Gi of 80Gi (gpu-0-memory)")

    # ext: the claim for its example.com/gpu is created at PreBind.
    show_cycle(page, 2, "default/ext")
    expect(claims_at(page, "preBind").locator("li")).to_contain_text(
        "PreBind created the claim for the pod's extended resources")

    # tolerant: the tainted A100, its taint tolerated by the request.
    show_cycle(page, 4, "default/tolerant")
    device = claims_at(page, "reserve").locator('[data-device="gpu.example.com/a100-node/gpu-0"]')
    expect(device.locator('[data-fact="taint"]')).to_have_text(
        "taint maintenance=true:NoSchedule")
    expect(device.locator('[data-fact="tolerations"]')).to_have_text(
        " tolerated by the request (1)")
    screenshot(page, "dra-taints-counters.png", full_page=True)
