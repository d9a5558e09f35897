#!/usr/bin/env python3
"""Browser figures of the run view at 500 and 5,000 nodes (the view's targets).

    .venv/bin/python scripts/bench_run_view.py [--cycles 10] [--large 5000]

It starts the playground on a throw-away SQLite database (embedded mode, the demo data, which
has fixtures/scale-500.yaml), imports a generated cluster of --large nodes
(scripts/make_scale_fixture.py), and drives Debian's /usr/bin/chromium through Playwright:

- page live: from navigation to the socket "live" with every node drawn;
- `c` to full detail: from the key press to the new cycle's Filter matrix or Score table drawn
  from its full trace (the engine's step and the trace's transfer included);
- DOM elements on the page after stepping.

Targets: 5,000 nodes live within 2 s, `c` within 300 ms, at most 15,000 elements; 500 nodes
`c` median within 150 ms. It prints figures, it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
CHROMIUM = "/usr/bin/chromium"
# The embedded mode's own SQLite settings (playground/settings.py), on a throw-away file.
SQLITE_OPTIONS = urllib.parse.urlencode({
    "timeout": 30, "transaction_mode": "IMMEDIATE",
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"})

FULL_DETAIL = """(index) => {
    const title = document.getElementById('cycle-title').textContent;
    const detail = document.getElementById('point-detail');
    return title === `Cycle #${index}`
        && detail.querySelector('table.matrix, table.scores, ul.statuses')
        && !/Loading the full detail|Summary only/.test(detail.textContent);
}"""

LIVE = """(n) => {
    const map = document.querySelector('canvas.node-map');
    return document.getElementById('conn').textContent === 'live'
        && document.getElementById('node-count').textContent === String(n)
        && (document.querySelectorAll('#nodes-grid .node').length === n
            || (map && map.dataset.drawn === String(n)));
}"""


def start_server(workdir: Path) -> tuple[subprocess.Popen, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    db = workdir / "db.sqlite3"
    env.update(DATABASE_URL=f"sqlite:///{db}?{SQLITE_OPTIONS}", DJANGO_DEBUG="1",
               PYTHONUNBUFFERED="1")
    manage = [sys.executable, str(ROOT / "manage.py")]
    for command in (["migrate", "--noinput", "-v", "0"], ["load_demo"]):
        subprocess.run(manage + command, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = open(workdir / "server.log", "w")  # noqa: SIM115 - lives as long as the server
    proc = subprocess.Popen(manage + ["runserver", f"127.0.0.1:{port}", "--noreload"],
                            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            urllib.request.urlopen(f"{base}/static/css/pages.css", timeout=2).read()
            return proc, base
        except OSError:
            time.sleep(0.3)
    proc.kill()
    sys.exit("the server did not start; see " + str(workdir / "server.log"))


def login(page) -> None:
    page.goto("/api/auth/login/?next=/clusters/")
    page.fill("input[name=username]", "demo")
    page.fill("input[name=password]", "demo")
    page.click("[type=submit]")
    page.wait_for_url("**/clusters/")


def post(page, url: str, body: dict) -> dict:
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    resp = page.request.post(url, data=json.dumps(body), timeout=300_000, headers={
        "Content-Type": "application/json", "X-CSRFToken": token, "Referer": page.url})
    if not resp.ok:
        sys.exit(f"POST {url}: {resp.status} {resp.text()[:500]}")
    return resp.json()


def cluster_named(page, name: str) -> int:
    rows = page.request.get("/api/clusters/?page_size=200").json()
    rows = rows["results"] if isinstance(rows, dict) else rows
    return next(c["id"] for c in rows if c["name"] == name)


def import_large(page, nodes: int) -> int:
    import make_scale_fixture as fixture

    text = fixture.render(fixture.documents(nodes, 2000), f"bench {nodes}")
    body = {"name": f"bench-{nodes}", "files": [{"name": "bench.yaml", "text": text}]}
    return post(page, "/api/clusters/import/", body)["cluster"]["id"]


def measure(page, cluster: int, nodes: int, cycles: int) -> dict:
    run = post(page, "/api/runs/", {"cluster": cluster, "seed": 1})
    # When each cycle's trace (its last frame) reached the browser: what follows is the page's.
    detail_frames: list[float] = []

    def frame(payload):
        text = payload if isinstance(payload, str) else payload.decode()
        if text.startswith(('{"type":"cycle_detail"', '{"type":"cycle_detail_part"')):
            detail_frames.append(time.perf_counter())

    page.on("websocket", lambda ws: ws.on("framereceived", frame))
    started = time.perf_counter()
    page.goto(f"/runs/{run['id']}/")
    page.wait_for_function(LIVE, arg=nodes, timeout=120_000, polling="raf")
    live = time.perf_counter() - started
    page.wait_for_timeout(1500)  # let the REST state arrive before timing the keys
    steps, client = [], []
    for i in range(cycles):
        t0 = time.perf_counter()
        page.keyboard.press("c")
        page.wait_for_function(FULL_DETAIL, arg=i, timeout=120_000, polling="raf")
        done = time.perf_counter()
        steps.append(done - t0)
        arrived = [t for t in detail_frames if t0 < t <= done]
        client.append(done - arrived[-1] if arrived else 0.0)
        page.wait_for_timeout(300)
    dom = page.evaluate("document.getElementsByTagName('*').length")
    return {"live": live, "steps": steps, "client": client, "dom": dom}


def report(label: str, fig: dict) -> None:
    ms = [round(s * 1000) for s in fig["steps"]]
    page_ms = [round(s * 1000) for s in fig["client"]]
    print(f"{label}: page live {fig['live']:.2f} s · `c` to full detail median "
          f"{statistics.median(ms)} ms (min {min(ms)}, max {max(ms)}, n={len(ms)}), of which "
          f"the page after the trace arrived: median {statistics.median(page_ms)} ms · "
          f"{fig['dom']} DOM elements")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=10)
    parser.add_argument("--large", type=int, default=5000)
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        proc, base = start_server(Path(tmp))
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=[
                    "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
                context = browser.new_context(viewport={"width": 1440, "height": 1000},
                                              base_url=base)
                page = context.new_page()
                login(page)
                small = measure(page, cluster_named(page, "scale-500"), 500, args.cycles)
                large_id = import_large(page, args.large)
                large = measure(page, large_id, args.large, args.cycles)
                browser.close()
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    report("500 nodes", small)
    report(f"{args.large} nodes", large)
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print("targets: 5,000 nodes live <= 2 s, `c` <= 300 ms, <= 15,000 elements; "
          "500 nodes `c` median <= 150 ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
