"""Helpers shared by plugins (plugins/helper), and the function-shape args both
NodeResourcesFit and VolumeBinding take (apis/config's UtilizationShapePoint)."""
import numpy as np

from ..errors import ConfigError, invalid, not_in_range, required
from ..framework.interfaces import MAX_NODE_SCORE, NodeScore

# config.MaxUtilization and config.MaxCustomPriorityScore: shape points are given on 0..10 and
# scaled to node scores.
MAX_UTILIZATION = 100
MAX_CUSTOM_PRIORITY_SCORE = 10


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


def default_normalize_vector(scores, reverse: bool = False, max_priority: int = MAX_NODE_SCORE):
    """default_normalize_score over a numpy array of raw scores, returning the new scores."""
    max_count = int(np.maximum.reduce(scores)) if len(scores) else 0
    if max_count <= 0:
        # A highest score of 0 (or less, where Go divides by it) is handled by the loop.
        if max_count == 0:
            return np.full(len(scores), max_priority, np.int64) if reverse else scores
        return None
    scaled = max_priority * scores
    # Go's division truncates toward zero; the scores can be negative.
    score = np.where(scaled >= 0, scaled // max_count, -(-scaled // max_count))
    return max_priority - score if reverse else score


def build_broken_linear_function(shape: list[tuple[int, int]]):
    """BuildBrokenLinearFunction (shape_score.go) over (utilization, score) points sorted by
    utilization."""

    def fn(p: int) -> int:
        for i, (utilization, score) in enumerate(shape):
            if p <= utilization:
                if i == 0:
                    return score
                prev_u, prev_s = shape[i - 1]
                return prev_s + go_div((score - prev_s) * (p - prev_u), utilization - prev_u)
        return shape[-1][1]

    return fn


def validate_function_shape(shape: list[dict] | None, path: str) -> list[str]:
    """validateFunctionShape: points sorted by utilization, both values in range."""
    if not shape:
        return [required(path, "at least one point must be specified")]
    errs = []
    for i in range(1, len(shape)):
        if shape[i - 1].get("utilization", 0) >= shape[i].get("utilization", 0):
            errs.append(invalid(f"{path}[{i}].utilization", shape[i].get("utilization", 0),
                                "values must be sorted in increasing order"))
            break
    for i, point in enumerate(shape):
        utilization, score = point.get("utilization", 0), point.get("score", 0)
        if utilization < 0 or utilization > MAX_UTILIZATION:
            errs.append(not_in_range(f"{path}[{i}].utilization", utilization, 0, MAX_UTILIZATION))
        if score < 0 or score > MAX_CUSTOM_PRIORITY_SCORE:
            errs.append(not_in_range(f"{path}[{i}].score", score, 0, MAX_CUSTOM_PRIORITY_SCORE))
    return errs


def checked_args(args: dict, default_args, validate_args) -> dict:
    """A plugin's args with defaults filled in, or ConfigError with every validation message.

    The framework hands plugins args the configuration already checked; factories check
    again so a plugin built directly, or registered as "module:factory", is just as safe.
    """
    args = default_args(args)
    errors = validate_args(args, "")
    if errors:
        raise ConfigError(errors)
    return args
