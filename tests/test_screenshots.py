"""The browser tests write docs/screenshots (tracked files) only when asked."""

from tests.browser import helpers


class Target:
    """Stands for a Playwright page or locator: records what it was asked to write."""

    def __init__(self):
        self.calls = []

    def screenshot(self, **kwargs):
        self.calls.append(kwargs)


def test_a_test_run_writes_no_screenshot_unless_asked(tmp_path, monkeypatch):
    monkeypatch.setattr(helpers, "SCREENSHOTS", tmp_path / "shots")
    monkeypatch.delenv("SCREENSHOTS", raising=False)
    target = Target()
    helpers.screenshot(target, "run-view.png", full_page=True)
    helpers.full_page_screenshot(target, "compare.png")
    assert target.calls == []
    assert not (tmp_path / "shots").exists()


def test_asked_it_writes_each_one_under_docs_screenshots(tmp_path, monkeypatch):
    monkeypatch.setattr(helpers, "SCREENSHOTS", tmp_path / "shots")
    monkeypatch.setenv("SCREENSHOTS", "1")
    target = Target()
    helpers.screenshot(target, "run-view.png", full_page=True)
    assert target.calls == [{"path": str(tmp_path / "shots" / "run-view.png"), "full_page": True}]
    assert (tmp_path / "shots").is_dir()
