"""Kubernetes resource quantities, parsed the way apimachinery's resource.Quantity does.

cpu is kept in millicores and everything else in whole units, both rounded up as
Quantity.MilliValue() and Quantity.Value() round. Those integers are Go's int64 in
kube-scheduler (and 64-bit columns in the playground's database), so a quantity whose value
does not fit ("1e400", or a YAML float that overflowed to infinity) is refused by the command
line and the API alike, never taken as unlimited.
"""
import math
import re
from decimal import ROUND_CEILING, Decimal, InvalidOperation
from functools import lru_cache

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {
    "n": Decimal("1e-9"), "u": Decimal("1e-6"), "m": Decimal("1e-3"), "": Decimal(1),
    "k": Decimal("1e3"), "M": Decimal("1e6"), "G": Decimal("1e9"), "T": Decimal("1e12"),
    "P": Decimal("1e15"), "E": Decimal("1e18"),
}
INT64_MAX = 2**63 - 1
# Past this exponent any non-zero quantity is out of int64 range, and computing 10**exponent
# would only burn time and memory; below its negative, every non-zero value rounds up alike.
_MAX_EXPONENT = 40
_QUANTITY = re.compile(
    r"^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$")


class QuantityError(ValueError):
    """A string that is not a Kubernetes quantity."""


def parse_quantity(value) -> Decimal:
    """The exact value of a quantity such as '100m', '1.5', '2Gi', '1G' or '1e3'."""
    if isinstance(value, str):
        return _parse_text(value)
    if isinstance(value, bool):
        raise QuantityError(f"quantities must match the regular expression: {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise QuantityError(f"must be a finite number: {value!r}")
    if isinstance(value, int | float):
        return Decimal(str(value))
    raise _no_match(value)


def _no_match(value) -> QuantityError:
    return QuantityError(
        f"quantities must match the regular expression "
        f"'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': {value!r}"
    )


# A cluster repeats a few quantities ("100m", "500Mi", "4") over thousands of objects.
@lru_cache(maxsize=4096)
def _parse_text(value: str) -> Decimal:
    # No strip(): apimachinery rejects leading and trailing whitespace (" 1", "1 ").
    match = _QUANTITY.fullmatch(value)
    if not match:
        raise _no_match(value)
    number, suffix = match.groups()
    suffix = suffix or ""
    try:
        base = Decimal(number)
    except InvalidOperation as exc:  # pragma: no cover - the regex admits only decimals
        raise QuantityError(f"invalid quantity {value!r}") from exc
    if suffix in _BINARY:
        return base * _BINARY[suffix]
    if suffix in _DECIMAL:
        return base * _DECIMAL[suffix]
    if suffix[:1] in ("e", "E"):
        exponent = int(suffix[1:])
        if exponent > _MAX_EXPONENT and base:
            raise QuantityError(f"must be no more than {INT64_MAX}: {value!r}")
        return base * (Decimal(10) ** min(max(exponent, -_MAX_EXPONENT), _MAX_EXPONENT))
    raise QuantityError(f"unable to parse quantity's suffix: {value!r}")  # pragma: no cover


def _ceil(value: Decimal) -> int:
    return int(value.to_integral_value(rounding=ROUND_CEILING))


def milli_value(value) -> int:
    """Quantity.MilliValue(): thousandths, rounded up."""
    if isinstance(value, str):
        return _milli_text(value)
    return _ceil(parse_quantity(value) * 1000)


def int_value(value) -> int:
    """Quantity.Value(): whole units, rounded up."""
    if isinstance(value, str):
        return _int_text(value)
    return _ceil(parse_quantity(value))


@lru_cache(maxsize=4096)
def _milli_text(value: str) -> int:
    return _ceil(_parse_text(value) * 1000)


@lru_cache(maxsize=4096)
def _int_text(value: str) -> int:
    return _ceil(_parse_text(value))


def resource_value(name: str, value) -> int:
    """The scheduler's integer for a resource: millicores for cpu, units for the rest."""
    amount = milli_value(value) if name == "cpu" else int_value(value)
    if abs(amount) > INT64_MAX:
        raise QuantityError(f"must be no more than {INT64_MAX}: {value!r}")
    return amount


_DECIMAL_SUFFIXES = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T",
                     15: "P", 18: "E"}
_BINARY_SUFFIXES = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")


def canonical(value) -> str:
    """Quantity.String(): the value in its format's canonical form ("1.5Gi" is "1536Mi",
    "0.5" is "500m", "2000" is "2k"), the format being the input's suffix family.

    Values are first rounded up to nano units, as the parser keeps them."""
    amount = parse_quantity(value)
    nanos = _ceil(amount * Decimal("1e9"))
    text = value if isinstance(value, str) else str(value)
    suffix = (_QUANTITY.fullmatch(text) or [None, None, None])[2] or ""
    if suffix[:1] in ("e", "E"):
        return _exponent_form(nanos)
    if suffix in _BINARY and not -1024 < amount < 1024 and nanos % 10**9 == 0:
        number, power = nanos // 10**9, 0
        while number and number % 1024 == 0 and power < len(_BINARY_SUFFIXES) - 1:
            number, power = number // 1024, power + 1
        return f"{number}{_BINARY_SUFFIXES[power]}"
    return _decimal_form(nanos)


def _trimmed(nanos: int) -> tuple[int, int]:
    """(mantissa, exponent) of nanos x 10^-9 without trailing zeros."""
    exponent = -9
    while nanos and nanos % 10 == 0:
        nanos, exponent = nanos // 10, exponent + 1
    return nanos, exponent


def _decimal_form(nanos: int) -> str:
    number, exponent = _trimmed(nanos)
    if number == 0:
        return "0"
    shift = exponent % 3                      # AsCanonicalBytes: exponent a multiple of 3
    number, exponent = number * 10**shift, exponent - shift
    while exponent > 18:
        number, exponent = number * 1000, exponent - 3
    return f"{number}{_DECIMAL_SUFFIXES[exponent]}"


def _exponent_form(nanos: int) -> str:
    number, exponent = _trimmed(nanos)
    if number == 0:
        return "0"
    shift = exponent % 3
    number, exponent = number * 10**shift, exponent - shift
    return f"{number}e{exponent}" if exponent else str(number)
