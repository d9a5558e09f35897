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


# Up to this many nodes before the first highest score are walked in Python: numpy's fixed
# cost per call is more than such a walk.
SHORT_PREFIX = 64


def select_index(totals, rng) -> int:
    """The index selectHost picks; rng advances exactly as randrange(count) per tie would."""
    scores = np.asarray(totals)
    if scores.dtype.kind not in "iu" or len(scores) < 2:
        return _select_index_loop(totals, rng)
    # The final run of equal bests starts at the first highest score: only its ties can win.
    # The ties of the runs before it (with lower bests) draw first, and cannot win.
    first_top = int(np.argmax(scores))
    if first_top > 1:
        ties, counts = _earlier_ties(scores[:first_top])
        _draw(ties, counts, first_top, rng)
    rest = scores[first_top + 1:]
    final = np.flatnonzero(rest == scores[first_top])
    if not len(final):
        return first_top   # a strictly highest node: no draw after it
    return _draw((final + (first_top + 1)).tolist(), range(2, len(final) + 2), first_top, rng)


def _earlier_ties(scores: np.ndarray) -> tuple[list[int], list[int]]:
    """The ties of a walk over `scores` (each node scoring the best so far, after the first)
    and the count each draws with (2 for the first tie of a run of equal bests, then 3...)."""
    if len(scores) <= SHORT_PREFIX:
        ties, counts, best, count = [], [], None, 0
        for position, score in enumerate(scores.tolist()):
            if best is None or score > best:
                best, count = score, 1
            elif score == best:
                count += 1
                ties.append(position)
                counts.append(count)
        return ties, counts
    previous = np.maximum.accumulate(scores)[:-1]
    ties = np.flatnonzero(scores[1:] == previous) + 1
    raises = np.flatnonzero(scores[1:] > previous) + 1
    # The node that started each tie's run of equal bests, and the tie's count within it.
    starts = np.concatenate(([0], raises))
    run_start = starts[np.searchsorted(starts, ties, side="right") - 1]
    ties_before = np.searchsorted(ties, run_start)
    counts = np.arange(len(ties)) - ties_before + 2
    return ties.tolist(), counts.tolist()


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
