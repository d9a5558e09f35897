"""Helpers for the browser tests: REST calls with the page's session, clones, screenshots."""

from __future__ import annotations

import os
from pathlib import Path

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def cluster_id(pg, name: str) -> int:
    clusters = pg.request.get("/api/clusters/?page_size=200").json()
    rows = clusters["results"] if isinstance(clusters, dict) else clusters
    return next(c["id"] for c in rows if c["name"] == name)


def csrf(pg) -> str:
    return next(c["value"] for c in pg.context.cookies() if c["name"] == "csrftoken")


def api_post(pg, url: str, data: dict | None = None):
    resp = pg.request.post(url, data=data or {}, headers={
        "X-CSRFToken": csrf(pg), "Referer": pg.url or "http://127.0.0.1/"})
    assert resp.ok, f"POST {url}: {resp.status} {resp.text()}"
    return resp.json()


def private_clone(pg, fixture: str, name: str) -> int:
    """A clone of a demo fixture, so a test may change it without touching the others."""
    source = cluster_id(pg, fixture)
    clone = api_post(pg, f"/api/clusters/{source}/clone/", {"name": name})
    return clone["id"]


def screenshots_wanted() -> bool:
    """Whether to write docs/screenshots: only when asked (`pytest --screenshots`, or
    SCREENSHOTS=1), since they are tracked files and a test run must leave the tree clean."""
    return os.environ.get("SCREENSHOTS") == "1"


def screenshot(target, name: str, **kwargs) -> None:
    """docs/screenshots/<name> of a page or a locator (one element), when asked."""
    if not screenshots_wanted():
        return
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    target.screenshot(path=str(SCREENSHOTS / name), **kwargs)


def full_page_screenshot(pg, name: str) -> None:
    """The whole page in one viewport, so sticky bars sit where they belong."""
    if not screenshots_wanted():
        return
    height = pg.evaluate("document.documentElement.scrollHeight")
    size = pg.viewport_size
    pg.set_viewport_size({"width": size["width"], "height": height})
    screenshot(pg, name)
    pg.set_viewport_size(size)
