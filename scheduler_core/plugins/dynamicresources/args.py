"""DynamicResourcesArgs (apis/config/v1): filterTimeout and bindingTimeout, validated as
ValidateDynamicResourcesArgs does. Setting a field whose feature gate is off is an error (not
ignored), as Go says: "In contrast to the REST API, setting fields that have no effect because
the corresponding feature is disabled is considered an error."

The engine's Filter is not bounded by wall-clock time, so filterTimeout never cuts it short;
bindingTimeout is how long PreBind waits for binding conditions (binding.py)."""
from __future__ import annotations

from ...errors import forbidden, invalid

FIELDS = ("filterTimeout", "bindingTimeout")
_UNITS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}


def parse_duration(text) -> float:
    """Go's time.ParseDuration, in seconds ("600s", "10m", "1m30s", "-1s", "0")."""
    rest = str(text)
    sign = -1.0 if rest.startswith("-") else 1.0
    rest = rest.lstrip("+-")
    if rest == "0":
        return 0.0
    seconds = 0.0
    if not rest:
        raise ValueError(f'time: invalid duration "{text}"')
    while rest:
        number = ""
        while rest and (rest[0].isdigit() or rest[0] == "."):
            number, rest = number + rest[0], rest[1:]
        unit = next((u for u in ("ms", "us", "µs", "ns", "h", "m", "s") if rest.startswith(u)),
                    None)
        if not number or unit is None:
            raise ValueError(f'time: invalid duration "{text}"')
        seconds += float(number) * _UNITS[unit]
        rest = rest[len(unit):]
    return sign * seconds


def validate_args(args: dict, path: str, gates=None) -> list[str]:
    """ValidateDynamicResourcesArgs; gates (FeatureGates) decide which fields may be set."""
    errors = []
    prefix = f"{path}." if path else ""
    for name in FIELDS:
        if args.get(name) is None:
            continue
        try:
            seconds = parse_duration(args[name])
        except ValueError as exc:
            errors.append(invalid(f"{prefix}{name}", args[name], str(exc)))
            continue
        if name == "filterTimeout":
            if gates is not None and not gates.enabled("DRASchedulerFilterTimeout"):
                errors.append(forbidden(f"{prefix}{name}",
                                        "DRASchedulingFilterTimeout feature gate is disabled"))
            elif seconds < 0:
                errors.append(invalid(f"{prefix}{name}", args[name], "must be zero or positive"))
        elif gates is not None and not (gates.enabled("DRADeviceBindingConditions")
                                        and gates.enabled("DRAResourceClaimDeviceStatus")):
            errors.append(forbidden(f"{prefix}{name}", "DRADeviceBindingConditions or "
                                    "DRAResourceClaimDeviceStatus feature gate is disabled"))
        elif seconds < 1:
            errors.append(invalid(f"{prefix}{name}", args[name], "must be at least 1 second"))
    return errors
