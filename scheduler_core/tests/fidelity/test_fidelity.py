"""kube-scheduler's own engine tests, replayed through `simulate` (see harness.py, cases/)."""
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from .harness import check, documents, load_cases, plugin_flags, simulate

CASES = load_cases()
ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("case", [pytest.param(c, id=i) for i, c in CASES])
def test_case(case, tmp_path):
    check(case, tmp_path)


def test_the_command_line_prints_what_the_cases_check(tmp_path):
    """`python -m scheduler_core simulate` with --plugin gives the in-process output, byte for
    byte, so the cases hold for the command itself."""
    case = dict(CASES)["schedule_pod: test 6 (weighted normalized scores are summed)"]
    code, out, _ = simulate(case, tmp_path)
    path = tmp_path / "cli.yaml"
    path.write_text(yaml.safe_dump_all(documents(case), sort_keys=False))
    run = subprocess.run([sys.executable, "-m", "scheduler_core", "simulate", str(path),
                          "--output", "json", *plugin_flags(case)],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert (run.returncode, run.stderr) == (code, "")
    assert run.stdout == out
