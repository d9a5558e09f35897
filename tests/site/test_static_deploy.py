"""Deployed with DEBUG off, the run view loads every ES module under its hashed name, so a
browser never mixes the code of two deploys (playground.site.storage)."""

from __future__ import annotations

import json
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT, clean_env

TEMPLATES = ROOT / "playground" / "templates" / "playground"
ENTRY = re.compile(r"""<script type="module" src="\{% static '(?P<path>[^']+)' %\}">""")
# Static imports and re-exports (a statement at the start of a line), bare imports, import().
IMPORT = re.compile(r"""^\s*(?:import|export)\b[^;"'`]*?\bfrom\s*["'](?P<url>[^"']+)["']"""
                    r"""|^\s*import\s*["'](?P<bare>[^"']+)["']"""
                    r"""|\bimport\(\s*["'](?P<dynamic>[^"']+)["']\s*\)""", re.MULTILINE)
HASHED = re.compile(r"\.[0-9a-f]{12}\.js$")
COLLECT = """
import sys
import django
from django.conf import settings
settings.STATIC_ROOT = sys.argv[1]
django.setup()
from django.core.management import call_command
call_command("collectstatic", interactive=False, verbosity=0)
"""


def entry_modules() -> list[str]:
    """The modules the run page's template (and the base it extends) start."""
    pages = (TEMPLATES / "base.html", TEMPLATES / "pages" / "run.html")
    return sorted({m["path"] for page in pages for m in ENTRY.finditer(page.read_text())})


def walk(root: Path, entries: list[str]) -> dict[str, list[str]]:
    """Every module reachable from `entries` under `root` -> the specifiers it imports."""
    seen: dict[str, list[str]] = {}
    todo = list(entries)
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        text = (root / path).read_text()
        seen[path] = [m["url"] or m["bare"] or m["dynamic"] for m in IMPORT.finditer(text)]
        todo += [_join(path, url) for url in seen[path]]
    return seen


def _join(path: str, url: str) -> str:
    """The static path `url` (relative: every import of frontend/js is) names from `path`."""
    assert url.startswith("."), f"{path} imports {url}: not a relative module URL"
    parts: list[str] = path.split("/")[:-1]
    for piece in url.split("/"):
        if piece == "..":
            parts.pop()
        elif piece not in (".", ""):
            parts.append(piece)
    return "/".join(parts)


@pytest.fixture(scope="module")
def collected(tmp_path_factory) -> Path:
    """collectstatic as a deploy runs it (DEBUG off), into a directory of the test's own."""
    static = tmp_path_factory.mktemp("static")
    env = clean_env(DJANGO_DEBUG="0", DJANGO_SECRET_KEY=secrets.token_urlsafe(64),
                    DJANGO_ALLOWED_HOSTS="playground.example.com")
    done = subprocess.run([sys.executable, "-c", COLLECT, str(static)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return static


def test_every_module_the_run_view_loads_has_a_hashed_url(collected):
    manifest = json.loads((collected / "staticfiles.json").read_text())["paths"]
    entries = entry_modules()
    assert "js/run/main.js" in entries
    source = walk(ROOT / "frontend", entries)
    deployed = walk(collected, [manifest[entry] for entry in entries])
    plain = [f"{path} imports {url}" for path, urls in deployed.items() for url in urls
             if not HASHED.search(url)]
    assert plain == []
    # The same modules, each under its hashed name: none left out of the walk.
    assert len(deployed) == len(source) > 20
    assert sorted(manifest[path] for path in source) == sorted(deployed)
