"""Suite-wide pytest wiring (tests/ and scheduler_core/).

Tests marked ``services`` need real PostgreSQL and Redis. Without ``--services`` they are
deselected. With ``--services`` they run, DATABASE_URL and REDIS_URL must be set, and an
unreachable server makes them fail: nothing in them ever skips.
"""

import os

import pytest

SERVICES_VARIABLES = ("DATABASE_URL", "REDIS_URL")


def pytest_addoption(parser):
    parser.addoption(
        "--services",
        action="store_true",
        default=False,
        help="also run tests marked 'services' (need DATABASE_URL and REDIS_URL)",
    )
    parser.addoption(
        "--screenshots",
        action="store_true",
        default=False,
        help="let the browser tests rewrite docs/screenshots (same as SCREENSHOTS=1)",
    )


def pytest_configure(config):
    if config.getoption("--screenshots"):
        # Read by tests/browser/helpers.screenshots_wanted, in this process.
        os.environ["SCREENSHOTS"] = "1"
    if config.getoption("--services"):
        missing = [name for name in SERVICES_VARIABLES if not os.environ.get(name)]
        if missing:
            raise pytest.UsageError(
                f"--services needs {' and '.join(missing)} set, e.g. "
                "DATABASE_URL=postgres://postgres@127.0.0.1:5432/test "
                "REDIS_URL=redis://127.0.0.1:6379/0"
            )


def pytest_collection_modifyitems(config, items):
    if config.getoption("--services"):
        return
    kept, deselected = [], []
    for item in items:
        (deselected if item.get_closest_marker("services") else kept).append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = kept


@pytest.fixture(autouse=True)
def _embedded_tasks_run_inline(request):
    """Embedded-mode tasks run inline at commit in tests, so their effects are visible.

    Engine tests run without Django too (`-p no:django`), so settings are asked for lazily.
    """
    if not request.config.pluginmanager.hasplugin("django"):
        return
    request.getfixturevalue("settings").PLAYGROUND_TASKS_SYNC = True
