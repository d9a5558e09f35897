"""selectHost's reservoir sampling over the total scores, drawing exactly what
random.Random.randrange draws, with the bookkeeping done on arrays.

Go's selectHost walks the scored nodes keeping the best; a node scoring the same as the best so
far replaces it with probability 1/count. At cluster scale thousands of nodes tie, so only the
draws stay in Python: the ties and their counts are found with numpy.
"""
from __future__ import annotations

import numpy as np

# int.bit_length of 0, 1, 2...: the bits randrange(count) draws, looked up in the draw loop.
_BIT_LENGTHS: list[int] = [0]


def select_index(totals, rng) -> int:
    """The index selectHost picks; rng advances exactly as randrange(count) per tie would."""
    scores = np.asarray(totals)
    if scores.dtype.kind not in "iu" or len(scores) < 2:
        return _select_index_loop(totals, rng)
    top = scores.max()
    if scores[0] == top:
        # The first node is the best already: every tie is with the final best, counted 2, 3...
        ties = np.flatnonzero(scores == top)[1:]
        return _draw(ties.tolist(), range(2, len(ties) + 2), 0, rng)
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
    return _draw(ties.tolist(), counts.tolist(), int(starts[-1]), rng)


def _draw(ties: list[int], counts, last_start: int, rng) -> int:
    """One randrange(count) per tie, in order; the last tie of the final run drawing 0 wins,
    else the node that started that run."""
    if len(_BIT_LENGTHS) <= len(ties) + 2:
        _BIT_LENGTHS.extend(c.bit_length() for c in range(len(_BIT_LENGTHS), 2 * len(ties) + 3))
    bit_lengths = _BIT_LENGTHS
    getrandbits = rng.getrandbits
    best = last_start
    for position, count in zip(ties, counts):
        # randrange(count) is _randbelow(count): draws of count.bit_length() bits until one
        # is below count.
        bits = bit_lengths[count]
        drawn = getrandbits(bits)
        while drawn >= count:
            drawn = getrandbits(bits)
        if drawn == 0 and position > last_start:
            best = position
    return best


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
