"""The pages' pure JavaScript (frontend/js/tests/, node's own test runner) runs with pytest,
so CI runs it too."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_node_tests_pass():
    node = shutil.which("node")
    if node is None:
        pytest.fail("node (v20 or later) is needed for frontend/js/tests/")
    result = subprocess.run([node, "--test", "frontend/js/tests/"], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert "# fail 0" in result.stdout
