"""selectHost's reservoir sampling on arrays picks what the one-by-one loop picks, and leaves
the random generator where randrange per tie would."""
import random

import pytest

from scheduler_core.reservoir import _select_index_loop, select_index


@pytest.mark.parametrize("trial", range(300))
def test_the_same_node_and_the_same_draws_as_randrange(trial):
    r = random.Random(trial)
    totals = [r.choice([3, 5, 5, 7, 7, 7, 2**40]) for _ in range(r.randint(1, 60))]
    fast, slow = random.Random(trial * 7), random.Random(trial * 7)
    assert select_index(totals, fast) == _select_index_loop(totals, slow)
    assert fast.getstate() == slow.getstate()


@pytest.mark.parametrize("size", [2, 3, 4, 5, 1024, 1025, 5000])
def test_thousands_of_ties(size):
    fast, slow = random.Random(size), random.Random(size)
    assert select_index([1] * size, fast) == _select_index_loop([1] * size, slow)
    assert fast.getstate() == slow.getstate()


def test_a_strictly_highest_node_draws_nothing():
    rng = random.Random(3)
    state = rng.getstate()
    assert select_index([1, 9, 4, 2], rng) == 1
    assert rng.getstate() == state


@pytest.mark.parametrize("trial", range(40))
def test_long_runs_of_lower_bests_before_the_highest_draw_as_randrange(trial):
    # Hundreds of nodes before the first highest score: their ties are found on arrays.
    r = random.Random(trial)
    size = r.randint(70, 3000)
    totals = sorted(r.choice([1, 2, 2, 3, 3, 3, 4]) for _ in range(size))
    totals = [t if r.random() < 0.9 else r.choice([0, 4]) for t in totals]
    fast, slow = random.Random(trial), random.Random(trial)
    assert select_index(totals, fast) == _select_index_loop(totals, slow)
    assert fast.getstate() == slow.getstate()
