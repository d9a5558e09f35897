"""docs/SIMULATE_CONTRACT.md is kept in sync with the command line: every flag and output
choice of `simulate` is written in it."""
from pathlib import Path

import pytest

from scheduler_core.cli import build_parser

DOC = (Path(__file__).resolve().parents[2] / "docs" / "SIMULATE_CONTRACT.md").read_text()


def simulate_actions():
    (sub,) = [a for a in build_parser()._actions if a.dest == "command"]
    return [a for a in sub.choices["simulate"]._actions if a.option_strings and a.dest != "help"]


@pytest.mark.parametrize("flag", [s for a in simulate_actions() for s in a.option_strings])
def test_every_flag_is_in_the_contract(flag):
    assert flag in DOC


@pytest.mark.parametrize("output", next(a.choices for a in simulate_actions()
                                        if a.dest == "output"))
def test_every_output_has_its_section(output):
    assert f"## Output (`--output {output}`" in DOC
