"""selectHost's reservoir sampling over the total scores, drawing exactly what
random.Random.randrange draws, with the bookkeeping done on arrays.

Go's selectHost walks the scored nodes keeping the best; a node scoring the same as the best so
far replaces it with probability 1/count. At cluster scale thousands of nodes tie, so only the
draws stay in Python: the ties, their counts and the bit widths are found with numpy.
"""
from __future__ import annotations

import numpy as np


def select_index(totals: list[int], rng) -> int:
    """The index selectHost picks; rng advances exactly as randrange(count) per tie would."""
    scores = np.asarray(totals)
    if scores.dtype.kind not in "iu" or len(scores) < 2:
        return _select_index_loop(totals, rng)
    best_so_far = np.maximum.accumulate(scores)
    previous = best_so_far[:-1]
    ties = np.flatnonzero(scores[1:] == previous) + 1
    if not len(ties):
        return int(np.argmax(scores))  # the first of the highest: no draw is ever made
    raises = np.flatnonzero(scores[1:] > previous) + 1
    # The node that started each tie's run of equal bests, and the tie's count within it.
    starts = np.concatenate(([0], raises))
    run_start = starts[np.searchsorted(starts, ties, side="right") - 1]
    ties_before = np.searchsorted(ties, run_start)
    counts = np.arange(len(ties)) - ties_before + 2
    last_start = int(starts[-1])
    best = last_start
    getrandbits = rng.getrandbits
    for position, count, bits in zip(ties.tolist(), counts.tolist(),
                                     _bit_lengths(counts).tolist()):
        # randrange(count) is _randbelow(count): draws of count.bit_length() bits until one
        # is below count.
        drawn = getrandbits(bits)
        while drawn >= count:
            drawn = getrandbits(bits)
        if drawn == 0 and position > last_start:
            best = position
    return best


def _bit_lengths(values: np.ndarray) -> np.ndarray:
    """int.bit_length of each (positive) value: frexp's exponent, exact below 2**53."""
    return np.frexp(values.astype(np.float64))[1]


def _select_index_loop(totals, rng) -> int:
    best, best_score, count = None, None, 0
    for i, score in enumerate(totals):
        if best is None or score > best_score:
            best, best_score, count = i, score, 1
        elif score == best_score:
            count += 1
            if rng.randrange(count) == 0:
                best = i
    return best
