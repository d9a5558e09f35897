"""`--timings`: wall time per extension point and per plugin, measured by wrapping each plugin's
extension-point methods (per node, and vectorized over all nodes) on the instance. Nothing is
wrapped unless asked for, so the deterministic output and an unobserved run's cost are
untouched."""
from __future__ import annotations

import time
from collections import defaultdict

# Extension point -> (the framework's list of plugins for it, the methods it calls on them).
POINTS = {
    "preFilter": ("pre_filter_plugins", ("pre_filter",)),
    "filter": ("filter_plugins", ("filter", "filter_vector")),
    "postFilter": ("post_filter_plugins", ("post_filter",)),
    "preScore": ("pre_score_plugins", ("pre_score",)),
    "score": ("score_plugins", ("score", "score_vector")),
    "reserve": ("reserve_plugins", ("reserve", "unreserve")),
    "permit": ("permit_plugins", ("permit",)),
    "preBind": ("pre_bind_plugins", ("pre_bind",)),
    "bind": ("bind_plugins", ("bind",)),
    "postBind": ("post_bind_plugins", ("post_bind",)),
}


class PluginTimer:
    """Wraps the plugins of the given frameworks; `table()` prints what they cost."""

    def __init__(self, frameworks):
        self.seconds: dict[tuple[str, str], float] = defaultdict(float)
        self.calls: dict[tuple[str, str], int] = defaultdict(int)
        for fwk in frameworks:
            for point, (attr, methods) in POINTS.items():
                for plugin in getattr(fwk, attr):
                    for method in methods:
                        if hasattr(plugin, method):
                            self._wrap(plugin, method, (point, plugin.name()))
            for plugin in fwk.score_plugins:
                ext = plugin.score_extensions()
                for method in ("normalize_score", "normalize_vector"):
                    if ext is not None and hasattr(ext, method):
                        self._wrap(ext, method, ("normalizeScore", plugin.name()))

    def _wrap(self, obj, method: str, key: tuple[str, str]) -> None:
        if method in vars(obj):
            return  # one plugin object in two profiles: wrapped once
        inner = getattr(obj, method)
        seconds, calls, clock = self.seconds, self.calls, time.perf_counter

        def timed(*args, **kwargs):
            start = clock()
            try:
                return inner(*args, **kwargs)
            finally:
                seconds[key] += clock() - start
                calls[key] += 1
        setattr(obj, method, timed)

    def table(self) -> str:
        """Per point (in the framework's order) its total, then each plugin's share of it."""
        order = list(POINTS) + ["normalizeScore"]
        totals: dict[str, float] = defaultdict(float)
        for (point, _), secs in self.seconds.items():
            totals[point] += secs
        lines = [f"  {'point / plugin':<40} {'calls':>9} {'seconds':>9}"]
        for point in sorted(totals, key=order.index):
            lines.append(f"  {point:<40} {'':>9} {totals[point]:>9.3f}")
            for (p, plugin), secs in sorted(self.seconds.items(), key=lambda kv: -kv[1]):
                if p == point:
                    lines.append(f"    {plugin:<38} {self.calls[p, plugin]:>9} {secs:>9.3f}")
        return "\n".join(lines)
