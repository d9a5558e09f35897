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
    """time.Duration's String(): "0s", "1.5µs", "500ms", "1.5s", "1m30s", "1h0m0s", "-1m0s"
    (a whole number of nanoseconds; the fraction without trailing zeros)."""
    nanos = round(seconds * 1e9)
    if nanos == 0:
        return "0s"
    sign, u = ("-" if nanos < 0 else ""), abs(nanos)
    if u < 10**9:
        for limit, digits, unit in ((10**3, 0, "ns"), (10**6, 3, "\u00b5s"), (10**9, 6, "ms")):
            if u < limit:
                return sign + _fraction(u, digits) + unit
    text = _fraction(u % (60 * 10**9), 9) + "s"
    minutes = u // (60 * 10**9)
    if minutes:
        text = f"{minutes % 60}m" + text
        if minutes >= 60:
            text = f"{minutes // 60}h" + text
    return sign + text


def _fraction(value: int, digits: int) -> str:
    """fmtFrac then fmtInt: value / 10**digits with its fraction's trailing zeros dropped."""
    whole, frac = divmod(value, 10**digits)
    frac_text = f"{frac:0{digits}d}".rstrip("0") if digits else ""
    return f"{whole}.{frac_text}" if frac_text else str(whole)
