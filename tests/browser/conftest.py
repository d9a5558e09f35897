"""Browser tests: the real app in a subprocess (daphne's runserver: HTTP, static files and
WebSockets), its own SQLite file with the demo data, driven by Playwright through Debian's
/usr/bin/chromium (never a browser Playwright downloads).

pytest-django's live_server is WSGI-only, so the server here is a separate process; the tests
reach the database only through the app (the browser, and page.request for the REST API).
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
DEMO_USER, DEMO_PASSWORD = "demo", "demo"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _server_env(db: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    # Embedded mode on a throwaway database (the repository's db.sqlite3 stays untouched);
    # DEBUG on so runserver serves frontend/ without collectstatic.
    env["DATABASE_URL"] = f"sqlite:///{db}?timeout=30&transaction_mode=IMMEDIATE"
    env["DJANGO_DEBUG"] = "1"
    env["PYTHONUNBUFFERED"] = "1"
    return env


@pytest.fixture(scope="session")
def live_app(tmp_path_factory):
    """Base URL of a running playground with the demo user and the fixtures loaded."""
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium (./scripts/test does)")
    workdir = tmp_path_factory.mktemp("browser-app")
    env = _server_env(workdir / "db.sqlite3")
    manage = [sys.executable, str(ROOT / "manage.py")]
    for command in (["migrate", "--noinput", "-v", "0"], ["load_demo"]):
        subprocess.run(manage + command, cwd=ROOT, env=env, check=True,
                       stdout=subprocess.DEVNULL)
    port = _free_port()
    log = open(workdir / "server.log", "w")  # noqa: SIM115 - closed at teardown
    proc = subprocess.Popen(manage + ["runserver", f"127.0.0.1:{port}", "--noreload"],
                            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"{base}/static/css/pages.css", timeout=2).read()
            break
        except (urllib.error.URLError, ConnectionError):
            if proc.poll() is not None or time.monotonic() > deadline:
                log.close()
                pytest.fail("the server did not start:\n" + (workdir / "server.log").read_text())
            time.sleep(0.3)
    yield base
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


@pytest.fixture(scope="module")
def browser():
    # Module scope: Playwright's sync API keeps an event loop running in this thread while it
    # is open, which later (non-browser) tests that call asyncio.run() must not find.
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        yield b
        b.close()


class ConsoleErrors(list):
    """Console errors of a page; a test that provokes an HTTP error on purpose allows it."""

    def __init__(self):
        super().__init__()
        self.allowed: list[re.Pattern] = []

    def allow(self, pattern: str) -> None:
        self.allowed.append(re.compile(pattern))

    def check(self):
        left = [e for e in self if not any(p.search(e) for p in self.allowed)]
        assert not left, "browser console errors:\n" + "\n".join(left)


@pytest.fixture
def page(browser, live_app):
    """A logged-in page (as the demo user); fails the test on any console error after login."""
    context = browser.new_context(viewport={"width": 1440, "height": 1000}, base_url=live_app,
                                  accept_downloads=True)
    context.set_default_timeout(15_000)
    pg = context.new_page()
    pg.goto("/api/auth/login/?next=/clusters/")
    pg.fill("input[name=username]", DEMO_USER)
    pg.fill("input[name=password]", DEMO_PASSWORD)
    pg.click("[type=submit]")
    pg.wait_for_url("**/clusters/")
    errors = ConsoleErrors()
    pg.on("console", lambda m: errors.append(f"{m.type}: {m.text} ({m.location})")
          if m.type == "error" else None)
    pg.on("pageerror", lambda e: errors.append(f"page error: {e}"))
    pg.console_errors = errors
    yield pg
    context.close()
    errors.check()
