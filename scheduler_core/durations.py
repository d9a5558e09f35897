"""Go's time.Duration in seconds: time.ParseDuration and Duration.String(), with Go's words,
for every duration a configuration or a message holds (metav1.Duration fields, Permit timeouts).
"""
from __future__ import annotations

import re

_UNITS = {"ns": 1e-9, "us": 1e-6, "\u00b5s": 1e-6, "\u03bcs": 1e-6, "ms": 1e-3, "s": 1.0,
          "m": 60.0, "h": 3600.0}
_DURATION_PART = re.compile(r"(\d+\.?\d*|\.\d+)([^\d.]*)")


def parse_go_duration(text: str) -> float:
    """time.ParseDuration in seconds ("1m30s", "500ms", "-2s"), with Go's error messages."""
    original = text
    quoted = f'"{original}"'
    sign = 1.0
    if text and text[0] in "+-":
        sign = -1.0 if text[0] == "-" else 1.0
        text = text[1:]
    if text == "0":
        return 0.0
    if not text:
        raise ValueError(f"time: invalid duration {quoted}")
    total, pos = 0.0, 0
    while pos < len(text):
        match = _DURATION_PART.match(text, pos)
        if match is None:
            raise ValueError(f"time: invalid duration {quoted}")
        number, unit = match.groups()
        if not unit:
            raise ValueError(f"time: missing unit in duration {quoted}")
        if unit not in _UNITS:
            raise ValueError(f'time: unknown unit "{unit}" in duration {quoted}')
        total += float(number) * _UNITS[unit]
        pos = match.end()
    return sign * total


def go_duration(seconds: float) -> str:
    """time.Duration's String() for whole and fractional seconds: 10s, 1m30s, 500ms."""
    if seconds < 1:
        return f"{round(seconds * 1000)}ms" if seconds else "0s"
    minutes, secs = divmod(seconds, 60)
    hours, minutes = divmod(int(minutes), 60)
    sec_text = f"{secs:g}s"
    if hours:
        return f"{hours}h{minutes}m{sec_text}"
    if minutes:
        return f"{minutes}m{sec_text}"
    return sec_text
