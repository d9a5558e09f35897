"""kube-scheduler's own engine tests, replayed through `simulate` (see harness.py, cases/)."""
import pytest

from .harness import check, load_cases


@pytest.mark.parametrize("case", [pytest.param(c, id=i) for i, c in load_cases()])
def test_case(case, tmp_path):
    check(case, tmp_path)
