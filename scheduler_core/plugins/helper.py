"""Helpers shared by plugins (plugins/helper)."""
from ..framework.interfaces import MAX_NODE_SCORE, NodeScore


def go_div(a: int, b: int) -> int:
    """Integer division truncating toward zero, as Go's int64 division does."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def default_normalize_score(scores: list[NodeScore], reverse: bool = False,
                            max_priority: int = MAX_NODE_SCORE) -> None:
    """DefaultNormalizeScore: scale to [0, max_priority] by the highest score; reverse flips it."""
    max_count = max((s.score for s in scores), default=0)
    if max_count == 0:
        if reverse:
            for s in scores:
                s.score = max_priority
        return
    for s in scores:
        score = go_div(max_priority * s.score, max_count)
        s.score = max_priority - score if reverse else score
